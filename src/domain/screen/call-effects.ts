import { type ApprovalEffect, approvalEffects } from './approval-effects.js'
import { type BeneficiaryEffect, beneficiaryEffects } from './beneficiary-effects.js'
import { knownCallSite } from './call-args.js'
import type { CallSite } from './call-sites.js'
import { type PowerEffect, powerEffects } from './power-effects.js'
import { type PrivilegedEffect, privilegedEffects } from './privileged-effects.js'
import { type TransferEffect, transferEffects } from './transfer-effects.js'

/** Everything the rules read from one call site. */
export interface CallEffects {
  approvals: ApprovalEffect[]
  transfers: TransferEffect[]
  privileged: PrivilegedEffect[]
  /** AccessControl role and Safe owner/threshold/module/guard/handler changes. */
  power: PowerEffect[]
  /** Who a catalogued protocol call credits (src/domain/protocols/protocol-catalogue.ts). */
  beneficiaries: BeneficiaryEffect[]
}

// Several rules read the same site's effects; call sites are fresh objects per screen run.
const cache = new WeakMap<CallSite, CallEffects>()

/** Reads the effects of one call site from its decoded arguments. Unknown calls have none. */
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
  return {
    approvals: approvalEffects(known),
    transfers: transferEffects(known),
    privileged: privilegedEffects(known),
    power: powerEffects(known),
    beneficiaries: beneficiaryEffects(known),
  }
}
