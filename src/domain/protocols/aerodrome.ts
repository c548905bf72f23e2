import type { JsonValue } from '@pre-send-guard/client/schemas'
import { type Address, parseAbi } from 'viem'
import { owner, receiver } from './beneficiary-args.js'
import type { TransferEffect } from './declared-effects.js'
import { addr, list, obj, str } from './decoded-args.js'
import { type ByNetwork, onBase, onBaseOnly, onServedNetwork } from './network.js'
import type {
  CallReader,
  CatalogueRow,
  FunctionKey,
  ProtocolModule,
  SwapOutputHop,
  SwapReading,
} from './protocol-module.js'
import { output } from './transfer-builders.js'

/**
 * Aerodrome (Velodrome v2's design), Base's largest DEX. Its Router swaps along routes of pools
 * (`Route{from, to, stable, factory}`; factory zero = the PoolFactory) and pays `to`, adds and
 * removes liquidity for `to`, with ETH forms through WETH; it has no placeholders for its caller
 * or itself (address(1) and address(2) are real, unowned recipients). A Pool is its own LP token
 * and shares the Uniswap v2 pair's low-level functions (`swap`, `mint`, `burn`, `skim`, each
 * paying `to`), so those read the same on a v2 pair. A Gauge stakes LP tokens: `deposit(amount,
 * recipient)` has ERC-4626's selector and is read as a vault deposit for `recipient`,
 * `withdraw(amount)` has WETH's and pays the caller, `getReward(account)` pays `account`;
 * `deposit(amount)` is left undecoded: countless staking contracts share that selector, and
 * reading theirs as Aerodrome's would name a protocol the screen cannot see (a gauge has no
 * canonical address). The VotingEscrow locks AERO into a veNFT for the caller or for `to`.
 */
const ABI = parseAbi([
  'struct Route { address from; address to; bool stable; address factory; }',
  // Router
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  'function swapExactETHForTokens(uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  'function addLiquidity(address tokenA, address tokenB, bool stable, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
  'function addLiquidityETH(address token, bool stable, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
  'function removeLiquidity(address tokenA, address tokenB, bool stable, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
  'function removeLiquidityETH(address token, bool stable, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
  // Pool (and the Uniswap v2 pair, whose low-level functions it shares)
  'function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data)',
  'function mint(address to)',
  'function burn(address to)',
  'function skim(address to)',
  // Gauge
  'function getReward(address _account)',
  // VotingEscrow
  'function createLock(uint256 _value, uint256 _lockDuration)',
  'function createLockFor(uint256 _value, uint256 _lockDuration, address _to)',
])

/** A Pool's Swap event (Velodrome v2's: the recipient second, unlike a Uniswap v2 pair's). */
const SWAP_EVENT = parseAbi([
  'event Swap(address indexed sender, address indexed to, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out)',
])

/** Aerodrome's PoolFactory: the factory of a route that names none. */
const POOL_FACTORY: ByNetwork<Address> = onBaseOnly('0x420DD381b31aEf6683db6B902084cB0FFECe40Da')

const ROUTER = 'Aerodrome Router'
const POOL = 'Aerodrome Pool (or Uniswap v2 pair)'
const GAUGE = 'Aerodrome Gauge'
const ESCROW = 'Aerodrome VotingEscrow'

/** A Router swap's output to `to`, at least `amountOutMin`. */
const routeOutput: CallReader<TransferEffect[]> = ({ call, args: a }) =>
  output({
    to: a.to,
    amount: `at least ${str(a.amountOutMin)}`,
    pull: false,
    via: call.name,
    kind: 'route',
  })

/**
 * What a Router swap trades (each route's `from` and `to`, in order) and the pool its output
 * comes from: the last route's, on its curve, from its factory (or the PoolFactory).
 */
const routeSwap: CallReader<SwapReading> = ({ args: a }) => {
  const routes = list(a.routes).map((r) => obj(r))
  return {
    tokens: routes.flatMap((r) => [addr(r.from), addr(r.to)].filter((t) => t !== undefined)),
    hops: lastHop(routes.at(-1)),
  }
}

/** A Router liquidity call: the LP tokens, or the withdrawn assets, go to `to`. */
const liquidity: CatalogueRow = { protocol: ROUTER, beneficiaries: [receiver('to')] }

/** A Pool's low-level call paying `to` (LP tokens, both tokens, or what it holds extra). */
const poolPays: CatalogueRow = { protocol: POOL, beneficiaries: [receiver('to')] }

/** Aerodrome's Router, Pools, Gauges and VotingEscrow. */
export const AERODROME = {
  name: 'Aerodrome',
  abi: ABI,
  catalogue: {
    'addLiquidity(address,address,bool,uint256,uint256,uint256,uint256,address,uint256)': liquidity,
    'addLiquidityETH(address,bool,uint256,uint256,uint256,address,uint256)': liquidity,
    'removeLiquidity(address,address,bool,uint256,uint256,uint256,address,uint256)': liquidity,
    'removeLiquidityETH(address,bool,uint256,uint256,uint256,address,uint256)': liquidity,
    'mint(address)': poolPays,
    'burn(address)': poolPays,
    'skim(address)': poolPays,
    'getReward(address)': { protocol: GAUGE, beneficiaries: [receiver('_account')] },
    'createLock(uint256,uint256)': { protocol: ESCROW, beneficiaries: [], amount: '_value' },
    'createLockFor(uint256,uint256,address)': {
      protocol: ESCROW,
      beneficiaries: [owner('_to')],
      amount: '_value',
    },
  },
  transfers: {
    'swapExactTokensForTokens(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeOutput,
    'swapExactETHForTokens(uint256,(address,address,bool,address)[],address,uint256)': routeOutput,
    'swapExactTokensForETH(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeOutput,
    'swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeOutput,
    'swap(uint256,uint256,address,bytes)': ({ call, args: a }) =>
      output({
        to: a.to,
        amount: `${str(a.amount0Out)} of token0, ${str(a.amount1Out)} of token1`,
        pull: false,
        via: `pool ${call.name}`,
        kind: 'route',
      }),
  },
  swaps: {
    'swapExactTokensForTokens(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeSwap,
    'swapExactETHForTokens(uint256,(address,address,bool,address)[],address,uint256)': routeSwap,
    'swapExactTokensForETH(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeSwap,
    'swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeSwap,
  },
  poolSwapEvents: SWAP_EVENT,
  contracts: [
    {
      id: 'aerodrome-router',
      name: 'Aerodrome Router',
      kind: 'router',
      deployments: onBase('0xcF77a3Ba9A5CA399B7c97c74d54e5b1Beb874E43'),
      codes: [],
    },
    {
      id: 'aerodrome-voting-escrow',
      name: 'Aerodrome VotingEscrow',
      kind: 'protocol',
      deployments: onBase('0xeBf418Fe2512e7E6bd9b87a8F0f294aCDC67e6B4'),
      codes: [],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>

/** The pool a route's output comes from; none when the route or its factory is unreadable. */
function lastHop(route: Record<string, JsonValue> | undefined): SwapOutputHop[] {
  if (route === undefined) return []
  const tokenIn = addr(route.from)
  const tokenOut = addr(route.to)
  const named = addr(route.factory)
  const factory =
    named === undefined || /^0x0{40}$/.test(named) ? onServedNetwork(POOL_FACTORY) : named
  if (!tokenIn || !tokenOut || !factory || typeof route.stable !== 'boolean') return []
  const kind = route.stable ? 'solidly-stable' : 'solidly-volatile'
  return [{ tokenIn, tokenOut, kind, fee: 0, factory }]
}
