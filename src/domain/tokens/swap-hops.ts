import type { DecodedCall } from '../calldata/decode-calldata.js'
import type { TransactionInput } from '../evm/transaction.js'
import type { SwapOutputHop } from '../protocols/protocol-module.js'
import { PROTOCOL_MODULES, readersOf } from '../protocols/protocol-modules.js'
import { knownCallSite } from '../screen/call-args.js'
import { callSites } from '../screen/call-sites.js'

/**
 * The output hop of every swap the transaction makes, in call order, as each swap's protocol
 * module reads it (`ProtocolModule.swaps`: Router02 and SwapRouter02 over an address path,
 * `exactInput[Single]`, `exactOutput[Single]`, the Universal Router's `V2_SWAP_EXACT_IN/OUT` and
 * `V3_SWAP_EXACT_IN/OUT` commands), at any depth the decoder opens; when the decoder knows none
 * of the calldata, what a module reads from calldata it does not name (Router02's fee-on-transfer
 * swaps). The sell probe sells what the sender received back through these pools.
 *
 * @example swapOutputHops(tx, decoded) // [{ tokenIn: WETH, tokenOut: USDC, kind: 'v3', fee: 500, ... }]
 */
export function swapOutputHops(tx: TransactionInput, decoded: DecodedCall): SwapOutputHop[] {
  const hops: SwapOutputHop[] = []
  for (const site of callSites(tx, decoded)) {
    const known = knownCallSite(site)
    const read = known === undefined ? undefined : readersOf(known.key)?.swaps
    if (known !== undefined && read !== undefined) hops.push(...read(known).hops)
  }
  if (!decoded.known) {
    for (const module of PROTOCOL_MODULES) hops.push(...(module.undecodedSwapHops?.(tx.data) ?? []))
  }
  return hops
}
