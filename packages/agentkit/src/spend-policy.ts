import type { EffectsReport, TypedDataResult } from '@pre-send-guard/client/schemas'
import { NETWORKS } from '@pre-send-guard/client/types'
import type { Outflow, SpendBudgetPolicy } from './spend-budget.js'

/**
 * What an agent may do with its assets, enforced on what the guard's simulation says happens
 * (the preflight answer's `effects`, a typed-data answer's `grants`), never on calldata alone:
 * a transfer hidden in a multicall, a router swap paid out to someone else, or an approval
 * granted by a contract the agent calls are seen as they execute. Every list is optional; an
 * absent one checks nothing. Addresses compare case-insensitively.
 */
export interface SpendPolicy {
  /**
   * Accounts that may receive the agent's assets. When set, every account other than the agent
   * that gains in the simulation and gives nothing back must be listed: a friend paid, a fee
   * taker. A counterparty that pays something back in the same transaction (a pool in a swap)
   * is trading, not receiving, and need not be listed; nor need WETH (0x4200...0006 on Base and
   * Base Sepolia), which only converts ETH it receives into WETH that is then seen going on, nor
   * the zero address, where burnt tokens go to no one's benefit (what the agent loses is still
   * held by `limits`).
   */
  recipients?: readonly string[]
  /**
   * Spenders the agent may grant allowances to (`approve`, `setApprovalForAll`, Permit2
   * approvals, permit signatures). When set, a grant to anyone else is refused.
   */
  spenders?: readonly string[]
  /**
   * The most of each asset that may leave the agent in one transaction, or be granted in one
   * approval or signature: `eth` or a token's address -> atomic units (wei, token base units, or
   * a count of NFTs). An unlimited approval exceeds any limit.
   */
  limits?: Readonly<Record<string, bigint>>
  /**
   * With `limits`: whether an asset that is not listed may leave or be granted at all. Default
   * `refuse`: the limits list everything the agent may spend.
   */
  unlisted?: 'refuse' | 'allow'
  /**
   * The most of each asset that may leave the agent over any `windowMs` (a rolling window),
   * across transactions: what each transaction's simulation shows leaving, counted from when it
   * is judged (a send that fails gives it back). Assets it does not list are left to `limits`.
   * Held per wrapped wallet provider, in memory: a restart starts an empty window. Grants
   * (allowances, permits) are not spending until used: `spenders` and `limits` hold them.
   */
  budget?: SpendBudgetPolicy
}

/**
 * Accounts that gain without being anyone's payee: Base's WETH predeploy (ETH in, WETH minted
 * to whoever the effects then show receiving it) and the zero address (burns).
 */
const NOT_PAYEES = new Set([
  ...Object.values(NETWORKS).map((n) => n.weth.toLowerCase()),
  '0x0000000000000000000000000000000000000000',
])

/** Stable codes of {@link PolicyViolation}. */
export type PolicyRule =
  /** An account outside `recipients` gains from the transaction and gives nothing back. */
  | 'recipient_not_allowed'
  /** An allowance or permit goes to a spender outside `spenders`. */
  | 'spender_not_allowed'
  /** More of an asset leaves, or is granted, than its limit. */
  | 'spend_limit_exceeded'
  /** An asset without a limit leaves or is granted while `unlisted` is `refuse`. */
  | 'asset_not_allowed'
  /** What leaves would take the agent over its budget for the window. */
  | 'budget_exceeded'
  /** The guard could not say what the transaction moves, so the policy cannot be held. */
  | 'effects_unavailable'

/** One way a transaction or signature breaks the {@link SpendPolicy}. */
export interface PolicyViolation {
  rule: PolicyRule
  /** Names the account, the asset and the amounts. */
  detail: string
}

/** True when the policy sets anything to check. */
export function hasPolicy(policy: SpendPolicy | undefined): policy is SpendPolicy {
  return (
    policy !== undefined &&
    (policy.recipients !== undefined ||
      policy.spenders !== undefined ||
      policy.limits !== undefined ||
      policy.budget !== undefined)
  )
}

/** The ways a simulated transaction by `sender` breaks `policy` (empty: none). */
export function transactionViolations(
  policy: SpendPolicy | undefined,
  sender: string,
  effects: EffectsReport,
): PolicyViolation[] {
  if (!hasPolicy(policy)) return []
  if (!effects.available) {
    return [
      {
        rule: 'effects_unavailable',
        detail: `the guard could not simulate what this moves (${effects.reason}), so the spend policy cannot be checked`,
      },
    ]
  }
  const violations: PolicyViolation[] = []
  const me = sender.toLowerCase()
  if (policy.recipients !== undefined) {
    const allowed = lowerSet(policy.recipients)
    for (const account of effects.assetChanges) {
      const who = account.account.toLowerCase()
      if (who === me || allowed.has(who) || NOT_PAYEES.has(who)) continue
      if (account.changes.length > 0 && account.changes.every((c) => c.direction === 'in')) {
        violations.push({
          rule: 'recipient_not_allowed',
          detail: `${account.account} receives ${account.changes.map(shown).join(', ')} and gives nothing back; it is not one of the allowed recipients`,
        })
      }
    }
  }
  for (const [key, out] of senderOutflow(effects)) {
    violations.push(...overLimit(policy, key, out.amount, `${out.label} leaving the wallet`))
  }
  for (const approval of effects.approvalChanges) {
    if (!approval.ownerIsSender || approval.revoke) continue
    const amount = approval.amount === 'all' ? undefined : BigInt(approval.amount)
    violations.push(
      ...grantViolations(policy, {
        spender: approval.spender,
        token: approval.token,
        amount,
        what: `${approval.via} of ${approval.display ?? `${approval.amount} of ${approval.token}`} to ${approval.spender}`,
      }),
    )
  }
  return violations
}

