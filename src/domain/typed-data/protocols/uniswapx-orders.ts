import type { Address } from 'viem'
import { fields, type ProtocolKind, type ProtocolReading } from '../kind-definition.js'
import { PERMIT2_ADDRESS } from '../read-typed-data-facts.js'
import type { TypedTypes } from '../typed-data.js'
import type { OrderPayout } from '../typed-data-reading.js'
import { addr, int, list, type Struct, struct } from '../typed-message.js'

/**
 * UniswapX reactors on Base by order type (`@uniswap/uniswapx-sdk` 3.1.0
 * `REACTOR_ADDRESS_MAPPING[8453]`, and the deployment table of Uniswap/UniswapX's README): the
 * PriorityOrderReactor; no ExclusiveDutchOrder or V2DutchOrder reactor is deployed on Base.
 */
export const UNISWAPX_BASE_REACTORS = {
  exclusive: [] as readonly Address[],
  v2: [] as readonly Address[],
  priority: ['0x000000001Ec5656dcdB24D90DFa42742738De729'] as readonly Address[],
}

const ORDER_INFO = fields(
  'address reactor,address swapper,uint256 nonce,uint256 deadline,address additionalValidationContract,bytes additionalValidationData',
)
const DUTCH_OUTPUT = fields('address token,uint256 startAmount,uint256 endAmount,address recipient')
const TOKEN_PERMISSIONS = fields('address token,uint256 amount')

/** Permit2's `PermitWitnessTransferFrom` with a UniswapX order of `type` as its witness. */
function permitWitness(witnessType: string, witness: TypedTypes): TypedTypes {
  return {
    PermitWitnessTransferFrom: fields(
      `TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,${witnessType} witness`,
    ),
    TokenPermissions: TOKEN_PERMISSIONS,
    OrderInfo: ORDER_INFO,
    ...witness,
  }
}

/** The Permit2 domain: UniswapX orders are Permit2 witness transfers. */
const PERMIT2_DOMAIN = {
  fields: ['name', 'chainId', 'verifyingContract'],
  name: 'Permit2',
  verifyingContract: PERMIT2_ADDRESS,
} as const

/**
 * What every UniswapX order shares: Permit2 lets the spender (the reactor) pull at most
 * `permitted.amount` of `permitted.token` once, before `deadline`, with an unordered nonce; the
 * reactor pays the outputs.
 */
function readOrder(
  m: Struct,
  signer: Address,
  label: string,
  expected: readonly Address[],
  gets: OrderPayout[],
): ProtocolReading {
  const permitted = struct(m.permitted)
  const token = addr(permitted.token)
  const spender = addr(m.spender)
  const info = struct(struct(m.witness).info)
  return {
    order: {
      protocol: 'UniswapX',
      terms: label,
      gives: [{ path: 'permitted.amount', token, amount: int(permitted.amount) }],
      gets,
      settlement: { spender, reactor: addr(info.reactor), expected, label },
    },
    grants: [
      {
        at: 'permitted',
        owner: signer,
        token,
        spender,
        amount: int(permitted.amount),
        unlimited: false,
        revoke: false,
        use: 'transfer',
      },
    ],
    deadlines: [{ field: 'deadline', value: int(m.deadline), never: false }],
    nonces: [{ kind: 'permit2-bitmap', owner: signer, nonce: int(m.nonce) }],
    tokens: [token, ...gets.map((g) => g.token)],
  }
}

/** Dutch outputs decay from `startAmount` to `endAmount`: the swapper is sure of the smaller. */
function dutchOutputs(outputs: Struct[], at: string): OrderPayout[] {
  return outputs.map((o, i) => {
    const start = int(o.startAmount)
    const end = int(o.endAmount)
    return {
      path: `${at}[${i}].${end < start ? 'endAmount' : 'startAmount'}`,
      token: addr(o.token),
      amount: end < start ? end : start,
      recipientPath: `${at}[${i}].recipient`,
      recipient: addr(o.recipient),
    }
  })
}

