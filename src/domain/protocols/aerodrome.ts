import { parseAbi } from 'viem'
import type { TransferEffect } from './declared-effects.js'
import { addr, list, obj, str } from './decoded-args.js'
import { onBase } from './network.js'
import type { CallReader, FunctionKey, ProtocolModule, SwapReading } from './protocol-module.js'
import { output } from './transfer-builders.js'

/**
 * Aerodrome (Velodrome v2's design), Base's largest DEX: its Router swaps along routes of pools
 * and pays `to` by a deadline. It has no placeholders for its caller or itself: address(1) and
 * address(2) there are real, unowned recipients.
 */
const ABI = parseAbi([
  'struct Route { address from; address to; bool stable; address factory; }',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  'function swapExactETHForTokens(uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
])

/** A swap's output to `to`, at least `amountOutMin`. */
const routeOutput: CallReader<TransferEffect[]> = ({ call, args: a }) =>
  output({
    to: a.to,
    amount: `at least ${str(a.amountOutMin)}`,
    pull: false,
    via: call.name,
    kind: 'route',
  })

/** The tokens a swap's routes trade: each route's `from` and `to`, in order. */
const routeSwap: CallReader<SwapReading> = ({ args: a }) => ({
  tokens: list(a.routes).flatMap((r) => {
    const route = obj(r)
    return [addr(route.from), addr(route.to)].filter((t) => t !== undefined)
  }),
  hops: [],
})

/** Aerodrome's Router. */
export const AERODROME = {
  name: 'Aerodrome',
  abi: ABI,
  transfers: {
    'swapExactTokensForTokens(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeOutput,
    'swapExactETHForTokens(uint256,(address,address,bool,address)[],address,uint256)': routeOutput,
    'swapExactTokensForETH(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeOutput,
  },
  swaps: {
    'swapExactTokensForTokens(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeSwap,
    'swapExactETHForTokens(uint256,(address,address,bool,address)[],address,uint256)': routeSwap,
    'swapExactTokensForETH(uint256,uint256,(address,address,bool,address)[],address,uint256)':
      routeSwap,
  },
  contracts: [
    {
      id: 'aerodrome-router',
      name: 'Aerodrome Router',
      kind: 'router',
      deployments: onBase('0xcF77a3Ba9A5CA399B7c97c74d54e5b1Beb874E43'),
      codes: [],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>
