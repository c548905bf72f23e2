import { nowMs, type PaymentClock } from './payment-clock.js'
import {
  DEFAULT_PAYMENT_LEASE_MS,
  type PaymentLedger,
  type PaymentRecord,
} from './payment-ledger.js'
import type { PaymentLogger } from './payment-logger.js'

/**
 * The owner's hold on a payment while {@link withLease} runs its work. A write the work could
 * not make (the ledger was cut) is left to {@link OwnerLease.recordLater}.
 */
export interface OwnerLease {
  /**
   * Keeps trying `write` (every 250 ms) after the work ended, for as long as the lease is
   * surely still ours (a second before it runs out on our clock, counted from the last
   * renewal the ledger accepted): an owner that gave up on a payment during a database cut
   * records what it knows, and releases the payment, as soon as the database is back, instead
   * of leaving every retry to wait out its lease. `write` must be conditional on the state
   * the owner left the payment in, so it is a no-op once anyone moved it on.
   */
  recordLater(write: () => Promise<unknown>): void
}

/** What holding a payment's lease needs. */
export interface OwnerLeaseDeps extends PaymentClock {
  ledger: PaymentLedger
  /** Owner lease of a payment (ms, default {@link DEFAULT_PAYMENT_LEASE_MS}). */
  leaseMs?: number
  logger?: PaymentLogger
}

/** How long before our estimate of the lease's end a late write stops trying (clock skew). */
const LATE_WRITE_MARGIN_MS = 1_000
const LATE_WRITE_INTERVAL_MS = 250

/**
 * Runs `work` as the owner of payment `id`, renewing its lease every third of the lease while
 * it runs, so the payment is never taken over from a living owner, and is taken over within
 * one lease once the owner dies (a crash stops the renewals).
 */
export async function withLease<T>(
  deps: OwnerLeaseDeps,
  id: string,
  work: (lease: OwnerLease) => Promise<T>,
): Promise<T> {
  const leaseMs = deps.leaseMs ?? DEFAULT_PAYMENT_LEASE_MS
  // When the lease surely runs out, on our clock: the ledger counts from its own `now()`, a
  // moment after we asked, so counting from before we asked is conservative.
  let heldUntil = nowMs(deps) + leaseMs
  const timer = setInterval(
    () => {
      const asked = nowMs(deps)
      deps.ledger.renewLease(id, leaseMs).then(
        (renewed) => {
          heldUntil = renewed ? Math.max(heldUntil, asked + leaseMs) : 0
        },
        (error: unknown) => {
          deps.logger?.warn({ err: error, paymentId: id }, 'cannot renew the payment lease')
        },
      )
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  )
  timer.unref()
  const late: (() => Promise<unknown>)[] = []
  try {
    return await work({ recordLater: (write) => late.push(write) })
  } finally {
    clearInterval(timer)
    for (const write of late) {
      const attempt = () => {
        if (nowMs(deps) >= heldUntil - LATE_WRITE_MARGIN_MS) {
          deps.logger?.warn({ paymentId: id }, 'the ledger stayed unavailable; the lease decides')
          return
        }
        write().then(
          () => deps.logger?.info({ paymentId: id }, 'recorded once the ledger was back'),
          () => setTimeout(attempt, LATE_WRITE_INTERVAL_MS).unref(),
        )
      }
      setTimeout(attempt, LATE_WRITE_INTERVAL_MS).unref()
    }
  }
}

/** True when a payment may be taken over: it may have been sent and its owner is gone. */
export function ownerGone(record: PaymentRecord, atMs: number): boolean {
  return (
    (record.status === 'settling' || record.status === 'settle_pending') &&
    record.leaseUntil.getTime() <= atMs
  )
}

/**
 * True when a payment's owner died before anything could be sent (`verifying` or `verified`,
 * lease run out), or the reconciler already marked it so ({@link ABANDONED_CODE}): a new
 * claim takes it over and works on it from the start.
 */
export function ownerAbandoned(record: PaymentRecord, atMs: number): boolean {
  if (record.status === 'failed') {
    return record.failure?.kind === 'error' && record.failure.code === ABANDONED_CODE
  }
  return (
    (record.status === 'verifying' || record.status === 'verified') &&
    record.leaseUntil.getTime() <= atMs
  )
}

/**
 * The failure the reconciler records on a payment whose owner died before settling (nothing
 * was charged; a retry claims it again). Stored, and answered, as `payment_in_progress`: the
 * code buyers know for "retry with the same PAYMENT-SIGNATURE"; the paid path's word for it is
 * `abandoned`.
 */
export const ABANDONED_CODE = 'payment_in_progress'
