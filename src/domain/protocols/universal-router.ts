import { type AbiParameter, parseAbi, parseAbiParameters } from 'viem'
import type { TransferEffect } from './declared-effects.js'
import { big, str } from './decoded-args.js'
import { onBase } from './network.js'
import { batchTransfers, permitBatch, permitSingle } from './permit2.js'
import type { CallReader, FunctionKey, ProtocolModule, SwapReading } from './protocol-module.js'
import { transfer } from './transfer-builders.js'
import { isRouterPlaceholder, pathTokens, v2OutputHop, v3OutputHop } from './uniswap.js'

/**
 * Uniswap's Universal Router: `execute(commands, inputs[, deadline])`, whose commands (and the
 * v4 actions of its `V4_SWAP` plans) the decoder opens as calls of their own, keyed `ur:NAME`:
 * their codes and input layouts are the tables below (the decoder's lookups by code are built
 * from them, `calldata/universal-router-commands.ts`).
 */
const ABI = parseAbi([
  'function execute(bytes commands, bytes[] inputs, uint256 deadline)',
  'function execute(bytes commands, bytes[] inputs)',
])

/** One Universal Router command: its name and the ABI layout of its `inputs[i]`. */
export interface UniversalRouterCommand {
  name: string
  params: readonly AbiParameter[]
}

const PERMIT_DETAILS = '(address token, uint160 amount, uint48 expiration, uint48 nonce)'

/** Name of the Universal Router command that runs a nested plan of commands. */
export const UR_EXECUTE_SUB_PLAN = 'EXECUTE_SUB_PLAN'

const SUB_PLAN = {
  name: UR_EXECUTE_SUB_PLAN,
  params: parseAbiParameters('bytes commands, bytes[] inputs'),
} as const satisfies UniversalRouterCommand

/** A command table's rows: code, then the command (its name kept as a literal type). */
type CommandRows = readonly (readonly [number, UniversalRouterCommand])[]

/**
 * The Universal Router's commands by code: 0x00-0x0e, whose meaning and input layout are the
 * same in v1.x and v2 (Uniswap/universal-router `Commands.sol` and `Dispatcher.sol`), and the
 * sub-plan.
 *
 * `EXECUTE_SUB_PLAN` (input `abi.encode(bytes commands, bytes[] inputs)`, run by the router's own
 * `execute` for the same caller) is 0x20 in routers v1.0/v1.1 and 0x21 in v1.2 and v2. The other
 * code is v1.x's `SEAPORT_V1_4` (input `uint256 value, bytes data`) or, in v2, invalid (the router
 * reverts). Both codes are decoded as sub-plans when their input has that shape with one input
 * per command: a sub-plan hiding an approval or transfer must not pass unseen, and a Seaport input
 * does not decode that way. Other commands from 0x10 up differ between router versions (NFT
 * markets in v1.x, v4 swaps and positions in v2), so the decoder reports them as unknown rather
 * than guess the version, except 0x10 when its input is a v2 `V4_SWAP` plan (see
 * {@link V4_ACTION_ROWS}). `SWEEP`'s `amountMin` is uint160 in v2 and uint256 in v1.2: both decode
 * as uint256.
 */
export const UNIVERSAL_ROUTER_COMMAND_ROWS = [
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
] as const satisfies CommandRows

/** The name of a Universal Router command the decoder knows. */
export type UniversalRouterCommandName = (typeof UNIVERSAL_ROUTER_COMMAND_ROWS)[number][1]['name']

/** Universal Router v2's command running a Uniswap v4 plan: `abi.encode(bytes actions, bytes[] params)`. */
export const UR_V4_SWAP = 'V4_SWAP'
/** Its command code in router v2 (in v1.x 0x10 is `SEAPORT_V1_5`, whose input does not decode as a plan). */
export const UR_V4_SWAP_CODE = 0x10

/** The V4_SWAP input layout. */
export const V4_SWAP_PARAMS: readonly AbiParameter[] = parseAbiParameters(
  'bytes actions, bytes[] params',
)

/**
 * The Uniswap v4-periphery `Actions.sol` codes the router's V4 plans use. Swaps and settlements
 * move nothing to a named account (their params stay raw bytes); `TAKE`, `TAKE_PORTION`,
 * `TAKE_PAIR` and `SWEEP` pay a `recipient`, which the screen judges like the router's own
 * outputs (`ActionConstants.MSG_SENDER` = address(1) and `ADDRESS_THIS` = address(2) as
 * placeholders). Any other action is unknown, so a plan using one stays `screen-incomplete`.
 */
export const V4_ACTION_ROWS = [
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
] as const satisfies CommandRows

/** The name of a Uniswap v4 action the decoder knows. */
export type V4ActionName = (typeof V4_ACTION_ROWS)[number][1]['name']

type Key = FunctionKey<typeof ABI> | `ur:${UniversalRouterCommandName | V4ActionName}`

