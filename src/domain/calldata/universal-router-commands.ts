import { type AbiParameter, parseAbiParameters } from 'viem'

/** One Universal Router command: its name and the ABI layout of its `inputs[i]`. */
export interface UniversalRouterCommand {
  name: string
  params: readonly AbiParameter[]
}

const PERMIT_DETAILS = '(address token, uint160 amount, uint48 expiration, uint48 nonce)'

/** Name of the Universal Router command that runs a nested plan of commands. */
export const UR_EXECUTE_SUB_PLAN = 'EXECUTE_SUB_PLAN'

const SUB_PLAN: UniversalRouterCommand = {
  name: UR_EXECUTE_SUB_PLAN,
  params: parseAbiParameters('bytes commands, bytes[] inputs'),
}

/**
 * Universal Router commands 0x00-0x0e, whose meaning and input layout are the same in v1.x and v2
 * (Uniswap/universal-router `Commands.sol` and `Dispatcher.sol`), and the sub-plan.
 *
 * `EXECUTE_SUB_PLAN` (input `abi.encode(bytes commands, bytes[] inputs)`, run by the router's own
 * `execute` for the same caller) is 0x20 in routers v1.0/v1.1 and 0x21 in v1.2 and v2. The other
 * code is v1.x's `SEAPORT_V1_4` (input `uint256 value, bytes data`) or, in v2, invalid (the router
 * reverts). Both codes are decoded as sub-plans when their input has that shape with one input
 * per command: a sub-plan hiding an approval or transfer must not pass unseen, and a Seaport input
 * does not decode that way. Other commands from 0x10 up differ between router versions (NFT
 * markets in v1.x, v4 swaps and positions in v2), so the decoder reports them as unknown rather
 * than guess the version, except 0x10 when its input is a v2 `V4_SWAP` plan (see
 * {@link V4_ACTIONS}). `SWEEP`'s `amountMin` is uint160 in v2 and uint256 in v1.2: both decode
 * as uint256.
 */
export const UNIVERSAL_ROUTER_COMMANDS: ReadonlyMap<number, UniversalRouterCommand> = new Map<
  number,
  UniversalRouterCommand
>([
  [
    0x00,
    {
      name: 'V3_SWAP_EXACT_IN',
      params: parseAbiParameters(
        'address recipient, uint256 amountIn, uint256 amountOutMin, bytes path, bool payerIsUser',
      ),
    },
  ],
  [
    0x01,
    {
      name: 'V3_SWAP_EXACT_OUT',
      params: parseAbiParameters(
        'address recipient, uint256 amountOut, uint256 amountInMax, bytes path, bool payerIsUser',
      ),
    },
  ],
  [
    0x02,
    {
      name: 'PERMIT2_TRANSFER_FROM',
      params: parseAbiParameters('address token, address recipient, uint160 amount'),
    },
  ],
  [
    0x03,
    {
      name: 'PERMIT2_PERMIT_BATCH',
      params: parseAbiParameters(
        `(${PERMIT_DETAILS}[] details, address spender, uint256 sigDeadline) permitBatch, bytes signature`,
      ),
    },
  ],
  [
    0x04,
    {
      name: 'SWEEP',
      params: parseAbiParameters('address token, address recipient, uint256 amountMin'),
    },
  ],
  [
    0x05,
    {
      name: 'TRANSFER',
      params: parseAbiParameters('address token, address recipient, uint256 value'),
    },
  ],
  [
    0x06,
    {
      name: 'PAY_PORTION',
      params: parseAbiParameters('address token, address recipient, uint256 bips'),
    },
  ],
  [
    0x08,
    {
      name: 'V2_SWAP_EXACT_IN',
      params: parseAbiParameters(
        'address recipient, uint256 amountIn, uint256 amountOutMin, address[] path, bool payerIsUser',
      ),
    },
  ],
  [
    0x09,
    {
      name: 'V2_SWAP_EXACT_OUT',
      params: parseAbiParameters(
        'address recipient, uint256 amountOut, uint256 amountInMax, address[] path, bool payerIsUser',
      ),
    },
  ],
  [
    0x0a,
    {
      name: 'PERMIT2_PERMIT',
      params: parseAbiParameters(
        `(${PERMIT_DETAILS} details, address spender, uint256 sigDeadline) permitSingle, bytes signature`,
      ),
    },
  ],
  [0x0b, { name: 'WRAP_ETH', params: parseAbiParameters('address recipient, uint256 amountMin') }],
  [
    0x0c,
    { name: 'UNWRAP_WETH', params: parseAbiParameters('address recipient, uint256 amountMin') },
  ],
  [
    0x0d,
    {
      name: 'PERMIT2_TRANSFER_FROM_BATCH',
      params: parseAbiParameters(
        '(address from, address to, uint160 amount, address token)[] batchDetails',
      ),
    },
  ],
  [
    0x0e,
    {
      name: 'BALANCE_CHECK_ERC20',
      params: parseAbiParameters('address owner, address token, uint256 minBalance'),
    },
  ],
  [0x20, SUB_PLAN],
  [0x21, SUB_PLAN],
])

