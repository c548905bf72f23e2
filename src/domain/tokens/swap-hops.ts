import { type Address, decodeFunctionData, parseAbi } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import type { JsonValue } from '../calldata/json-value.js'
import type { TransactionInput } from '../evm/transaction.js'
import { addr, big, knownCallSite, list, obj } from '../screen/call-args.js'
import { callSites } from '../screen/call-sites.js'

/** Uniswap's factories on Base (the devnet places them at the same addresses). */
export const UNISWAP_FACTORIES = {
  v2: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
  v3: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
} as const satisfies Record<string, Address>

/** The last hop of a Uniswap swap the calldata names: the pool its output comes from. */
export interface SwapOutputHop {
  /** The token the swap buys (what the recipient receives). */
  tokenOut: Address
  /** The token paid into that pool (the hop's input). */
  tokenIn: Address
  kind: 'v2' | 'v3'
  /** The v3 pool's fee tier (hundredths of a bip); 0 for v2. */
  fee: number
  /** The factory that finds the pool. */
  factory: Address
}

/**
 * Router02's fee-on-transfer swaps, which the calldata decoder does not name: read here at the
 * top level only, for the pool the output comes from.
 */
const FEE_ON_TRANSFER_SWAPS = parseAbi([
  'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapExactETHForTokensSupportingFeeOnTransferTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapExactTokensForETHSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
])

/**
 * The output hop of every Uniswap v2/v3 swap the transaction makes, in call order: Router02 and
 * SwapRouter02 (`swap*` over an address path, `exactInput[Single]`, `exactOutput[Single]`) and the
 * Universal Router's `V2_SWAP_EXACT_IN/OUT` and `V3_SWAP_EXACT_IN/OUT` commands, at any depth the
 * decoder opens. The sell probe sells what the sender received back through these pools.
 *
 * @example swapOutputHops(tx, decoded) // [{ tokenIn: WETH, tokenOut: USDC, kind: 'v3', fee: 500, ... }]
 */
export function swapOutputHops(tx: TransactionInput, decoded: DecodedCall): SwapOutputHop[] {
  const hops: SwapOutputHop[] = []
  for (const site of callSites(tx, decoded)) {
    const known = knownCallSite(site)
    if (known === undefined) continue
    const { args: a, call, key } = known
    if (key === 'ur:V2_SWAP_EXACT_IN' || key === 'ur:V2_SWAP_EXACT_OUT') {
      pushV2(hops, a.path)
    } else if (key === 'ur:V3_SWAP_EXACT_IN') {
      pushV3(hops, a.path, false)
    } else if (key === 'ur:V3_SWAP_EXACT_OUT') {
      pushV3(hops, a.path, true)
    } else if (site.kind !== 'command' && call.name.startsWith('swap') && Array.isArray(a.path)) {
      pushV2(hops, a.path)
    } else if (call.name === 'exactInput' || call.name === 'exactOutput') {
      pushV3(hops, obj(a.params).path, call.name === 'exactOutput')
    } else if (call.name === 'exactInputSingle' || call.name === 'exactOutputSingle') {
      const p = obj(a.params)
      const tokenIn = addr(p.tokenIn)
      const tokenOut = addr(p.tokenOut)
      const fee = big(p.fee)
      if (tokenIn && tokenOut && fee !== undefined && fee < 2n ** 24n) {
        hops.push({
          tokenIn,
          tokenOut,
          kind: 'v3',
          fee: Number(fee),
          factory: UNISWAP_FACTORIES.v3,
        })
      }
    }
  }
  if (!decoded.known) {
    try {
      const { args } = decodeFunctionData({ abi: FEE_ON_TRANSFER_SWAPS, data: tx.data })
      const path = args.find((x) => Array.isArray(x)) as readonly Address[] | undefined
      pushV2(hops, path === undefined ? null : [...path])
    } catch {
      // Not one of them.
    }
  }
  return hops
}

function pushV2(hops: SwapOutputHop[], path: JsonValue | undefined): void {
  const tokens = list(path ?? null).map((t) => addr(t))
  const tokenIn = tokens.at(-2)
  const tokenOut = tokens.at(-1)
  if (tokenIn && tokenOut) {
    hops.push({ tokenIn, tokenOut, kind: 'v2', fee: 0, factory: UNISWAP_FACTORIES.v2 })
  }
}

/** A v3 path `token (fee token)+`; an exact-output path runs from the output backwards. */
function pushV3(hops: SwapOutputHop[], path: JsonValue | undefined, reversed: boolean): void {
  if (typeof path !== 'string' || !/^0x(?:[0-9a-fA-F]{46})+[0-9a-fA-F]{40}$/.test(path)) return
  const body = path.slice(2)
  const count = (body.length - 40) / 46
  const tokenAt = (i: number) => addr(`0x${body.slice(i * 46, i * 46 + 40)}`)
  const feeAt = (i: number) => Number.parseInt(body.slice(i * 46 + 40, i * 46 + 46), 16)
  // Forward: the last pair is (count - 1 -> count); reversed: the first pair is (1 -> 0).
  const [inIndex, outIndex, feeIndex] = reversed ? [1, 0, 0] : [count - 1, count, count - 1]
  const tokenIn = tokenAt(inIndex)
  const tokenOut = tokenAt(outIndex)
  if (tokenIn && tokenOut) {
    hops.push({
      tokenIn,
      tokenOut,
      kind: 'v3',
      fee: feeAt(feeIndex),
      factory: UNISWAP_FACTORIES.v3,
    })
  }
}
