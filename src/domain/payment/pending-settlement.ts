import type { Hex } from 'viem'
import type { OwnerLease } from './owner-lease.js'
import {
  type ErrorOutcome,
  type PhaseTimings,
  pendingOutcome,
  unconfirmedOutcome,
} from './paid-preflight-outcome.js'
import type { PaymentFailure, PaymentLedger } from './payment-ledger.js'
import type { PaymentLogger } from './payment-logger.js'
import type { PaymentRail } from './payment-rail.js'

/** What recording an undecided settlement needs. */
export interface PendingDeps {
  ledger: PaymentLedger
  logger?: PaymentLogger
  /** The rail that settled: a facilitator at a URL that never answered may still be settling. */
  rail?: Pick<PaymentRail, 'facilitatorStatus'>
}

/**
 * Marks a `settle_pending` payment whose facilitator at a URL never answered its settle (it
 * names its transaction only in its answer, and may still be working on it): a resolution asks
 * again only once the payment has been quiet (`remoteSettleQuietMs`), whichever instance, and
 * whichever facilitator, it runs with. Never shown to a buyer (a pending answer carries none).
 */
export const REMOTE_SETTLE_UNANSWERED: PaymentFailure = {
  kind: 'error',
  code: 'settlement_pending',
  message: 'the facilitator at a URL did not answer its settle: it may still be settling',
}

/**
 * The facilitator reported a settlement the chain does not show (an unknown transaction, or
 * one that did not pay us): no receipt, nothing recorded as settled. The payment stays
 * `settle_pending` for the chain to decide; the answer is `unconfirmed` (502
 * `facilitator_unavailable`).
 */
export async function recordUnconfirmed(
  deps: PendingDeps,
  id: string,
  transaction: Hex,
  timings: PhaseTimings,
): Promise<ErrorOutcome> {
  deps.logger?.warn(
    { paymentId: id, transaction },
    'the facilitator reported a settlement the chain does not show; no receipt, pending',
  )
  await deps.ledger.transition(id, ['settling'], { status: 'settle_pending' }).catch(() => false)
  return unconfirmedOutcome(transaction, timings)
}

/**
 * Records an unknown settle outcome as `settle_pending` (with the transaction when known); the
 * answer is `pending` (503 `settlement_pending`). If even that write fails, the payment stays
 * `settling` and the reconciler takes it over once stale: the answer is the same.
 */
export async function recordPending(
  deps: PendingDeps,
  id: string,
  transaction: Hex | undefined,
  why: string,
  timings: PhaseTimings,
  /** The owner's lease: a write the ledger refused is made once it is back (see OwnerLease). */
  lease: OwnerLease,
  cause?: unknown,
): Promise<ErrorOutcome> {
  deps.logger?.warn(
    { paymentId: id, transaction, reason: why, ...(cause ? { err: cause } : {}) },
    'settlement outcome unknown; recorded as pending, resolved from the chain',
  )
  const unanswered = !transaction && deps.rail?.facilitatorStatus().kind !== 'builtin'
  const record = () =>
    deps.ledger.transition(id, ['settling'], {
      status: 'settle_pending',
      ...(transaction ? { settlementTx: transaction } : {}),
      ...(unanswered ? { failure: REMOTE_SETTLE_UNANSWERED } : {}),
    })
  try {
    await record()
  } catch (error) {
    deps.logger?.warn(
      { paymentId: id, transaction, err: error },
      'cannot record the pending settlement; recorded once the ledger is back, else a retry or the reconciler takes it over when its lease runs out',
    )
    lease.recordLater(record)
  }
  return pendingOutcome(transaction, timings)
}
