import { type AbiFunction, parseAbi } from 'viem'
import { formatAbiItem } from 'viem/utils'

/**
 * The protocol catalogue: everyday protocol functions an agent calls, and which of their
 * arguments name **whose** the money becomes (the account credited with a position, paid an
 * output, or receiving an L2 -> L1 withdrawal). Data, not code: a new protocol is new rows.
 *
 * Each function's signature joins the calldata decoder (`known-functions-abi.ts`), so its
 * arguments are decoded by name; `beneficiaries` are dot paths into those arguments (`params.
 * recipient` reads a tuple's field). A beneficiary that is neither the sender nor the account
 * making the call is judged by `beneficiary-not-sender`; one that is the sender or the caller
 * makes the call a credited protocol action, whose value flows are the protocol's accounting,
 * not a loss (`drain-shape` stays silent for it when the protocol's code is recognised).
 */

/** Why an argument names an account: what it is credited with. */
export type BeneficiaryRole =
  /** A position (supply, collateral, a repaid debt) is credited to it. */
  | 'position'
  /** Assets or an output are paid to it on this chain. */
  | 'receiver'
  /** An L2 -> L1 withdrawal pays it on Ethereum. */
  | 'l1-recipient'
  /** It becomes the owner of a position NFT or a name. */
  | 'owner'
  /** It may act for the caller (an authorization). */
  | 'operator'

/** One argument that names a beneficiary. */
export interface BeneficiaryArg {
  /** Dot path into the decoded arguments (`onBehalfOf`, `params.recipient`). */
  path: string
  role: BeneficiaryRole
  /** What the zero address means here: the caller, or the called contract itself. */
  zero?: 'caller' | 'target'
  /** Dot path of a bool or an amount that grants when true or non-zero (`false`/0 revokes). */
  grantedBy?: string
}

/** A catalogued function of a protocol. */
export interface ProtocolFunction {
  /** Human-readable protocol name for details (`Aave v3 Pool`). */
  protocol: string
  /** viem human-readable signature, decoded by the calldata decoder. */
  signature: string
  /** The arguments naming who is credited; empty when the caller always is. */
  beneficiaries: readonly BeneficiaryArg[]
  /** Dot paths of the token and amount, for details in token units. */
  token?: string
  amount?: string
  /**
   * Dot paths of the trade's counterparties (Seaport: the offerer and every consideration
   * recipient): accounts the sender pays for what it receives, not third parties.
   */
  counterparties?: readonly string[]
  /**
   * A Seaport basic order (`BasicOrderParameters` at `parameters`): only the first
   * `totalOriginalAdditionalRecipients` additional recipients were signed by the offerer; the
   * rest are tips the fulfiller adds, sized against the price like fees.
   */
  basicOrder?: true
}

/** Structs the catalogue's signatures use (parsed together with them). */
export const CATALOGUE_STRUCTS: readonly string[] = [
  'struct MarketParams { address loanToken; address collateralToken; address oracle; address irm; uint256 lltv; }',
  'struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }',
  'struct IncreaseLiquidityParams { uint256 tokenId; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }',
  'struct DecreaseLiquidityParams { uint256 tokenId; uint128 liquidity; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }',
  'struct CollectParams { uint256 tokenId; address recipient; uint128 amount0Max; uint128 amount1Max; }',
  'struct AdditionalRecipient { uint256 amount; address recipient; }',
  'struct BasicOrderParameters { address considerationToken; uint256 considerationIdentifier; uint256 considerationAmount; address offerer; address zone; address offerToken; uint256 offerIdentifier; uint256 offerAmount; uint8 basicOrderType; uint256 startTime; uint256 endTime; bytes32 zoneHash; uint256 salt; bytes32 offererConduitKey; bytes32 fulfillerConduitKey; uint256 totalOriginalAdditionalRecipients; AdditionalRecipient[] additionalRecipients; bytes signature; }',
  'struct OfferItem { uint8 itemType; address token; uint256 identifierOrCriteria; uint256 startAmount; uint256 endAmount; }',
  'struct ConsiderationItem { uint8 itemType; address token; uint256 identifierOrCriteria; uint256 startAmount; uint256 endAmount; address recipient; }',
  'struct OrderParameters { address offerer; address zone; OfferItem[] offer; ConsiderationItem[] consideration; uint8 orderType; uint256 startTime; uint256 endTime; bytes32 zoneHash; uint256 salt; bytes32 conduitKey; uint256 totalOriginalConsiderationItems; }',
  'struct Order { OrderParameters parameters; bytes signature; }',
  'struct AdvancedOrder { OrderParameters parameters; uint120 numerator; uint120 denominator; bytes signature; bytes extraData; }',
  'struct RegisterRequest { string name; address owner; uint256 duration; address resolver; bytes[] data; bool reverseRecord; }',
  'struct CriteriaResolver { uint256 orderIndex; uint8 side; uint256 index; uint256 identifier; bytes32[] criteriaProof; }',
]

