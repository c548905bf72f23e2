import type { JsonValue } from '@pre-send-guard/client/schemas'
import { type Address, decodeFunctionData, type Hex, parseAbi, toFunctionSelector } from 'viem'
import { owner, receiver } from './beneficiary-args.js'
import type { TransferEffect } from './declared-effects.js'
import { addr, big, list, obj, str } from './decoded-args.js'
import { type ByNetwork, onBase, onBaseOnly, onServedNetwork } from './network.js'
import type {
  CallReader,
  CatalogueRow,
  FunctionKey,
  PositionNft,
  ProtocolModule,
  SwapOutputHop,
  SwapReading,
} from './protocol-module.js'
import { output } from './transfer-builders.js'

/**
 * Uniswap v2 and v3 periphery: SwapRouter02 (v3 swaps without a deadline field, v2 swaps
 * without a deadline argument), Router02 (liquidity and swaps to `to`), the v3
 * NonfungiblePositionManager and the periphery's payments. The Universal Router is its own
 * module (`universal-router.ts`).
 */
const ABI = parseAbi([
  'struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'struct ExactInputParams { bytes path; address recipient; uint256 amountIn; uint256 amountOutMinimum; }',
  'struct ExactOutputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountOut; uint256 amountInMaximum; uint160 sqrtPriceLimitX96; }',
  'struct ExactOutputParams { bytes path; address recipient; uint256 amountOut; uint256 amountInMaximum; }',
  'struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }',
  'struct IncreaseLiquidityParams { uint256 tokenId; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }',
  'struct DecreaseLiquidityParams { uint256 tokenId; uint128 liquidity; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }',
  'struct CollectParams { uint256 tokenId; address recipient; uint128 amount0Max; uint128 amount1Max; }',
  // SwapRouter02: outputs go to `recipient`/`to`
  'function exactInputSingle(ExactInputSingleParams params)',
  'function exactInput(ExactInputParams params)',
  'function exactOutputSingle(ExactOutputSingleParams params)',
  'function exactOutput(ExactOutputParams params)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to)',
  'function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to)',
  // v3 NonfungiblePositionManager
  'function mint(MintParams params)',
  'function increaseLiquidity(IncreaseLiquidityParams params)',
  'function decreaseLiquidity(DecreaseLiquidityParams params)',
  'function burn(uint256 value)',
  'function collect(CollectParams params)',
  // periphery payments (SwapRouter02, the position manager)
  'function unwrapWETH9(uint256 amountMinimum, address recipient)',
  'function sweepToken(address token, uint256 amountMinimum, address recipient)',
  'function refundETH()',
  // v2 Router02
  'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
  'function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
  'function removeLiquidity(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
  'function removeLiquidityETH(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
  'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapETHForExactTokens(uint256 amountOut, address[] path, address to, uint256 deadline)',
  'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapTokensForExactETH(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline)',
])

/**
 * Router02's fee-on-transfer swaps, which the calldata decoder does not name: read at the top
 * level only, for the pool the output comes from.
 */
const FEE_ON_TRANSFER_SWAPS = parseAbi([
  'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapExactETHForTokensSupportingFeeOnTransferTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapExactTokensForETHSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
])

/** The selectors of {@link FEE_ON_TRANSFER_SWAPS}, computed once. */
const FEE_ON_TRANSFER_SELECTORS = new Set<string>(
  FEE_ON_TRANSFER_SWAPS.map((f) => toFunctionSelector(f)),
)

/** Uniswap routers' recipient placeholder for their caller (`Constants.MSG_SENDER`). */
const MSG_SENDER = '0x0000000000000000000000000000000000000001'
/** Uniswap routers' recipient placeholder for themselves (`Constants.ADDRESS_THIS`). */
const ADDRESS_THIS = '0x0000000000000000000000000000000000000002'

/**
 * True for address(1) and address(2), which Uniswap's routers (SwapRouter02, the Universal
 * Router and its v4 actions) resolve to their caller and themselves: no recipient of their own.
 */
