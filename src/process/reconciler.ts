import { pruneUnverifiedPayments } from '../domain/payment/prune-unverified.js'
import {
  type ReconcileDeps,
  reconcileSettlements,
} from '../domain/payment/reconcile-settlements.js'

/**
 * The process's reconciliation loop (the domain has the pass, the process owns the timer).
 * Runs {@link reconcileSettlements} at once (payments a crashed instance left behind are
 * recovered on start, not one interval later), then every `intervalMs` in the background
 * (timer unref'd, one pass at a time), each pass followed by {@link pruneUnverifiedPayments}
 * (failed payments that never verified do not accumulate). Returns a stop function that
 * waits for a pass in progress.
 */
export function startReconciler(deps: ReconcileDeps, intervalMs: number): () => Promise<void> {
  let running: Promise<unknown> | undefined
  const pass = () => {
    if (running) return
    running = reconcileSettlements(deps)
      .catch((error: unknown) => deps.logger?.warn({ err: error }, 'reconciliation pass failed'))
      .then(() => pruneUnverifiedPayments(deps))
      .catch((error: unknown) => deps.logger?.warn({ err: error }, 'pruning the ledger failed'))
      .finally(() => {
        running = undefined
      })
  }
  const timer = setInterval(pass, intervalMs)
  timer.unref()
  pass()
  return async () => {
    clearInterval(timer)
    await running
  }
}
