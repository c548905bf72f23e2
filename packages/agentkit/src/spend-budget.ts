/**
 * The most of each asset an agent may spend over a rolling window, across transactions:
 * `eth` or a token's address -> atomic units.
 */
export interface SpendBudgetPolicy {
  /** The window's length, in milliseconds (a day: 86_400_000). */
  windowMs: number
  limits: Readonly<Record<string, bigint>>
}

/** What one transaction takes from the agent: asset key (`eth` or a lower-cased token) -> amount and label. */
export type Outflow = ReadonlyMap<string, { amount: bigint; label: string }>

/** The budget's violation (a `PolicyViolation` of the spend policy). */
export interface BudgetViolation {
  rule: 'budget_exceeded'
  /** Names the asset, the amounts and the budget. */
  detail: string
}

/** A transaction's outflow held against the budget; given back when it was never sent. */
export interface BudgetHold {
  giveBack(): void
}

/**
 * Counts what an agent spent (its transactions' simulated outflows) in memory, per wrapped
 * wallet provider: a restart starts an empty window. An outflow is held from the moment it is
 * judged, so concurrent sends cannot each fit the same room; a send that fails gives it back.
 */
export function createSpendBudget(
  policy: SpendBudgetPolicy,
  now: () => number = Date.now,
): {
  /** Violations when `outflow` does not fit what is left; else it is held (see {@link BudgetHold}). */
  hold(outflow: Outflow): { violations: BudgetViolation[]; hold?: BudgetHold }
} {
  const spent: { at: number; key: string; amount: bigint }[] = []
  const limits = new Map(Object.entries(policy.limits).map(([k, v]) => [k.toLowerCase(), v]))
  const spentWithin = (key: string, since: number) =>
    spent.reduce((sum, s) => (s.key === key && s.at > since ? sum + s.amount : sum), 0n)
  return {
    hold(outflow) {
      const at = now()
      const since = at - policy.windowMs
      while (spent.length > 0 && (spent[0]?.at ?? at) <= since) spent.shift()
      const violations: BudgetViolation[] = []
      for (const [key, out] of outflow) {
        const limit = limits.get(key)
        if (limit === undefined) continue
        const already = spentWithin(key, since)
        if (already + out.amount > limit) {
          violations.push({
            rule: 'budget_exceeded',
            detail: `${out.label} leaving the wallet: ${out.amount} (atomic units) on top of ${already} already spent in the last ${policy.windowMs} ms is over the budget of ${limit}`,
          })
        }
      }
      if (violations.length > 0) return { violations }
      const held = [...outflow]
        .filter(([key]) => limits.has(key))
        .map(([key, out]) => ({ at, key, amount: out.amount }))
      spent.push(...held)
      return {
        violations,
        hold: {
          giveBack() {
            for (const entry of held) {
              const index = spent.indexOf(entry)
              if (index >= 0) spent.splice(index, 1)
            }
          },
        },
      }
    },
  }
}
