import type { Address } from 'viem'
import { WALLET_EXECUTORS } from '../calldata/container-children.js'
import type { DecodedCall, KnownCall, NestedCall } from '../calldata/decode-calldata.js'
import { checksummed, isAddressShaped } from '../evm/checksummed.js'
import type { TokenStandard, TransactionInput } from '../evm/transaction.js'
import { UR_EXECUTE_SUB_PLAN, UR_V4_SWAP } from '../protocols/universal-router.js'

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
  /**
   * The account the called code sees as `msg.sender`, whose tokens an `approve`, `transfer` or
   * `setApprovalForAll` here acts on: the sender at top level, in self-delegatecall `multicall`
   * items, in delegatecalls and in Universal Router commands (which act for the router's caller);
   * the container itself for calls a Multicall3 `aggregate*` or a Safe `execTransaction` makes.
   */
  caller: Address
  /** Name of the container call that makes this call (`aggregate3Value`, `execTransaction`, …). */
  container?: string
  /** The target's token standard when the preflight probed it (`ScreenContext.tokenStandards`). */
  tokenStandard?: TokenStandard
  call: DecodedCall
}

/**
 * The unannotated sites already flattened for a decoded call (with the transaction they were
 * flattened for): the preflight asks for them four times before the screen (addresses of
 * interest, standard probes, calldata tokens, effect addresses), and the same site objects let
 * `callEffects`' cache (call-effects.ts) serve all four.
 */
const flattened = new WeakMap<DecodedCall, { tx: TransactionInput; sites: readonly CallSite[] }>()

/**
 * Flattens the decoded tree into call sites, top-level first, then depth-first in call order.
 * `standards` (lower-case keys) annotates sites whose target was probed for its token standard
 * (fresh sites each time: an annotation changes what a site's effects are). Read-only: the
 * unannotated list is shared by every caller with the same transaction and decoded call.
 */
export function callSites(
  tx: TransactionInput,
  decoded: DecodedCall,
  standards?: ReadonlyMap<string, TokenStandard>,
): readonly CallSite[] {
  if (standards === undefined) {
    const known = flattened.get(decoded)
    if (known !== undefined && known.tx === tx) return known.sites
  }
  // Checksummed like every address the decoder reports, so details read the same at any depth.
  const target = checksum(tx.to)
  const root: CallSite = {
    target,
    value: tx.value,
    kind: 'root',
    caller: checksum(tx.from),
    call: decoded,
  }
  const sites: CallSite[] = [root]
  visit(root, sites)
  if (standards === undefined) {
    flattened.set(decoded, { tx, sites })
    return sites
  }
  for (const site of sites) {
    const standard = standards.get(site.target.toLowerCase())
    if (standard !== undefined && site.kind !== 'command') site.tokenStandard = standard
  }
  return sites
}

/**
 * The account whose balance and storage a site's code runs with: its target, or for a
 * delegatecall the account that delegated (a Safe running MultiSend's code is still the Safe).
 */
const contexts = new WeakMap<CallSite, Address>()

function contextOf(site: CallSite): Address {
  return contexts.get(site) ?? site.target
}

function visit(parent: CallSite, sites: CallSite[]): void {
  const call = parent.call
  if (!call.known || !call.calls) return
  // Universal Router commands (`execute` there); a smart account's `execute` makes plain calls.
  const commands =
    (call.name === 'execute' && !WALLET_EXECUTORS.has(call.selector)) ||
    call.name === UR_EXECUTE_SUB_PLAN ||
    call.name === UR_V4_SWAP
  for (const nested of call.calls) {
    const site: CallSite = {
      path: nested.call.known ? `${nested.path}.${nested.call.name}` : nested.path,
      target: nested.target,
      value: nested.value === undefined ? 0n : BigInt(nested.value),
      kind: commands ? 'command' : 'call',
      caller: callerOf(parent, call, nested),
      call: nested.call,
    }
    if (nested.operation !== undefined) site.operation = nested.operation
    site.container = call.name
    if (nested.operation === 'delegatecall') contexts.set(site, contextOf(parent))
    sites.push(site)
    visit(site, sites)
  }
}

/** Who `msg.sender` is for a call a container makes. */
function callerOf(parent: CallSite, container: KnownCall, nested: NestedCall): Address {
  // A smart account's executor: the account itself makes the calls.
  if (WALLET_EXECUTORS.has(container.selector)) return parent.target
  switch (container.name) {
    // Self-delegatecall batching and router commands act for whoever called the container.
    case 'multicall':
    case 'execute':
    case UR_EXECUTE_SUB_PLAN:
    case UR_V4_SWAP:
      return parent.caller
    // ProxyAdmin calls the proxy, which delegatecalls the data: the ProxyAdmin is the sender.
    case 'upgradeAndCall':
      return parent.target
    // MultiSend runs in the account that delegatecalled it (a Safe): its calls come from there.
    case 'multiSend':
      return nested.operation === 'delegatecall' ? parent.caller : contextOf(parent)
    default:
      // A delegatecall keeps the container's sender; a call comes from the container itself.
      return nested.operation === 'delegatecall' ? parent.caller : parent.target
  }
}

function checksum(address: Address): Address {
  return isAddressShaped(address) ? checksummed(address) : address
}

/** True when the call carries calldata (an empty call is a plain value transfer). */
export function hasCalldata(site: CallSite): boolean {
  return site.call.known || site.call.reason !== 'empty'
}

/** True when the site's caller is the transaction's sender (no container acting for itself). */
export function callerIsSender(site: CallSite, tx: TransactionInput): boolean {
  return site.caller.toLowerCase() === tx.from.toLowerCase()
}