/** Universal Router recipient placeholder resolved to the router's caller (`Constants.MSG_SENDER`). */
export const UR_MSG_SENDER = '0x0000000000000000000000000000000000000001'
/** Universal Router recipient placeholder resolved to the router itself (`Constants.ADDRESS_THIS`). */
export const UR_ADDRESS_THIS = '0x0000000000000000000000000000000000000002'

/** Universal Router v2's command running a Uniswap v4 plan: `abi.encode(bytes actions, bytes[] params)`. */
export const UR_V4_SWAP = 'V4_SWAP'
/** Its command code in router v2 (in v1.x 0x10 is `SEAPORT_V1_5`, whose input does not decode as a plan). */
export const UR_V4_SWAP_CODE = 0x10

/** The V4_SWAP input layout. */
export const V4_SWAP_PARAMS: readonly AbiParameter[] = parseAbiParameters(
  'bytes actions, bytes[] params',
)

/**
 * Uniswap v4-periphery `Actions.sol` codes the router's V4 plans use. Swaps and settlements move
 * nothing to a named account (their params stay raw bytes); `TAKE`, `TAKE_PORTION`, `TAKE_PAIR`
 * and `SWEEP` pay a `recipient`, which the screen judges like the router's own outputs
 * (`ActionConstants.MSG_SENDER` = address(1) and `ADDRESS_THIS` = address(2) as placeholders).
 * Any other action is unknown, so a plan using one stays `screen-incomplete`.
 */
export const V4_ACTIONS: ReadonlyMap<number, UniversalRouterCommand> = new Map<
  number,
  UniversalRouterCommand
>([
  [0x06, { name: 'SWAP_EXACT_IN_SINGLE', params: parseAbiParameters('bytes params') }],
  [0x07, { name: 'SWAP_EXACT_IN', params: parseAbiParameters('bytes params') }],
  [0x08, { name: 'SWAP_EXACT_OUT_SINGLE', params: parseAbiParameters('bytes params') }],
  [0x09, { name: 'SWAP_EXACT_OUT', params: parseAbiParameters('bytes params') }],
  [
    0x0b,
    {
      name: 'SETTLE',
      params: parseAbiParameters('address currency, uint256 amount, bool payerIsUser'),
    },
  ],
  [0x0c, { name: 'SETTLE_ALL', params: parseAbiParameters('address currency, uint256 maxAmount') }],
  [
    0x0d,
    { name: 'SETTLE_PAIR', params: parseAbiParameters('address currency0, address currency1') },
  ],
  [
    0x0e,
    {
      name: 'TAKE',
      params: parseAbiParameters('address currency, address recipient, uint256 amount'),
    },
  ],
  [0x0f, { name: 'TAKE_ALL', params: parseAbiParameters('address currency, uint256 minAmount') }],
  [
    0x10,
    {
      name: 'TAKE_PORTION',
      params: parseAbiParameters('address currency, address recipient, uint256 bips'),
    },
  ],
  [
    0x11,
    {
      name: 'TAKE_PAIR',
      params: parseAbiParameters('address currency0, address currency1, address recipient'),
    },
  ],
  [0x14, { name: 'SWEEP', params: parseAbiParameters('address currency, address recipient') }],
])