const AAVE = 'Aave v3 Pool'
const AAVE_GATEWAY = 'Aave v3 WrappedTokenGatewayV3'
const MORPHO = 'Morpho Blue'
const BRIDGE = 'OP-stack L2StandardBridge'
const PASSER = 'OP-stack L2ToL1MessagePasser'
const MESSENGER = 'OP-stack L2CrossDomainMessenger'
const NPM = 'Uniswap v3 NonfungiblePositionManager'
const V2 = 'Uniswap v2 Router02'
const PERIPHERY = 'Uniswap periphery'
const SEAPORT = 'Seaport'
const COMET = 'Compound III Comet'

const position = (path: string): BeneficiaryArg => ({ path, role: 'position' })
const receiver = (path: string, zero?: 'caller' | 'target'): BeneficiaryArg =>
  zero ? { path, role: 'receiver', zero } : { path, role: 'receiver' }
const l1 = (path: string): BeneficiaryArg => ({ path, role: 'l1-recipient' })

/** Every catalogued function. Signatures are unique by selector across the decoder. */
export const PROTOCOL_FUNCTIONS: readonly ProtocolFunction[] = [
  // Aave v3 Pool (and L2Pool's compact `bytes32` forms, which always act for the caller)
  {
    protocol: AAVE,
    signature:
      'function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)',
    beneficiaries: [position('onBehalfOf')],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: AAVE,
    signature:
      'function deposit(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)',
    beneficiaries: [position('onBehalfOf')],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: AAVE,
    signature:
      'function supplyWithPermit(address asset, uint256 amount, address onBehalfOf, uint16 referralCode, uint256 deadline, uint8 permitV, bytes32 permitR, bytes32 permitS)',
    beneficiaries: [position('onBehalfOf')],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: AAVE,
    signature: 'function withdraw(address asset, uint256 amount, address to)',
    beneficiaries: [receiver('to')],
    token: 'asset',
    amount: 'amount',
  },
  {
    // The borrowed tokens go to the caller; `onBehalfOf` carries the debt (credit delegation).
    protocol: AAVE,
    signature:
      'function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)',
    beneficiaries: [],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: AAVE,
    signature:
      'function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf)',
    beneficiaries: [position('onBehalfOf')],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: AAVE,
    signature:
      'function repayWithPermit(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf, uint256 deadline, uint8 permitV, bytes32 permitR, bytes32 permitS)',
    beneficiaries: [position('onBehalfOf')],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: AAVE,
    signature: 'function repayWithATokens(address asset, uint256 amount, uint256 interestRateMode)',
    beneficiaries: [],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: AAVE,
    signature: 'function setUserUseReserveAsCollateral(address asset, bool useAsCollateral)',
    beneficiaries: [],
  },
  {
    // A debt token's credit delegation: the delegatee may borrow against the caller's collateral.
    protocol: 'Aave v3 debt token',
    signature: 'function approveDelegation(address delegatee, uint256 amount)',
    beneficiaries: [{ path: 'delegatee', role: 'operator', grantedBy: 'amount' }],
  },
  // Aave's WrappedTokenGatewayV3 (ETH in and out of the Pool; its first argument is ignored)
  {
    protocol: AAVE_GATEWAY,
    signature: 'function depositETH(address pool, address onBehalfOf, uint16 referralCode)',
    beneficiaries: [position('onBehalfOf')],
  },
  {
    protocol: AAVE_GATEWAY,
    signature: 'function withdrawETH(address pool, uint256 amount, address to)',
    beneficiaries: [receiver('to')],
    amount: 'amount',
  },
  {
    protocol: AAVE_GATEWAY,
    signature:
      'function repayETH(address pool, uint256 amount, uint256 rateMode, address onBehalfOf)',
    beneficiaries: [position('onBehalfOf')],
    amount: 'amount',
  },
  {
    protocol: AAVE_GATEWAY,
    signature:
      'function borrowETH(address pool, uint256 amount, uint256 interestRateMode, uint16 referralCode)',
    beneficiaries: [],
    amount: 'amount',
  },
  { protocol: AAVE, signature: 'function supply(bytes32 args)', beneficiaries: [] },
  { protocol: AAVE, signature: 'function withdraw(bytes32 args)', beneficiaries: [] },
  { protocol: AAVE, signature: 'function borrow(bytes32 args)', beneficiaries: [] },
  { protocol: AAVE, signature: 'function repay(bytes32 args)', beneficiaries: [] },
  { protocol: AAVE, signature: 'function repayWithATokens(bytes32 args)', beneficiaries: [] },
  {
    protocol: AAVE,
    signature: 'function setUserUseReserveAsCollateral(bytes32 args)',
    beneficiaries: [],
  },
  // Morpho Blue: `onBehalf` is whose position changes, `receiver` who is paid
  {
    protocol: MORPHO,
    signature:
      'function supply(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, bytes data)',
    beneficiaries: [position('onBehalf')],
    token: 'marketParams.loanToken',
    amount: 'assets',
  },
  {
    protocol: MORPHO,
    signature:
      'function supplyCollateral(MarketParams marketParams, uint256 assets, address onBehalf, bytes data)',
    beneficiaries: [position('onBehalf')],
    token: 'marketParams.collateralToken',
    amount: 'assets',
  },
  {
    protocol: MORPHO,
    signature:
      'function repay(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, bytes data)',
    beneficiaries: [position('onBehalf')],
    token: 'marketParams.loanToken',
    amount: 'assets',
  },
  {
    protocol: MORPHO,
    signature:
      'function withdraw(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, address receiver)',
    beneficiaries: [receiver('receiver')],
    token: 'marketParams.loanToken',
    amount: 'assets',
  },
  {
    protocol: MORPHO,
    signature:
      'function borrow(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, address receiver)',
    beneficiaries: [receiver('receiver')],
    token: 'marketParams.loanToken',
    amount: 'assets',
  },
  {
    protocol: MORPHO,
    signature:
      'function withdrawCollateral(MarketParams marketParams, uint256 assets, address onBehalf, address receiver)',
    beneficiaries: [receiver('receiver')],
    token: 'marketParams.collateralToken',
    amount: 'assets',
  },
  {
    protocol: MORPHO,
    signature: 'function setAuthorization(address authorized, bool newIsAuthorized)',
    beneficiaries: [{ path: 'authorized', role: 'operator', grantedBy: 'newIsAuthorized' }],
  },
  // Compound III (Comet): `*To` names the recipient, `*From` moves another account's balance
  {
    protocol: COMET,
    signature: 'function supplyTo(address dst, address asset, uint256 amount)',
    beneficiaries: [position('dst')],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: COMET,
    signature: 'function withdrawTo(address to, address asset, uint256 amount)',
    beneficiaries: [receiver('to')],
    token: 'asset',
    amount: 'amount',
  },
  {
    protocol: COMET,
    signature: 'function supply(address asset, uint256 amount)',
    beneficiaries: [],
    token: 'asset',
    amount: 'amount',
  },
  // OP-stack predeploys: an L2 -> L1 withdrawal gives nothing back on L2; who gets it on L1 is
  // an argument (or the caller)
  {
    protocol: BRIDGE,
    signature:
      'function withdraw(address _l2Token, uint256 _amount, uint32 _minGasLimit, bytes _extraData)',
    beneficiaries: [],
    token: '_l2Token',
    amount: '_amount',
  },
  {
    protocol: BRIDGE,
    signature:
      'function withdrawTo(address _l2Token, address _to, uint256 _amount, uint32 _minGasLimit, bytes _extraData)',
    beneficiaries: [l1('_to')],
    token: '_l2Token',
    amount: '_amount',
  },
  {
    protocol: BRIDGE,
    signature: 'function bridgeETH(uint32 _minGasLimit, bytes _extraData)',
    beneficiaries: [],
  },
  {
    protocol: BRIDGE,
    signature: 'function bridgeETHTo(address _to, uint32 _minGasLimit, bytes _extraData)',
    beneficiaries: [l1('_to')],
  },
  {
    protocol: BRIDGE,
    signature:
      'function bridgeERC20(address _localToken, address _remoteToken, uint256 _amount, uint32 _minGasLimit, bytes _extraData)',
    beneficiaries: [],
    token: '_localToken',
    amount: '_amount',
  },
  {
    protocol: BRIDGE,
    signature:
      'function bridgeERC20To(address _localToken, address _remoteToken, address _to, uint256 _amount, uint32 _minGasLimit, bytes _extraData)',
    beneficiaries: [l1('_to')],
    token: '_localToken',
    amount: '_amount',
  },
  {
    protocol: PASSER,
    signature: 'function initiateWithdrawal(address _target, uint256 _gasLimit, bytes _data)',
    beneficiaries: [l1('_target')],
  },
  {
    protocol: MESSENGER,
    signature: 'function sendMessage(address _target, bytes _message, uint32 _minGasLimit)',
    beneficiaries: [l1('_target')],
  },
  // Uniswap v3 positions: the NFT's owner, and who collects (0 = the manager keeps the tokens
  // for a following `unwrapWETH9`/`sweepToken` in the same multicall)
  {
    protocol: NPM,
    signature: 'function mint(MintParams params)',
    beneficiaries: [{ path: 'params.recipient', role: 'owner' }],
  },
  {
    protocol: NPM,
    signature: 'function increaseLiquidity(IncreaseLiquidityParams params)',
    beneficiaries: [],
  },
  {
    protocol: NPM,
    signature: 'function decreaseLiquidity(DecreaseLiquidityParams params)',
    beneficiaries: [],
  },
  {
    // ERC-20 Burnable's `burn(uint256 amount)` shares the selector: `value` names either.
    protocol: NPM,
    signature: 'function burn(uint256 value)',
    beneficiaries: [],
  },
  {
    protocol: NPM,
    signature: 'function collect(CollectParams params)',
    beneficiaries: [receiver('params.recipient', 'target')],
  },
  {
    protocol: PERIPHERY,
    signature: 'function unwrapWETH9(uint256 amountMinimum, address recipient)',
    beneficiaries: [receiver('recipient')],
  },
  {
    protocol: PERIPHERY,
    signature: 'function sweepToken(address token, uint256 amountMinimum, address recipient)',
    beneficiaries: [receiver('recipient')],
    token: 'token',
  },
  { protocol: PERIPHERY, signature: 'function refundETH()', beneficiaries: [] },
  // Uniswap v2 Router02: liquidity to `to` (LP tokens, or the withdrawn assets)
  {
    protocol: V2,
    signature:
      'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function removeLiquidity(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function removeLiquidityETH(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function swapETHForExactTokens(uint256 amountOut, address[] path, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function swapTokensForExactETH(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  {
    protocol: V2,
    signature:
      'function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline)',
    beneficiaries: [receiver('to')],
  },
  // Seaport 1.5/1.6: the offer goes to the caller (or `recipient`); the consideration pays the
  // offerer and the recipients the offerer signed for (fees, royalties): the trade's counterparties
  {
    protocol: SEAPORT,
    signature: 'function fulfillBasicOrder(BasicOrderParameters parameters)',
    beneficiaries: [],
    counterparties: ['parameters.offerer'],
    basicOrder: true,
  },
  {
    protocol: SEAPORT,
    signature: 'function fulfillBasicOrder_efficient_6GL6yc(BasicOrderParameters parameters)',
    beneficiaries: [],
    counterparties: ['parameters.offerer'],
    basicOrder: true,
  },
  {
    protocol: SEAPORT,
    signature: 'function fulfillOrder(Order order, bytes32 fulfillerConduitKey)',
    beneficiaries: [],
    counterparties: ['order.parameters.offerer', 'order.parameters.consideration.*.recipient'],
  },
  {
    protocol: SEAPORT,
    signature:
      'function fulfillAdvancedOrder(AdvancedOrder advancedOrder, CriteriaResolver[] criteriaResolvers, bytes32 fulfillerConduitKey, address recipient)',
    beneficiaries: [receiver('recipient', 'caller')],
    counterparties: [
      'advancedOrder.parameters.offerer',
      'advancedOrder.parameters.consideration.*.recipient',
    ],
  },
  // Name registrars (ENS, Basenames): the name is registered to `owner`, paid by the caller
  {
    protocol: 'ENS ETHRegistrarController',
    signature:
      'function register(string name, address owner, uint256 duration, bytes32 secret, address resolver, bytes[] data, bool reverseRecord, uint16 ownerControlledFuses)',
    beneficiaries: [{ path: 'owner', role: 'owner' }],
  },
  {
    protocol: 'Basenames RegistrarController',
    signature: 'function register(RegisterRequest request)',
    beneficiaries: [{ path: 'request.owner', role: 'owner' }],
  },
]

/** The catalogued function with this canonical signature (`name(types)`), if any. */
export function protocolFunction(signature: string): ProtocolFunction | undefined {
  return BY_SIGNATURE.get(signature)
}

const BY_SIGNATURE: ReadonlyMap<string, ProtocolFunction> = new Map(
  PROTOCOL_FUNCTIONS.map((f) => {
    const item = (
      parseAbi([...CATALOGUE_STRUCTS, f.signature] as string[]) as readonly { type: string }[]
    ).find((x) => x.type === 'function')
    if (!item) throw new Error(`not a function: ${f.signature}`)
    return [formatAbiItem(item as AbiFunction), f] as const
  }),
)

/** The catalogue's structs and function signatures, for the calldata decoder. */
export const CATALOGUE_ABI: readonly string[] = [
  ...CATALOGUE_STRUCTS,
  ...PROTOCOL_FUNCTIONS.map((f) => f.signature),
]
