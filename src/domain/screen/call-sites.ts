import { type Address, getAddress, isAddress } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import type { TransactionInput } from './context.js'

/** One call the transaction makes: the top-level call or one nested inside a container. */
export interface CallSite {
  /** Finding path, e.g. `multicall[2].approve`; absent for the top-level call. */
  path?: string
  /** Where the code runs. For Universal Router commands, the router. */
  target: Address
  /** Wei sent with this call (the transaction's value at top level; 0 when a container says nothing). */
  value: bigint
  /** `command` for Universal Router commands, which are not calls of their own. */
  kind: 'root' | 'call' | 'command'
  operation?: 'call' | 'delegatecall'
  call: DecodedCall
}

/** Flattens the decoded tree into call sites, top-level first, then depth-first in call order. */
export function callSites(tx: TransactionInput, decoded: DecodedCall): CallSite[] {
  // Checksummed like every address the decoder reports, so details read the same at any depth.
  const target = isAddress(tx.to, { strict: false }) ? getAddress(tx.to) : tx.to
  const sites: CallSite[] = [{ target, value: tx.value, kind: 'root', call: decoded }]
  visit(decoded, sites)
  return sites
}

function visit(call: DecodedCall, sites: CallSite[]): void {
  if (!call.known || !call.calls) return
  const commands = call.name === 'execute'
  for (const nested of call.calls) {
    const site: CallSite = {
      path: nested.call.known ? `${nested.path}.${nested.call.name}` : nested.path,
      target: nested.target,
      value: nested.value === undefined ? 0n : BigInt(nested.value),
      kind: commands ? 'command' : 'call',
      call: nested.call,
    }
    if (nested.operation !== undefined) site.operation = nested.operation
    sites.push(site)
    visit(nested.call, sites)
  }
}

/** True when the call carries calldata (an empty call is a plain value transfer). */
export function hasCalldata(site: CallSite): boolean {
  return site.call.known || site.call.reason !== 'empty'
}
