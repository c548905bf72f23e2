import type {
  ApprovalEffect,
  PowerEffect,
  PrivilegedEffect,
  TransferEffect,
} from '../protocols/declared-effects.js'
import { readersOf } from '../protocols/protocol-modules.js'
import { type BeneficiaryEffect, beneficiaryEffects } from './beneficiary-effects.js'
import { knownCallSite } from './call-args.js'
import type { CallSite } from './call-sites.js'

/** Everything the rules read from one call site. */
export interface CallEffects {
  approvals: ApprovalEffect[]
  transfers: TransferEffect[]
  privileged: PrivilegedEffect[]
  /** AccessControl role and Safe owner/threshold/module/guard/handler changes. */
  power: PowerEffect[]
  /** Who a catalogued protocol call credits (its module's catalogue rows). */
  beneficiaries: BeneficiaryEffect[]
}

// Several rules read the same site's effects; call sites are fresh objects per screen run.
const cache = new WeakMap<CallSite, CallEffects>()

/**
 * Reads the effects of one call site from its decoded arguments, as its function's protocol
 * module says (`src/domain/protocols/`). Unknown calls have none.
 */
export function callEffects(site: CallSite): CallEffects {
  const cached = cache.get(site)
  if (cached) return cached
  const effects = readEffects(site)
  cache.set(site, effects)
  return effects
}

/**
 * Every effect of one kind in the transaction, each with the call site it comes from.
 *
 * @example effectsOfSites(sites, 'approvals') // [{ site, effect: { kind: 'erc20', ... } }]
 */
export function effectsOfSites<K extends keyof CallEffects>(
  sites: readonly CallSite[],
  kind: K,
): { site: CallSite; effect: CallEffects[K][number] }[] {
  return sites.flatMap((site) =>
    callEffects(site)[kind].map((effect: CallEffects[K][number]) => ({ site, effect })),
  )
}

function readEffects(site: CallSite): CallEffects {
  const known = knownCallSite(site)
  if (!known) return { approvals: [], transfers: [], privileged: [], power: [], beneficiaries: [] }
  const readers = readersOf(known.key)
  return {
    approvals: readers?.approvals?.(known) ?? [],
    transfers: readers?.transfers?.(known) ?? [],
    privileged: readers?.privileged?.(known) ?? [],
    power: readers?.powers?.(known) ?? [],
    beneficiaries: beneficiaryEffects(known),
  }
}