export function isRouterPlaceholder(address: string): boolean {
  const lower = address.toLowerCase()
  return lower === MSG_SENDER || lower === ADDRESS_THIS
}

/** The Swap events of Uniswap v2 pairs and v3 pools. */
const SWAP_EVENTS = parseAbi([
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
])

/** Uniswap's factories, where the sell probe finds a swap's pool (the devnet places them alike). */
const FACTORIES: ByNetwork<{ v2: Address; v3: Address }> = onBaseOnly({
  v2: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
  v3: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
})

const NPM = 'Uniswap v3 NonfungiblePositionManager'
const V2 = 'Uniswap v2 Router02'
const PERIPHERY = 'Uniswap periphery'

/** Router02's rows: liquidity and swaps pay `to` (LP tokens, withdrawn assets, the output). */
const v2Row: CatalogueRow = { protocol: V2, beneficiaries: [receiver('to')] }

/** A swap over an address path (Router02, SwapRouter02): its tokens, and its last pair's pool. */
const pathSwap: CallReader<SwapReading> = ({ args: a }) => ({
  tokens: pathTokens(a.path),
  hops: Array.isArray(a.path) ? v2OutputHop(a.path) : [],
})

/** SwapRouter02's packed-path swaps: the last pool (exact input) or the first (exact output). */
const packedPathSwap: CallReader<SwapReading> = ({ call, args: a }) => ({
  tokens: pathTokens(obj(a.params).path),
  hops: v3OutputHop(obj(a.params).path, call.name === 'exactOutput'),
})

/** SwapRouter02's single-pool swaps: `tokenIn` -> `tokenOut` through the pool of `fee`. */
const singleSwap: CallReader<SwapReading> = ({ args: a }) => {
  const p = obj(a.params)
  const tokenIn = addr(p.tokenIn)
  const tokenOut = addr(p.tokenOut)
  const fee = big(p.fee)
  const factory = onServedNetwork(FACTORIES)?.v3
  const named = [tokenIn, tokenOut].filter((t) => t !== undefined)
  if (!tokenIn || !tokenOut || fee === undefined || fee >= 2n ** 24n || !factory) {
    return { tokens: named, hops: [] }
  }
  return { tokens: named, hops: [{ tokenIn, tokenOut, kind: 'v3', fee: Number(fee), factory }] }
}

/** SwapRouter02's v3 swaps: the output to `params.recipient`. */
const v3Output: CallReader<TransferEffect[]> = ({ call, args: a }) => {
  const p = obj(a.params)
  const amount =
    p.amountOut === undefined ? `at least ${str(p.amountOutMinimum)}` : str(p.amountOut)
  return withoutPlaceholders(
    output({
      token: p.tokenOut,
      to: p.recipient,
      amount,
      pull: false,
      via: call.name,
      kind: 'route',
    }),
  )
}

/** SwapRouter02's v2 swaps (no deadline): the output to `to`. */
const v2Output: CallReader<TransferEffect[]> = ({ call, args: a }) => {
  const amount = a.amountOut === undefined ? `at least ${str(a.amountOutMin)}` : str(a.amountOut)
  return withoutPlaceholders(
    output({ to: a.to, amount, pull: false, via: call.name, kind: 'route' }),
  )
}

/**
 * The position manager's calls on an existing position: `increaseLiquidity` lets anyone add to
 * anyone's position (a gift), `decreaseLiquidity`/`collect` act for its owner or an approved
 * operator. The position's owner is read with the simulation.
 */
const positionNft: CallReader<PositionNft[]> = ({ site, args: a }) => {
  const tokenId = big(obj(a.params).tokenId)
  return tokenId === undefined ? [] : [{ protocol: NPM, collection: site.target, tokenId }]
}

