import type { Hex } from 'viem'
import { DEFAULT_PAYMENT_LEASE_MS, type PaymentRecord } from './payment-ledger.js'
import { type Resolution, type ResolveDeps, resolvePayment } from './resolve-payment.js'
import { type ExpectedPayment, type MinedTransaction, provesPayment } from './settlement-proof.js'

/** What owning and recovering payments needs: chain resolution, and the owner lease. */
export interface RecoveryDeps extends ResolveDeps {
  /** Owner lease of a payment (ms, default {@link DEFAULT_PAYMENT_LEASE_MS}). */
  leaseMs?: number
}

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

/** How long before our estimate of the lease's end a late write stops trying (clock skew). */
const LATE_WRITE_MARGIN_MS = 1_000
const LATE_WRITE_INTERVAL_MS = 250

/**
 * Runs `work` as the owner of payment `id`, renewing its lease every third of the lease while
 * it runs, so the payment is never taken over from a living owner, and is taken over within
 * one lease once the owner dies (a crash stops the renewals).
 */
export async function withLease<T>(
  deps: Pick<RecoveryDeps, 'ledger' | 'leaseMs' | 'logger'>,
  id: string,
  work: (lease: OwnerLease) => Promise<T>,
): Promise<T> {
  const leaseMs = deps.leaseMs ?? DEFAULT_PAYMENT_LEASE_MS
  // When the lease surely runs out, on our clock: the ledger counts from its own `now()`, a
  // moment after we asked, so counting from before we asked is conservative.
  let heldUntil = Date.now() + leaseMs
  const timer = setInterval(
    () => {
      const asked = Date.now()
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
        if (Date.now() >= heldUntil - LATE_WRITE_MARGIN_MS) {
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
export function ownerGone(record: PaymentRecord, nowMs = Date.now()): boolean {
  return (
    (record.status === 'settling' || record.status === 'settle_pending') &&
    record.leaseUntil.getTime() <= nowMs
  )
}

/**
 * True when a payment's owner died before anything could be sent (`verifying` or `verified`,
 * lease run out), or the reconciler already marked it so ({@link ABANDONED_CODE}): a new
 * claim takes it over and works on it from the start.
 */
export function ownerAbandoned(record: PaymentRecord, nowMs = Date.now()): boolean {
  if (record.status === 'failed') {
    return record.failure?.kind === 'error' && record.failure.code === ABANDONED_CODE
  }
  return (
    (record.status === 'verifying' || record.status === 'verified') &&
    record.leaseUntil.getTime() <= nowMs
  )
}

/**
 * The failure the reconciler records on a payment whose owner died before settling (nothing
 * was charged; a retry claims it again).
 */
export const ABANDONED_CODE = 'payment_in_progress'

/**
 * Takes over payment `id` when its owner's lease ran out and resolves it from the chain at
 * once (a retry's recovery): settled with a receipt when the chain shows the payment, failed
 * when the chain says it never can be, and when it is unused and still valid, settlement is
 * sent again (once-only by the EIP-3009 nonce). Still unresolved: recorded `settle_pending`
 * and released, so the next retry or the reconciler looks again. Returns the record as it is
 * now, or undefined when someone else owns the payment.
 */
export async function recoverPayment(
  deps: RecoveryDeps,
  id: string,
): Promise<PaymentRecord | undefined> {
  const taken = await deps.ledger.takeOver(id, deps.leaseMs ?? DEFAULT_PAYMENT_LEASE_MS)
  if (!taken) return undefined
  deps.logger?.info(
    { paymentId: id, status: taken.status },
    'taking over a payment whose owner is gone; reading the chain',
  )
  return withLease(deps, id, async () => {
    let resolution: Resolution = 'stillPending'
    try {
      resolution = await resolvePayment(deps, taken, { resettle: true })
    } catch (error) {
      // The chain or the facilitator could not be read: undecided, never a 500. The retry
      // is told the settlement is pending; the next retry or the reconciler looks again.
      deps.logger?.warn({ err: error, paymentId: id }, 'recovering a payment failed; pending')
    } finally {
      if (resolution === 'stillPending') {
        await deps.ledger.transition(id, ['settling', 'settle_pending'], {
          status: 'settle_pending',
        })
      }
    }
    return deps.ledger.get(id)
  })
}

/** How a transaction a facilitator reported as the settlement looks on chain. */
export type SettlementConfirmation =
  /** Mined, and it proves the payment. */
  | { state: 'proven'; tx: MinedTransaction }
  /** In the node's mempool, or the node could not be read: not known yet. */
  | { state: 'pending' }
  /** Unknown to the node, or mined without paying us: the facilitator's word is not enough. */
  | { state: 'unproven' }

const CONFIRM_POLL_MS = 250

/**
 * Checks a reported settlement transaction on chain before any receipt is signed: polls the
 * node (every 250 ms, at most `timeoutMs`) until it is mined, then requires
 * {@link provesPayment}. A facilitator that waited for the receipt (the built-in one, x402's
 * usual ones) costs one read here.
 */
export async function confirmSettlement(
  deps: Pick<ResolveDeps, 'chain' | 'logger'>,
  expected: ExpectedPayment,
  transaction: Hex,
  timeoutMs: number,
): Promise<SettlementConfirmation> {
  const deadline = Date.now() + timeoutMs
  let sawPending = false
  for (;;) {
    try {
      const state = await deps.chain.transaction(transaction)
      if (state.state === 'mined') {
        return provesPayment(state.tx, expected)
          ? { state: 'proven', tx: state.tx }
          : { state: 'unproven' }
      }
      sawPending ||= state.state === 'pending'
    } catch (error) {
      deps.logger?.warn({ err: error, transaction }, 'cannot read the settlement transaction')
      sawPending = true
    }
    if (Date.now() + CONFIRM_POLL_MS > deadline) {
      return sawPending ? { state: 'pending' } : { state: 'unproven' }
    }
    await new Promise((resolve) => setTimeout(resolve, CONFIRM_POLL_MS))
  }
}
