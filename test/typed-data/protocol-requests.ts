import { type Address, getAddress, parseEther, parseUnits } from 'viem'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { PERMIT2_ADDRESS, ZERO_BYTES32 } from '../support/typed-data-kinds.js'
import { COMET_USDC, PRIORITY_REACTOR } from './protocol-verifiers.js'
import type { TypedDataChain } from './typed-data-chain.js'
import { OWNER, ZERO } from './typed-data-requests.js'

/**
 * Requests for the protocol kinds, signed by OWNER, with their types written out as each
 * protocol's published type string has them (test/typed-data/protocol-typehashes.test.ts holds
 * the strings to the contracts' typehashes).
 */

/** A stranger: an account without code that is not the signer. */
export const STRANGER: Address = getAddress('0x5742a3a9d2d4a2c4aa5e4df1d1d6e1b4c9a2f00d')
/** UniswapX's cosigner of the test orders: a third party whose role is known. */
export const COSIGNER: Address = getAddress('0x00000000000000000000000000000000c0051900')
/** CoW's GPv2Settlement and the 1inch v6 router on Base. */
export const COW_SETTLEMENT: Address = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41'
export const ONE_INCH_ROUTER: Address = '0x111111125421cA6dc452d289314280a0f8842A65'
export const MORPHO_BLUE: Address = '0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb'

/** `'address a,uint256 b'` as EIP-712 fields. */
export const typeOf = (spec: string) =>
  spec.split(',').map((part) => {
    const [type = '', name = ''] = part.trim().split(' ')
    return { name, type }
  })

const DOMAIN_4 = typeOf('string name,string version,uint256 chainId,address verifyingContract')
export const COW_ORDER_TYPE = typeOf(
  'address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,uint32 validTo,bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance',
)
export const ONE_INCH_ORDER_TYPE = typeOf(
  'uint256 salt,address maker,address receiver,address makerAsset,address takerAsset,uint256 makingAmount,uint256 takingAmount,uint256 makerTraits',
)
export const ORDER_INFO_TYPE = typeOf(
  'address reactor,address swapper,uint256 nonce,uint256 deadline,address additionalValidationContract,bytes additionalValidationData',
)
export const DUTCH_OUTPUT_TYPE = typeOf(
  'address token,uint256 startAmount,uint256 endAmount,address recipient',
)
export const MORPHO_AUTHORIZATION_TYPE = typeOf(
  'address authorizer,address authorized,bool isAuthorized,uint256 nonce,uint256 deadline',
)
export const COMET_AUTHORIZATION_TYPE = typeOf(
  'address owner,address manager,bool isAllowed,uint256 nonce,uint256 expiry',
)
export const DELEGATION_WITH_SIG_TYPE = typeOf(
  'address delegatee,uint256 value,uint256 nonce,uint256 deadline',
)

/** 1,000 USDC: what the orders sell. */
export const SELL_USDC = parseUnits('1000', 6)
/** 0.3 TST: what they buy. */
export const BUY_TST = parseEther('0.3')

/** A CoW sell order of 1,000 USDC for at least 0.3 TST. */
export function cowOrder(
  chain: TypedDataChain,
  o: { receiver?: Address; kind?: string; verifyingContract?: Address } = {},
) {
  return {
    signer: OWNER,
    typedData: {
      domain: {
        name: 'Gnosis Protocol',
        version: 'v2',
        chainId: 8453,
        verifyingContract: o.verifyingContract ?? COW_SETTLEMENT,
      },
      types: { EIP712Domain: DOMAIN_4, Order: COW_ORDER_TYPE },
      primaryType: 'Order',
      message: {
        sellToken: USDC_ADDRESS,
        buyToken: chain.token,
        receiver: o.receiver ?? ZERO,
        sellAmount: SELL_USDC.toString(),
        buyAmount: BUY_TST.toString(),
        validTo: Number(chain.now + 1800n),
        appData: ZERO_BYTES32,
        feeAmount: '0',
        kind: o.kind ?? 'sell',
        partiallyFillable: false,
        sellTokenBalance: 'erc20',
        buyTokenBalance: 'erc20',
      },
    },
  }
}

