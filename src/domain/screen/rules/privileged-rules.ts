import type { PrivilegedEffect } from '../../protocols/declared-effects.js'
import { effectsOfSites } from '../call-effects.js'
import type { CallSite } from '../call-sites.js'
import { codeOf, hitAt, type RuleHit, type RuleInput, type ScreenRule } from '../screen-rule.js'

function changes(
  sites: readonly CallSite[],
  kind: PrivilegedEffect['kind'],
): { site: CallSite; change: PrivilegedEffect }[] {
  return effectsOfSites(sites, 'privileged')
    .filter(({ effect }) => effect.kind === kind)
    .map(({ site, effect }) => ({ site, change: effect }))
}

function codeNote(input: RuleInput, address: string): string {
  const code = codeOf(input.ctx, address)
  if (code === undefined) return ''
  return code === '0x' ? ' (no code: an externally owned account)' : ' (a contract)'
}

/** Ownership handed to a new owner. */
export const ownershipTransfer: ScreenRule = {
  id: 'ownership-transfer',
  severity: 'warning',
  title: 'Contract ownership is transferred',
  checks:
    '`transferOwnership(newOwner)` (OpenZeppelin Ownable or compatible) to a non-burn address.',
  why: 'The new owner gets every owner-only power of the contract; a wrong or hostile address cannot be undone by the old owner.',
  example: '`transferOwnership(0xNewOwner)` on a protocol contract.',
  evaluate(input: RuleInput) {
    return changes(input.sites, 'ownership-transfer').map(({ site, change }) =>
      hitAt(
        site,
        `${change.via} hands ownership of ${change.contract} to ${change.subject}${codeNote(input, change.subject ?? '')}.`,
      ),
    )
  },
}

/** Ownership renounced or handed to a burn address. */
export const ownershipRenounce: ScreenRule = {
  id: 'ownership-renounce',
  severity: 'critical',
  title: 'Contract ownership is renounced',
  checks: '`renounceOwnership()`, or `transferOwnership` to the zero address or a burn address.',
  why: 'Owner-only functions (upgrades, pausing, fund recovery) become unusable forever.',
  example: '`renounceOwnership()` on an Ownable token.',
  evaluate({ sites }: RuleInput) {
    return changes(sites, 'ownership-renounce').map(({ site, change }) =>
      hitAt(
        site,
        change.subject === undefined
          ? `${change.via} leaves ${change.contract} without an owner, for good.`
          : `${change.via} hands ownership of ${change.contract} to ${change.subject}, which nobody controls.`,
      ),
    )
  },
}

/** Proxy implementation upgraded. */
export const proxyUpgrade: ScreenRule = {
  id: 'proxy-upgrade',
  severity: 'warning',
  title: 'Proxy implementation is upgraded',
  checks:
    '`upgradeTo`, `upgradeToAndCall` (UUPS/ERC-1967), or ProxyAdmin `upgrade`/`upgradeAndCall` for a transparent proxy.',
  why: "The new implementation replaces all of the contract's logic and can do anything with the funds it holds.",
  example: '`upgradeToAndCall(0xNewImpl, 0x)` on a UUPS proxy.',
  evaluate(input: RuleInput) {
    return changes(input.sites, 'upgrade').map(({ site, change }) =>
      hitAt(
        site,
        `${change.via} points proxy ${change.contract} at implementation ${change.subject ?? '(unreadable)'}${codeNote(input, change.subject ?? '')}.`,
      ),
    )
  },
}

/** Proxy upgraded to an address without code. */
export const proxyUpgradeToNoCode: ScreenRule = {
  id: 'proxy-upgrade-to-no-code',
  severity: 'critical',
  title: 'Proxy is upgraded to an address without code',
  checks: 'A proxy upgrade whose new implementation has no code at the pinned block.',
  why: 'Every later call to the proxy does nothing (or reverts): the contract and what it holds are bricked.',
  example: '`upgradeTo(0xEOA)` on an older proxy that does not check the implementation has code.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, change } of changes(sites, 'upgrade')) {
      if (change.subject === undefined || codeOf(ctx, change.subject) !== '0x') continue
      hits.push(
        hitAt(
          site,
          `${change.via} points proxy ${change.contract} at ${change.subject}, which has no code.`,
        ),
      )
    }
    return hits
  },
}

/** Proxy admin changed. */
export const proxyAdminChange: ScreenRule = {
  id: 'proxy-admin-change',
  severity: 'warning',
  title: 'Proxy admin is changed',
  checks: '`changeAdmin(newAdmin)` on an ERC-1967 proxy.',
  why: "The admin decides future upgrades: whoever it is can later replace the contract's logic.",
  example: '`changeAdmin(0xNewAdmin)` on a transparent proxy.',
  evaluate(input: RuleInput) {
    return changes(input.sites, 'admin-change').map(({ site, change }) =>
      hitAt(
        site,
        `${change.via} makes ${change.subject ?? '(unreadable)'}${codeNote(input, change.subject ?? '')} the admin of proxy ${change.contract}.`,
      ),
    )
  },
}