/** UniswapX `ExclusiveDutchOrder` (ExclusiveDutchOrderLib.PERMIT2_ORDER_TYPE). */
export const uniswapxExclusiveDutchOrder: ProtocolKind = {
  kind: 'uniswapx-exclusive-dutch-order',
  standardName: 'PermitWitnessTransferFrom',
  primaryType: 'PermitWitnessTransferFrom',
  witnessField: 'witness',
  types: permitWitness('ExclusiveDutchOrder', {
    ExclusiveDutchOrder: fields(
      'OrderInfo info,uint256 decayStartTime,uint256 decayEndTime,address exclusiveFiller,uint256 exclusivityOverrideBps,address inputToken,uint256 inputStartAmount,uint256 inputEndAmount,DutchOutput[] outputs',
    ),
    DutchOutput: DUTCH_OUTPUT,
  }),
  domain: PERMIT2_DOMAIN,
  read(m, { signer }) {
    const outputs = list(struct(m.witness).outputs).map(struct)
    return readOrder(
      m,
      signer,
      'ExclusiveDutchOrder',
      UNISWAPX_BASE_REACTORS.exclusive,
      dutchOutputs(outputs, 'witness.outputs'),
    )
  },
}

/** UniswapX `V2DutchOrder` (V2DutchOrderLib.PERMIT2_ORDER_TYPE); its cosigner may only improve the amounts. */
export const uniswapxV2DutchOrder: ProtocolKind = {
  kind: 'uniswapx-v2-dutch-order',
  standardName: 'PermitWitnessTransferFrom',
  primaryType: 'PermitWitnessTransferFrom',
  witnessField: 'witness',
  types: permitWitness('V2DutchOrder', {
    V2DutchOrder: fields(
      'OrderInfo info,address cosigner,address baseInputToken,uint256 baseInputStartAmount,uint256 baseInputEndAmount,DutchOutput[] baseOutputs',
    ),
    DutchOutput: DUTCH_OUTPUT,
  }),
  domain: PERMIT2_DOMAIN,
  read(m, { signer }) {
    const outputs = list(struct(m.witness).baseOutputs).map(struct)
    return readOrder(
      m,
      signer,
      'V2DutchOrder',
      UNISWAPX_BASE_REACTORS.v2,
      dutchOutputs(outputs, 'witness.baseOutputs'),
    )
  },
}

/** UniswapX `PriorityOrder` (PriorityOrderLib.PERMIT2_ORDER_TYPE): outputs grow with the priority fee. */
export const uniswapxPriorityOrder: ProtocolKind = {
  kind: 'uniswapx-priority-order',
  standardName: 'PermitWitnessTransferFrom',
  primaryType: 'PermitWitnessTransferFrom',
  witnessField: 'witness',
  types: permitWitness('PriorityOrder', {
    PriorityOrder: fields(
      'OrderInfo info,address cosigner,uint256 auctionStartBlock,uint256 baselinePriorityFeeWei,PriorityInput input,PriorityOutput[] outputs',
    ),
    PriorityInput: fields('address token,uint256 amount,uint256 mpsPerPriorityFeeWei'),
    PriorityOutput: fields(
      'address token,uint256 amount,uint256 mpsPerPriorityFeeWei,address recipient',
    ),
  }),
  domain: PERMIT2_DOMAIN,
  read(m, { signer }) {
    const outputs = list(struct(m.witness).outputs).map(struct)
    return readOrder(
      m,
      signer,
      'PriorityOrder',
      UNISWAPX_BASE_REACTORS.priority,
      outputs.map((o, i) => ({
        path: `witness.outputs[${i}].amount`,
        token: addr(o.token),
        amount: int(o.amount),
        recipientPath: `witness.outputs[${i}].recipient`,
        recipient: addr(o.recipient),
      })),
    )
  },
}