/** A 1inch v4 limit order: 1,000 USDC for 0.3 TST, expiring in 30 minutes unless told. */
export function oneInchOrder(
  chain: TypedDataChain,
  o: { receiver?: Address; maker?: Address; expiration?: bigint } = {},
) {
  const expiration = o.expiration ?? chain.now + 1800n
  return {
    signer: OWNER,
    typedData: {
      domain: {
        name: '1inch Aggregation Router',
        version: '6',
        chainId: 8453,
        verifyingContract: ONE_INCH_ROUTER,
      },
      types: { EIP712Domain: DOMAIN_4, Order: ONE_INCH_ORDER_TYPE },
      primaryType: 'Order',
      message: {
        salt: '7',
        maker: o.maker ?? OWNER,
        receiver: o.receiver ?? ZERO,
        makerAsset: USDC_ADDRESS,
        takerAsset: chain.token,
        makingAmount: SELL_USDC.toString(),
        takingAmount: BUY_TST.toString(),
        makerTraits: (expiration << 80n).toString(),
      },
    },
  }
}

type Output = { recipient: Address; amount: bigint }

function orderInfo(chain: TypedDataChain, reactor: Address) {
  return {
    reactor,
    swapper: OWNER,
    nonce: '11',
    deadline: (chain.now + 600n).toString(),
    additionalValidationContract: ZERO,
    additionalValidationData: '0x',
  }
}

function permitWitness(
  chain: TypedDataChain,
  witnessType: string,
  witnessTypes: Record<string, { name: string; type: string }[]>,
  witness: Record<string, unknown>,
  spender: Address,
) {
  return {
    signer: OWNER,
    typedData: {
      domain: { name: 'Permit2', chainId: 8453, verifyingContract: PERMIT2_ADDRESS },
      types: {
        PermitWitnessTransferFrom: typeOf(
          `TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,${witnessType} witness`,
        ),
        TokenPermissions: typeOf('address token,uint256 amount'),
        OrderInfo: ORDER_INFO_TYPE,
        ...witnessTypes,
      },
      primaryType: 'PermitWitnessTransferFrom',
      message: {
        permitted: { token: USDC_ADDRESS, amount: SELL_USDC.toString() },
        spender,
        nonce: '11',
        deadline: (chain.now + 600n).toString(),
        witness,
      },
    },
  }
}

/** A UniswapX PriorityOrder: 1,000 USDC in, the outputs given (default: 0.3 TST to the signer). */
export function priorityOrder(
  chain: TypedDataChain,
  o: { outputs?: Output[]; spender?: Address; reactor?: Address } = {},
) {
  const reactor = o.reactor ?? PRIORITY_REACTOR
  const outputs = o.outputs ?? [{ recipient: OWNER, amount: BUY_TST }]
  return permitWitness(
    chain,
    'PriorityOrder',
    {
      PriorityOrder: typeOf(
        'OrderInfo info,address cosigner,uint256 auctionStartBlock,uint256 baselinePriorityFeeWei,PriorityInput input,PriorityOutput[] outputs',
      ),
      PriorityInput: typeOf('address token,uint256 amount,uint256 mpsPerPriorityFeeWei'),
      PriorityOutput: typeOf(
        'address token,uint256 amount,uint256 mpsPerPriorityFeeWei,address recipient',
      ),
    },
    {
      info: orderInfo(chain, reactor),
      cosigner: COSIGNER,
      auctionStartBlock: '0',
      baselinePriorityFeeWei: '0',
      input: { token: USDC_ADDRESS, amount: SELL_USDC.toString(), mpsPerPriorityFeeWei: '0' },
      outputs: outputs.map((out) => ({
        token: chain.token,
        amount: out.amount.toString(),
        mpsPerPriorityFeeWei: '0',
        recipient: out.recipient,
      })),
    },
    o.spender ?? reactor,
  )
}

const dutchOutputs = (chain: TypedDataChain, outputs: Output[]) =>
  outputs.map((out) => ({
    token: chain.token,
    startAmount: ((out.amount * 11n) / 10n).toString(),
    endAmount: out.amount.toString(),
    recipient: out.recipient,
  }))

/** A UniswapX ExclusiveDutchOrder for `reactor` (UniswapX has none on Base). */
export function exclusiveDutchOrder(
  chain: TypedDataChain,
  o: { outputs?: Output[]; reactor: Address },
) {
  return permitWitness(
    chain,
    'ExclusiveDutchOrder',
    {
      ExclusiveDutchOrder: typeOf(
        'OrderInfo info,uint256 decayStartTime,uint256 decayEndTime,address exclusiveFiller,uint256 exclusivityOverrideBps,address inputToken,uint256 inputStartAmount,uint256 inputEndAmount,DutchOutput[] outputs',
      ),
      DutchOutput: DUTCH_OUTPUT_TYPE,
    },
    {
      info: orderInfo(chain, o.reactor),
      decayStartTime: chain.now.toString(),
      decayEndTime: (chain.now + 60n).toString(),
      exclusiveFiller: COSIGNER,
      exclusivityOverrideBps: '100',
      inputToken: USDC_ADDRESS,
      inputStartAmount: SELL_USDC.toString(),
      inputEndAmount: SELL_USDC.toString(),
      outputs: dutchOutputs(chain, o.outputs ?? [{ recipient: OWNER, amount: BUY_TST }]),
    },
    o.reactor,
  )
}

