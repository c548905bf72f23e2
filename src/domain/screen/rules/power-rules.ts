import { DEFAULT_ADMIN_ROLE, roleName } from '../../protocols/access-control.js'
import type { PowerEffect } from '../../protocols/declared-effects.js'
import { effectsOfSites } from '../call-effects.js'
import type { CallSite } from '../call-sites.js'
import {
  codeOf,
  hitAt,
  isKeyAccount,
  type RuleHit,
  type RuleInput,
  type ScreenRule,
} from '../screen-rule.js'

function changes(
  sites: readonly CallSite[],
  kinds: readonly PowerEffect['kind'][],
): { site: CallSite; change: PowerEffect }[] {
  return effectsOfSites(sites, 'power')
    .filter(({ effect }) => kinds.includes(effect.kind))
    .map(({ site, effect }) => ({ site, change: effect }))
}

function codeNote(input: RuleInput, address: string | undefined): string {
  if (address === undefined) return ''
  const code = codeOf(input.ctx, address)
  if (code === undefined) return ''
  return isKeyAccount(code) ? ' (no code: an externally owned account)' : ' (a contract)'
}

/** True when the grant hands the admin role to an account a single key controls. */
function adminToKeyAccount(input: RuleInput, change: PowerEffect): boolean {
  if (change.kind !== 'role-grant' || change.role !== DEFAULT_ADMIN_ROLE) return false
  if (change.subject === undefined) return false
  const code = codeOf(input.ctx, change.subject)
  return code !== undefined && isKeyAccount(code)
}

/** True when the caller gives up the admin role itself (renounce, or a revoke of its own). */
function adminGivenUp(site: CallSite, change: PowerEffect): boolean {
  if (change.role !== DEFAULT_ADMIN_ROLE) return false
  if (change.kind === 'role-renounce') return true
  return (
    change.kind === 'role-revoke' && change.subject?.toLowerCase() === site.caller.toLowerCase()
  )
}

/** DEFAULT_ADMIN_ROLE granted to an account without code. */
export const adminRoleGrantToEoa: ScreenRule = {
  id: 'admin-role-grant-to-eoa',
  severity: 'critical',
  title: 'Admin role granted to an address without contract code',
  checks:
    'AccessControl `grantRole(DEFAULT_ADMIN_ROLE, account)` where `account` has no code at the pinned block (or only an EIP-7702 delegation).',
  why: 'The admin role grants and revokes every other role: one private key gets full control of the contract, the classic end of an admin-key compromise.',
  example: '`grantRole(0x00…00, 0xEOA)` on an AccessControl token.',
  evaluate(input: RuleInput) {
    return changes(input.sites, ['role-grant'])
      .filter(({ change }) => adminToKeyAccount(input, change))
      .map(({ site, change }) =>
        hitAt(
          site,
          `grantRole gives ${roleName(DEFAULT_ADMIN_ROLE)} of ${change.contract} to ${change.subject}, which has no contract code: that key can grant itself every role.`,
        ),
      )
  },
}

/** Any other role granted. */
export const roleGrant: ScreenRule = {
  id: 'role-grant',
  severity: 'warning',
  title: 'A role is granted',
  checks:
    'AccessControl `grantRole(role, account)`, except the admin role to an address without code (`admin-role-grant-to-eoa`). Well-known role ids are named (`DEFAULT_ADMIN_ROLE`, `MINTER_ROLE`, `PAUSER_ROLE`, …).',
  why: 'The account gets every function that role guards (minting, pausing, upgrading, moving funds); a wrong or hostile account keeps it until someone revokes it.',
  example: '`grantRole(keccak256("MINTER_ROLE"), 0xNewMinter)`.',
  evaluate(input: RuleInput) {
    return changes(input.sites, ['role-grant'])
      .filter(({ change }) => !adminToKeyAccount(input, change))
      .map(({ site, change }) =>
        hitAt(
          site,
          `grantRole gives ${roleName(change.role ?? DEFAULT_ADMIN_ROLE)} of ${change.contract} to ${change.subject ?? '(unreadable)'}${codeNote(input, change.subject)}.`,
        ),
      )
  },
}

/** The caller gives up DEFAULT_ADMIN_ROLE. */
export const adminRoleRenounce: ScreenRule = {
  id: 'admin-role-renounce',
  severity: 'critical',
  title: 'The admin role is given up',
  checks:
    'AccessControl `renounceRole(DEFAULT_ADMIN_ROLE, …)`, or `revokeRole(DEFAULT_ADMIN_ROLE, account)` where `account` is the one making the call.',
  why: 'If the caller is the last admin, nobody can grant or revoke roles again: like renouncing ownership, it cannot be undone.',
  example: '`renounceRole(0x00…00, 0xSender)`.',
  evaluate({ sites }: RuleInput) {
    return changes(sites, ['role-revoke', 'role-renounce'])
      .filter(({ site, change }) => adminGivenUp(site, change))
      .map(({ site, change }) =>
        hitAt(
          site,
          `${change.action} gives up ${roleName(DEFAULT_ADMIN_ROLE)} of ${change.contract} for ${change.subject ?? site.caller}; if it is the last admin, roles can never be managed again.`,
        ),
      )
  },
}

