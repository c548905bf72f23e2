import { ABANDONED_CODE, withLease } from './owner-lease.js'
import { DEFAULT_PAYMENT_LEASE_MS, type PaymentRecord } from './payment-ledger.js'
import { type ResolveDeps, resolvePayment } from './resolve-payment.js'

/** What the reconciler needs: what resolving a payment needs, and its pacing. */
export interface ReconcileDeps extends ResolveDeps {
  /**
   * Extra age (ms since the last update) an in-flight payment whose owner's lease ran out
   * must have before it is taken over (default 0: the lease decides).
   */
  staleAfterMs?: number
  /**
   * Back-off for a payment a pass could not resolve: `initialMs * 2^attempts`, at most
   * `maxMs`. Default 5 s to 10 min, so stuck payments never starve the others.
   */
  backoff?: { initialMs: number; maxMs: number }
  /**
   * The owner lease a pass holds on the payment it works on, renewed every third of it while
   * it works (default {@link DEFAULT_PAYMENT_LEASE_MS}, as a request's): a pass whose instance
   * dies releases it within one lease, to a retry or another instance.
   */
  leaseMs?: number
  /** Payments per pass (default 100), leased a few at a time. */
  maxPerPass?: number
}

/** What one pass did, for logs and tests. */
export interface ReconcileReport {
  settled: string[]
  failed: string[]
  stillPending: string[]
}

const DEFAULT_BACKOFF = { initialMs: 5_000, maxMs: 10 * 60_000 }

/**
 * Resolves payments whose settlement outcome is unknown, from the chain: `settle_pending`
 * ones, `settling` ones whose owner's lease ran out (its request died), and abandoned earlier
 * states (nothing was sent: failed, retryable). See {@link resolvePayment}.
 *
 * The chain is read at one block B (head first, then state at B):
 * - nonce used at B: the transaction that used it is found (AuthorizationUsed or
 *   AuthorizationCanceled event). Settled only if that transaction shows
 *   AuthorizationUsed(payer, nonce) then Transfer(payer -> payTo, amount) from the token;
 *   canceled -> failed `authorization_canceled`; used for another transfer -> failed
 *   `authorization_used`. Not found yet -> still pending.
 * - unused at B and B's timestamp >= validBefore: it can never be used -> failed
 *   `authorization_expired`.
 * - unused and still valid: a sent transaction still in the mempool is waited for; otherwise
 *   settlement is retried through the facilitator (the nonce makes it once-only). Whatever
 *   the facilitator answers, only the chain decides, on a later pass.
 */
export async function reconcileSettlements(deps: ReconcileDeps): Promise<ReconcileReport> {
  const report: ReconcileReport = { settled: [], failed: [], stillPending: [] }
  const backoff = deps.backoff ?? DEFAULT_BACKOFF
  const maxPerPass = deps.maxPerPass ?? 100
  const leaseMs = deps.leaseMs ?? DEFAULT_PAYMENT_LEASE_MS
  const seen: string[] = []
  while (seen.length < maxPerPass) {
    // One payment at a time, leased only while this pass works on it: none waits behind
    // another under a lease nobody renews if this instance dies.
    const rows = await deps.ledger.leaseUnresolved({
      staleAfterMs: deps.staleAfterMs ?? 0,
      leaseMs,
      limit: 1,
      // Once per pass: a payment postponed by 0 ms is due again at once.
      excludeIds: seen,
    })
    if (rows.length === 0) break
    seen.push(...rows.map((row) => row.id))
    for (const row of rows) {
      let outcome: keyof ReconcileReport
      try {
        outcome = await withLease({ ...deps, leaseMs }, row.id, () => reconcileOne(deps, row))
      } catch (error) {
        outcome = 'stillPending'
        deps.logger?.warn(
          { err: error, paymentId: row.id },
          'reconciling a payment failed; will retry',
        )
      }
      report[outcome].push(row.id)
      if (outcome === 'stillPending') {
        const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** row.reconcileAttempts)
        await deps.ledger.postpone(row.id, delay).catch((error: unknown) => {
          deps.logger?.warn({ err: error, paymentId: row.id }, 'cannot postpone a payment')
        })
      }
    }
  }
  return report
}

async function reconcileOne(
  deps: ReconcileDeps,
  row: PaymentRecord,
): Promise<keyof ReconcileReport> {
  // Before settling started nothing was sent: the request died, the payer may simply retry.
  if (row.status === 'verifying' || row.status === 'verified') {
    const moved = await deps.ledger.transition(row.id, [row.status], {
      status: 'failed',
      failure: {
        kind: 'error',
        code: ABANDONED_CODE,
        message:
          'the request handling this payment stopped before settlement and nothing was charged; retry it with the same PAYMENT-SIGNATURE',
      },
    })
    return moved ? 'failed' : 'stillPending'
  }
  const resolution = await resolvePayment(deps, row, { resettle: true })
  if (resolution === 'stillPending' && row.status === 'settling') {
    // Its owner is gone and the outcome is not known yet: say so to every retry.
    await deps.ledger.transition(row.id, ['settling'], { status: 'settle_pending' })
  }
  return resolution
}