/**
 * The router's own payments: its placeholders for its caller and itself are not recipients (the
 * router resolves them), and whatever it pays out of its balance is its output to the caller.
 */
function routerPays(read: CallReader<TransferEffect[]>): CallReader<TransferEffect[]> {
  return (call) =>
    read(call)
      .filter((t) => !isRouterPlaceholder(t.to))
      .map((t): TransferEffect => (t.pull ? t : { ...t, output: 'route' }))
}

/** `TRANSFER`, `SWEEP`, `PAY_PORTION` and v4's `TAKE`, `TAKE_PORTION`, `SWEEP`: one payment. */
const payment = routerPays(({ call, args: a }) => {
  const paid = transfer({
    token: a.token ?? a.currency,
    to: a.recipient,
    amount:
      a.value ??
      a.amountMin ??
      a.amount ??
      (a.bips === undefined ? 'the whole balance' : `${str(a.bips)} bips`),
    pull: false,
    via: call.name,
  })
  const bips = big(a.bips)
  return bips === undefined ? paid : paid.map((t) => ({ ...t, portionBips: bips }))
})

/** A swap's output to `recipient`, at least `amountOutMin` (exact input). */
const exactInOutput = routerPays(({ call, args: a }) =>
  transfer({
    to: a.recipient,
    amount: `at least ${str(a.amountOutMin)}`,
    pull: false,
    via: call.name,
  }),
)

/** A swap's output to `recipient`, exactly `amountOut`. */
const exactOutOutput = routerPays(({ call, args: a }) =>
  transfer({ to: a.recipient, amount: a.amountOut, pull: false, via: call.name }),
)

/** `WRAP_ETH`/`UNWRAP_WETH`: the wrapped or unwrapped amount to `recipient`. */
const wrapOutput = routerPays(({ call, args: a }) =>
  transfer({
    to: a.recipient,
    amount: `at least ${str(a.amountMin)}`,
    pull: false,
    via: call.name,
  }),
)

const v2Swap: CallReader<SwapReading> = ({ args: a }) => ({
  tokens: pathTokens(a.path),
  hops: v2OutputHop(a.path),
})

/** The Universal Router and its commands. */
export const UNIVERSAL_ROUTER = {
  name: 'Uniswap Universal Router',
  abi: ABI,
  transfers: {
    'ur:PERMIT2_TRANSFER_FROM': routerPays(({ call, args: a }) =>
      transfer({ token: a.token, to: a.recipient, amount: a.amount, pull: true, via: call.name }),
    ),
    'ur:PERMIT2_TRANSFER_FROM_BATCH': routerPays(batchTransfers),
    'ur:TRANSFER': payment,
    'ur:SWEEP': payment,
    'ur:PAY_PORTION': payment,
    'ur:TAKE': payment,
    'ur:TAKE_PORTION': payment,
    'ur:TAKE_PAIR': routerPays(({ call, args: a }) => [
      ...transfer({
        token: a.currency0,
        to: a.recipient,
        amount: 'the owed amount',
        pull: false,
        via: call.name,
      }),
      ...transfer({
        token: a.currency1,
        to: a.recipient,
        amount: 'the owed amount',
        pull: false,
        via: call.name,
      }),
    ]),
    'ur:V3_SWAP_EXACT_IN': exactInOutput,
    'ur:V2_SWAP_EXACT_IN': exactInOutput,
    'ur:V3_SWAP_EXACT_OUT': exactOutOutput,
    'ur:V2_SWAP_EXACT_OUT': exactOutOutput,
    'ur:WRAP_ETH': wrapOutput,
    'ur:UNWRAP_WETH': wrapOutput,
  },
  approvals: {
    'ur:PERMIT2_PERMIT': ({ call, args: a }) => permitSingle(a.permitSingle, call.name),
    'ur:PERMIT2_PERMIT_BATCH': ({ call, args: a }) => permitBatch(a.permitBatch, call.name),
  },
  swaps: {
    'ur:V2_SWAP_EXACT_IN': v2Swap,
    'ur:V2_SWAP_EXACT_OUT': v2Swap,
    'ur:V3_SWAP_EXACT_IN': ({ args: a }) => ({
      tokens: pathTokens(a.path),
      hops: v3OutputHop(a.path, false),
    }),
    'ur:V3_SWAP_EXACT_OUT': ({ args: a }) => ({
      tokens: pathTokens(a.path),
      hops: v3OutputHop(a.path, true),
    }),
  },
  contracts: [
    {
      id: 'universal-router',
      name: 'Uniswap Universal Router',
      kind: 'universal-router',
      deployments: onBase(
        '0x6fF5693b99212Da76ad316178A184AB56D299b43', // 2.0 (v4)
        '0xFdf682F51FE81Aa4898F0AE2163d8A55c127fbC7', // 2.1.1
        '0xd6145b2D3F379919E8CdEda7B97e37c4b2Ca9c40', // 2.1.2
        '0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD', // 1.2
      ),
      codes: [],
    },
  ],
} satisfies ProtocolModule<Key>