/** What the simulation shows leaving the sender, per asset (`eth` or a lower-cased token). */
export function senderOutflow(effects: Extract<EffectsReport, { available: true }>): Outflow {
  const outgoing = new Map<string, { amount: bigint; label: string }>()
  for (const change of effects.senderNet.changes) {
    if (change.direction !== 'out') continue
    const key = assetKey(change.asset.token)
    const seen = outgoing.get(key)
    outgoing.set(key, {
      amount: (seen?.amount ?? 0n) + BigInt(change.amount),
      label: change.asset.symbol ?? (change.asset.token === null ? 'ETH' : change.asset.token),
    })
  }
  return outgoing
}

/** The ways signing typed data as `signer` breaks `policy`, from the guard's reading of its grants. */
export function typedDataViolations(
  policy: SpendPolicy | undefined,
  signer: string,
  grants: TypedDataResult['grants'],
): PolicyViolation[] {
  if (!hasPolicy(policy)) return []
  const me = signer.toLowerCase()
  return grants
    .filter((g) => g.owner.toLowerCase() === me && !g.revoke)
    .flatMap((g) =>
      grantViolations(
        policy,
        {
          spender: g.spender,
          token: g.token,
          amount: g.unlimited ? undefined : BigInt(g.amount),
          what: `a signed ${g.use === 'transfer' ? 'transfer' : 'allowance'} of ${g.unlimited ? 'unlimited' : g.amount} ${g.symbol ?? g.token} to ${g.spender}`,
        },
        // A one-time transfer to an allowed recipient is a payment to it.
        g.use === 'transfer',
      ),
    )
}

/** An allowance or permit: its spender must be allowed and its amount within the token's limit. */
function grantViolations(
  policy: SpendPolicy,
  grant: { spender: string; token: string; amount: bigint | undefined; what: string },
  recipientsMaySpend = false,
): PolicyViolation[] {
  const violations: PolicyViolation[] = []
  if (policy.spenders !== undefined) {
    const spender = grant.spender.toLowerCase()
    const allowed =
      lowerSet(policy.spenders).has(spender) ||
      (recipientsMaySpend && lowerSet(policy.recipients ?? []).has(spender))
    if (!allowed) {
      violations.push({
        rule: 'spender_not_allowed',
        detail: `${grant.what}: ${grant.spender} is not one of the allowed spenders`,
      })
    }
  }
  violations.push(...overLimit(policy, assetKey(grant.token), grant.amount, grant.what))
  return violations
}

/** A violation when `amount` (undefined: unlimited) of the asset `key` exceeds the policy's limits. */
function overLimit(
  policy: SpendPolicy,
  key: string,
  amount: bigint | undefined,
  what: string,
): PolicyViolation[] {
  if (policy.limits === undefined) return []
  const limit = limitOf(policy.limits, key)
  if (limit === undefined) {
    if (policy.unlisted === 'allow') return []
    return [
      {
        rule: 'asset_not_allowed',
        detail: `${what}: ${key === 'eth' ? 'ETH' : key} has no spend limit, and assets without one may not be spent`,
      },
    ]
  }
  if (amount !== undefined && amount <= limit) return []
  return [
    {
      rule: 'spend_limit_exceeded',
      detail: `${what}: ${amount === undefined ? 'an unlimited amount' : `${amount} (atomic units)`} is over the limit of ${limit}`,
    },
  ]
}

function limitOf(limits: Readonly<Record<string, bigint>>, key: string): bigint | undefined {
  for (const [asset, limit] of Object.entries(limits)) {
    if (asset.toLowerCase() === key) return limit
  }
  return undefined
}

/** `eth` for the native asset, else the token's lower-cased address. */
function assetKey(token: string | null): string {
  return token === null ? 'eth' : token.toLowerCase()
}

function lowerSet(addresses: readonly string[]): Set<string> {
  return new Set(addresses.map((a) => a.toLowerCase()))
}

function shown(change: {
  amount: string
  display: string | null
  asset: { token: string | null }
}): string {
  return change.display ?? `${change.amount} of ${change.asset.token ?? 'ETH'}`
}