/**
 * Any other role revoked or renounced: power taken away, not handed out, so it is only noted.
 * Replaces the warning `role-revoke`.
 */
export const roleRemoved: ScreenRule = {
  id: 'role-removed',
  severity: 'info',
  title: 'A role is removed',
  checks:
    'AccessControl `revokeRole(role, account)` or `renounceRole(role, …)`, except the caller giving up the admin role (`admin-role-renounce`). Replaces `role-revoke`, which was a warning.',
  why: 'Removing a role only takes power away: nobody gains a way to mint, pause, upgrade or move funds. It is noted so the change is visible (the account loses what the role guards); granting a role stays a warning (`role-grant`).',
  example: '`revokeRole(keccak256("PAUSER_ROLE"), 0xOldGuardian)`.',
  evaluate(input: RuleInput) {
    return changes(input.sites, ['role-revoke', 'role-renounce'])
      .filter(({ site, change }) => !adminGivenUp(site, change))
      .map(({ site, change }) =>
        hitAt(
          site,
          `${change.action} takes ${roleName(change.role ?? DEFAULT_ADMIN_ROLE)} of ${change.contract} from ${change.subject ?? '(unreadable)'}${codeNote(input, change.subject)}.`,
        ),
      )
  },
}

function safeRule(
  kind: PowerEffect['kind'],
  description: Omit<ScreenRule, 'evaluate' | 'severity'>,
): ScreenRule {
  return {
    ...description,
    severity: 'warning',
    evaluate(input: RuleInput) {
      const hits: RuleHit[] = []
      for (const { site, change } of changes(input.sites, [kind])) {
        hits.push(
          hitAt(
            site,
            `On Safe ${change.contract}, ${change.action}${codeNote(input, change.subject)}.`,
          ),
        )
      }
      return hits
    },
  }
}

/** Safe owners added, removed or swapped. */
export const safeOwnerChange = safeRule('safe-owner', {
  id: 'safe-owner-change',
  title: 'Safe owners are changed',
  checks:
    'Safe `addOwnerWithThreshold`, `removeOwner` or `swapOwner`, at top level or inside `execTransaction`/a batch.',
  why: 'Owners sign for everything the Safe holds: a new owner (with a low threshold) can move it all, a removed one can no longer stop that.',
  example: '`execTransaction(to=Safe, data=addOwnerWithThreshold(0xNew, 1), …)`.',
})

/** Safe signature threshold changed. */
export const safeThresholdChange = safeRule('safe-threshold', {
  id: 'safe-threshold-change',
  title: 'Safe signature threshold is changed',
  checks: 'Safe `changeThreshold(n)`, at top level or inside `execTransaction`/a batch.',
  why: 'Lowering the threshold lets fewer owners (down to one key) move everything the Safe holds.',
  example: '`execTransaction(to=Safe, data=changeThreshold(1), …)`.',
})

/** Safe module enabled or disabled. */
export const safeModuleChange = safeRule('safe-module', {
  id: 'safe-module-change',
  title: 'A Safe module is enabled or disabled',
  checks:
    'Safe `enableModule` or `disableModule`, at top level or inside `execTransaction`/a batch.',
  why: 'An enabled module executes any transaction from the Safe without owner signatures; a module is as powerful as all owners together.',
  example: '`execTransaction(to=Safe, data=enableModule(0xModule), …)`.',
})

/** Safe transaction guard set or removed. */
export const safeGuardChange = safeRule('safe-guard', {
  id: 'safe-guard-change',
  title: 'The Safe transaction guard is changed',
  checks: 'Safe `setGuard(guard)`, at top level or inside `execTransaction`/a batch.',
  why: 'A guard checks every later Safe transaction: a hostile one can veto them all (freezing the Safe), and removing one drops the checks it enforced.',
  example: '`execTransaction(to=Safe, data=setGuard(0xGuard), …)`.',
})

/** Safe fallback handler changed. */
export const safeFallbackHandlerChange = safeRule('safe-fallback-handler', {
  id: 'safe-fallback-handler-change',
  title: 'The Safe fallback handler is changed',
  checks: 'Safe `setFallbackHandler(handler)`, at top level or inside `execTransaction`/a batch.',
  why: 'The fallback handler answers calls the Safe does not implement, EIP-1271 `isValidSignature` among them: a hostile handler can make the Safe "sign" permits and orders nobody approved.',
  example: '`execTransaction(to=Safe, data=setFallbackHandler(0xHandler), …)`.',
})
