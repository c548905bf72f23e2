import { lowerHex } from '@pre-send-guard/client/types'
import type { Address } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import { callEffects } from './call-effects.js'
import { type CallSite, callSites, hasCalldata } from './call-sites.js'
import type { TransactionInput } from './context.js'

/**
 * Most addresses whose code the screen asks for. Each costs the preflight one `eth_getCode`;
 * calldata naming more is unusual enough that the screen reports it (`screen-incomplete`).
 */
export const ADDRESSES_OF_INTEREST_LIMIT = 64

/**
 * Most addresses whose token standard the screen asks for. Each costs the preflight three view
 * calls (riding in its simulation); targets beyond it stay `unknown`, which the screen judges
 * conservatively.
 */
export const STANDARD_PROBE_LIMIT = 16

/**
 * Every address whose code a rule consults, lower-case, deduplicated, in a fixed order: the
 * target, the sender, then per call site (top-level first, then nested in call order) its target,
 * spenders and operators, transfer recipients, new owners, implementations and admins, role holders and Safe owners,
 * modules, guards and fallback handlers. Unbounded:
 * see {@link addressesOfInterest} for the bounded list.
 */
export function allAddressesOfInterest(tx: TransactionInput, decoded: DecodedCall): Address[] {
  return addressesOfSites(tx, callSites(tx, decoded))
}

/** {@link allAddressesOfInterest} over call sites already flattened (the screen reuses its own). */
export function addressesOfSites(tx: TransactionInput, sites: readonly CallSite[]): Address[] {
  const seen = new Set<string>()
  const out: Address[] = []
  const add = (address: Address): void => {
    const key = lowerHex(address)
    if (seen.has(key)) return
    seen.add(key)
    out.push(key)
  }
  add(tx.to)
  add(tx.from)
  for (const site of sites) {
    if (site.kind === 'call' && hasCalldata(site)) add(site.target)
    const effects = callEffects(site)
    for (const approval of effects.approvals) add(approval.spender)
    for (const transfer of effects.transfers) if (transfer.pull || transfer.output) add(transfer.to)
    for (const change of effects.privileged) if (change.subject) add(change.subject)
    for (const change of effects.power) if (change.subject) add(change.subject)
    for (const b of effects.beneficiaries) if (b.role === 'operator') add(b.account)
  }
  return out
}

/**
 * The addresses (lower-case) whose runtime code the preflight must read at the pinned block and
 * put in `ScreenContext.codes`. Bounded by {@link ADDRESSES_OF_INTEREST_LIMIT}; deterministic.
 */
export function addressesOfInterest(tx: TransactionInput, decoded: DecodedCall): Address[] {
  return allAddressesOfInterest(tx, decoded).slice(0, ADDRESSES_OF_INTEREST_LIMIT)
}

/**
 * The addresses (lower-case, deduplicated, in call order) whose token standard the preflight
 * should probe at the pinned block and put in `ScreenContext.tokenStandards`: the targets of
 * every `approve(address,uint256)` with a non-zero spender, a selector ERC-20 (an allowance; zero
 * revokes) and ERC-721 (one token id; only the zero address revokes) share, and of every
 * `transferFrom(address,address,uint256)`, the other selector they share. Bounded by
 * {@link STANDARD_PROBE_LIMIT}; deterministic.
 */
export function standardProbeTargets(tx: TransactionInput, decoded: DecodedCall): Address[] {
  const seen = new Set<string>()
  const out: Address[] = []
  const add = (address: Address): void => {
    const key = lowerHex(address)
    if (seen.has(key)) return
    seen.add(key)
    out.push(key)
  }
  for (const site of callSites(tx, decoded)) {
    const effects = callEffects(site)
    for (const approval of effects.approvals) {
      if (approval.kind === 'erc20-or-erc721' && !approval.revoke) add(approval.token)
    }
    // `transferFrom(address,address,uint256)`, the other shared selector: an ERC-721 moved with
    // it to a contract is never offered `onERC721Received` (`nft-to-non-receiver`).
    for (const transfer of effects.transfers) {
      if (transfer.via === 'transferFrom' && transfer.token !== undefined) add(transfer.token)
    }
  }
  return out.slice(0, STANDARD_PROBE_LIMIT)
}