/** A UniswapX V2DutchOrder for `reactor` (UniswapX has none on Base). */
export function v2DutchOrder(chain: TypedDataChain, o: { outputs?: Output[]; reactor: Address }) {
  return permitWitness(
    chain,
    'V2DutchOrder',
    {
      V2DutchOrder: typeOf(
        'OrderInfo info,address cosigner,address baseInputToken,uint256 baseInputStartAmount,uint256 baseInputEndAmount,DutchOutput[] baseOutputs',
      ),
      DutchOutput: DUTCH_OUTPUT_TYPE,
    },
    {
      info: orderInfo(chain, o.reactor),
      cosigner: COSIGNER,
      baseInputToken: USDC_ADDRESS,
      baseInputStartAmount: SELL_USDC.toString(),
      baseInputEndAmount: SELL_USDC.toString(),
      baseOutputs: dutchOutputs(chain, o.outputs ?? [{ recipient: OWNER, amount: BUY_TST }]),
    },
    o.reactor,
  )
}

/** Morpho Blue `Authorization` of `authorized` by OWNER (nonce 0, 30 minutes). */
export function morphoAuthorization(
  chain: TypedDataChain,
  o: { authorized: Address; isAuthorized?: boolean; authorizer?: Address; nonce?: bigint },
) {
  return {
    signer: o.authorizer ?? OWNER,
    typedData: {
      domain: { chainId: 8453, verifyingContract: MORPHO_BLUE },
      types: { Authorization: MORPHO_AUTHORIZATION_TYPE },
      primaryType: 'Authorization',
      message: {
        authorizer: o.authorizer ?? OWNER,
        authorized: o.authorized,
        isAuthorized: o.isAuthorized ?? true,
        nonce: (o.nonce ?? 0n).toString(),
        deadline: (chain.now + 1800n).toString(),
      },
    },
  }
}

/** Compound III `allowBySig` `Authorization` on cUSDCv3. */
export function cometAuthorization(
  chain: TypedDataChain,
  o: { manager: Address; isAllowed?: boolean },
) {
  return {
    signer: OWNER,
    typedData: {
      domain: {
        name: 'Compound USDC',
        version: '0',
        chainId: 8453,
        verifyingContract: COMET_USDC,
      },
      types: { Authorization: COMET_AUTHORIZATION_TYPE },
      primaryType: 'Authorization',
      message: {
        owner: OWNER,
        manager: o.manager,
        isAllowed: o.isAllowed ?? true,
        nonce: '0',
        expiry: (chain.now + 1800n).toString(),
      },
    },
  }
}

/** Aave v3 `DelegationWithSig` on the devnet's debt-token stand-in: 500 of its units. */
export function aaveDelegation(chain: TypedDataChain, o: { delegatee: Address; value?: bigint }) {
  return {
    signer: OWNER,
    typedData: {
      domain: {
        name: 'Aave Base Variable Debt USDC',
        version: '1',
        chainId: 8453,
        verifyingContract: chain.protocols.aaveDebtToken,
      },
      types: { DelegationWithSig: DELEGATION_WITH_SIG_TYPE },
      primaryType: 'DelegationWithSig',
      message: {
        delegatee: o.delegatee,
        value: (o.value ?? parseEther('500')).toString(),
        nonce: '0',
        deadline: (chain.now + 1800n).toString(),
      },
    },
  }
}

/** A message of no known kind for the Seaport-domain contract: a withdrawal of 5 TST to `to`. */
export function unknownWithdrawal(chain: TypedDataChain, o: { to: Address }) {
  return {
    signer: OWNER,
    typedData: {
      domain: { name: 'Seaport', version: '1.6', chainId: 8453, verifyingContract: chain.seaport },
      types: { Withdrawal: typeOf('address token,uint256 amount,address to,uint256 nonce') },
      primaryType: 'Withdrawal',
      message: { token: chain.token, amount: parseEther('5').toString(), to: o.to, nonce: '1' },
    },
  }
}