/** Uniswap v2/v3: SwapRouter02, Router02, the position manager and the periphery's payments. */
export const UNISWAP = {
  name: 'Uniswap v2 / v3',
  abi: ABI,
  catalogue: {
    // v3 positions: the NFT's owner, and who collects (0 = the manager keeps the tokens for a
    // following `unwrapWETH9`/`sweepToken` in the same multicall)
    'mint((address,address,uint24,int24,int24,uint256,uint256,uint256,uint256,address,uint256))': {
      protocol: NPM,
      beneficiaries: [owner('params.recipient')],
    },
    'increaseLiquidity((uint256,uint256,uint256,uint256,uint256,uint256))': {
      protocol: NPM,
      beneficiaries: [],
    },
    'decreaseLiquidity((uint256,uint128,uint256,uint256,uint256))': {
      protocol: NPM,
      beneficiaries: [],
    },
    // ERC-20 Burnable's `burn(uint256 amount)` shares the selector: `value` names either.
    'burn(uint256)': { protocol: NPM, beneficiaries: [] },
    'collect((uint256,address,uint128,uint128))': {
      protocol: NPM,
      beneficiaries: [receiver('params.recipient', 'target')],
    },
    'unwrapWETH9(uint256,address)': { protocol: PERIPHERY, beneficiaries: [receiver('recipient')] },
    'sweepToken(address,uint256,address)': {
      protocol: PERIPHERY,
      beneficiaries: [receiver('recipient')],
      token: 'token',
    },
    'refundETH()': { protocol: PERIPHERY, beneficiaries: [] },
    'addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)': v2Row,
    'addLiquidityETH(address,uint256,uint256,uint256,address,uint256)': v2Row,
    'removeLiquidity(address,address,uint256,uint256,uint256,address,uint256)': v2Row,
    'removeLiquidityETH(address,uint256,uint256,uint256,address,uint256)': v2Row,
    'swapExactETHForTokens(uint256,address[],address,uint256)': v2Row,
    'swapETHForExactTokens(uint256,address[],address,uint256)': v2Row,
    'swapExactTokensForETH(uint256,uint256,address[],address,uint256)': v2Row,
    'swapTokensForExactETH(uint256,uint256,address[],address,uint256)': v2Row,
    'swapExactTokensForTokens(uint256,uint256,address[],address,uint256)': v2Row,
    'swapTokensForExactTokens(uint256,uint256,address[],address,uint256)': v2Row,
  },
  transfers: {
    'exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))': v3Output,
    'exactOutputSingle((address,address,uint24,address,uint256,uint256,uint160))': v3Output,
    'exactInput((bytes,address,uint256,uint256))': v3Output,
    'exactOutput((bytes,address,uint256,uint256))': v3Output,
    'swapExactTokensForTokens(uint256,uint256,address[],address)': v2Output,
    'swapTokensForExactTokens(uint256,uint256,address[],address)': v2Output,
  },
  swaps: {
    'exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))': singleSwap,
    'exactOutputSingle((address,address,uint24,address,uint256,uint256,uint160))': singleSwap,
    'exactInput((bytes,address,uint256,uint256))': packedPathSwap,
    'exactOutput((bytes,address,uint256,uint256))': packedPathSwap,
    'swapExactTokensForTokens(uint256,uint256,address[],address)': pathSwap,
    'swapTokensForExactTokens(uint256,uint256,address[],address)': pathSwap,
    'swapExactETHForTokens(uint256,address[],address,uint256)': pathSwap,
    'swapETHForExactTokens(uint256,address[],address,uint256)': pathSwap,
    'swapExactTokensForETH(uint256,uint256,address[],address,uint256)': pathSwap,
    'swapTokensForExactETH(uint256,uint256,address[],address,uint256)': pathSwap,
    'swapExactTokensForTokens(uint256,uint256,address[],address,uint256)': pathSwap,
    'swapTokensForExactTokens(uint256,uint256,address[],address,uint256)': pathSwap,
  },
  positionNfts: {
    'increaseLiquidity((uint256,uint256,uint256,uint256,uint256,uint256))': positionNft,
    'decreaseLiquidity((uint256,uint128,uint256,uint256,uint256))': positionNft,
    'collect((uint256,address,uint128,uint128))': positionNft,
  },
  poolSwapEvents: SWAP_EVENTS,
  undecodedSwapHops: (data: Hex) => {
    // Most calldata is none of them: a thrown viem error (and every signature hashed) is not
    // what an ETH transfer should pay for.
    if (!FEE_ON_TRANSFER_SELECTORS.has(data.slice(0, 10).toLowerCase())) return []
    try {
      const { args } = decodeFunctionData({ abi: FEE_ON_TRANSFER_SWAPS, data })
      const path = args.find((x) => Array.isArray(x))
      return v2OutputHop(Array.isArray(path) ? [...path] : null)
    } catch {
      // Not one of them.
      return []
    }
  },
  contracts: [
    {
      id: 'uniswap-v3-position-manager',
      name: 'Uniswap v3 NonfungiblePositionManager',
      kind: 'protocol',
      deployments: onBase('0x03a520b32C04BF3bEEf7BEb72E919cf822Ed34f1'),
      codes: [],
    },
    {
      id: 'uniswap-swap-router-02',
      name: 'Uniswap SwapRouter02',
      kind: 'router',
      deployments: onBase('0x2626664c2603336E57B271c5C0b26F421741e481'),
      codes: [],
    },
    {
      id: 'uniswap-v2-router-02',
      name: 'Uniswap v2 Router02',
      kind: 'router',
      deployments: onBase('0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24'),
      codes: [],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>

/** SwapRouter02's outputs to its placeholders are no payments to anyone (the router resolves them). */
function withoutPlaceholders(transfers: TransferEffect[]): TransferEffect[] {
  return transfers.filter((t) => !isRouterPlaceholder(t.to))
}

/** A Uniswap v3 packed path: 20-byte tokens joined by 3-byte fees. */
const V3_PATH = /^0x(?:[0-9a-fA-F]{46})+[0-9a-fA-F]{40}$/

/** The tokens of a swap path, in order: a v2 `address[]` or a v3 packed `bytes` path. */
export function pathTokens(path: JsonValue | undefined): Address[] {
  if (typeof path === 'string' && V3_PATH.test(path)) {
    const tokens: Address[] = []
    for (let i = 2; i < path.length; i += 46) {
      const token = addr(`0x${path.slice(i, i + 40)}`)
      if (token) tokens.push(token)
    }
    return tokens
  }
  return list(path ?? null).flatMap((t) => {
    const token = addr(t)
    return token ? [token] : []
  })
}

/** The output hop of a v2 `address[]` path: its last pair, through the v2 factory. */
export function v2OutputHop(path: JsonValue | undefined): SwapOutputHop[] {
  const tokens = list(path ?? null).map((t) => addr(t))
  const tokenIn = tokens.at(-2)
  const tokenOut = tokens.at(-1)
  const factory = onServedNetwork(FACTORIES)?.v2
  if (!tokenIn || !tokenOut || !factory) return []
  return [{ tokenIn, tokenOut, kind: 'v2', fee: 0, factory }]
}

/**
 * The output hop of a v3 packed path `token (fee token)+`: its last pool, or its first for an
 * exact-output path, which runs from the output backwards.
 */
export function v3OutputHop(path: JsonValue | undefined, reversed: boolean): SwapOutputHop[] {
  if (typeof path !== 'string' || !V3_PATH.test(path)) return []
  const body = path.slice(2)
  const count = (body.length - 40) / 46
  const tokenAt = (i: number) => addr(`0x${body.slice(i * 46, i * 46 + 40)}`)
  const feeAt = (i: number) => Number.parseInt(body.slice(i * 46 + 40, i * 46 + 46), 16)
  // Forward: the last pair is (count - 1 -> count); reversed: the first pair is (1 -> 0).
  const [inIndex, outIndex, feeIndex] = reversed ? [1, 0, 0] : [count - 1, count, count - 1]
  const tokenIn = tokenAt(inIndex)
  const tokenOut = tokenAt(outIndex)
  const factory = onServedNetwork(FACTORIES)?.v3
  if (!tokenIn || !tokenOut || !factory) return []
  return [{ tokenIn, tokenOut, kind: 'v3', fee: feeAt(feeIndex), factory }]
}
