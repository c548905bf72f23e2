import type { Hex } from 'viem'
import { AppError, isErrorCode } from '../../errors.js'
import { canonicalJsonHash } from '../receipt/canonical-json.js'
import { ABANDONED_CODE, ownerAbandoned, ownerGone } from './owner-lease.js'
import {
  errorOutcome,
  inProgressOutcome,
  type PaidPreflightOutcome,
  type PhaseTimings,
  pendingOutcome,
} from './paid-preflight-outcome.js'
import { nowMs, type PaymentClock } from './payment-clock.js'
import {
  IN_FLIGHT_STATUSES,
  type PaymentLedger,
  type PaymentRecord,
  type PaymentStatus,
} from './payment-ledger.js'
import { PAYMENT_REASONS, type PaymentReason } from './payment-reasons.js'

/** What answering from the ledger needs: the ledger, the clock, and the bounds of waiting. */
export interface StoredAnswerDeps extends PaymentClock {
  ledger: PaymentLedger
  /**
   * How long a copy of a payment waits for the request already working on it (ms, default
   * 10 s) before answering 503 `payment_in_progress` with Retry-After.
   */
  waitTimeoutMs?: number
  /** First poll interval of that wait (ms); it grows to 500 ms. */
  pollIntervalMs?: number
}

/** What a copy of a payment carried, to compare with the claimed one. */
export interface PaymentCopy {
  /** The identity of the payment (`paymentId`). */
  id: string
  /** Canonical hash of the signed inner payload. */
  payloadHash: Hex
  /** The payload as received (rows written before migration 2 hashed this). */
  received: unknown
  /** Canonical hash of the request body. */
  requestHash: Hex
}

/**
 * Takes over a payment that may have been sent and whose owner is gone, and resolves it from
 * the chain; the record after, or undefined when someone else owns it (`takeOverPayment`).
 */
export type TakeOver = (id: string) => Promise<PaymentRecord | undefined>

/** How a copy waits: what it may do when the payment's owner is gone. */
export interface CopyOptions {
  takeOver: TakeOver
  /**
   * Claims the payment again and works on it, for when its owner abandoned it before sending
   * anything: the waiting copy claims it as soon as the lease runs out instead of answering 503
   * and leaving it to the buyer's next retry (up to the whole wait later).
   */
  claimAgain?: () => Promise<PaidPreflightOutcome>
}

const DEFAULT_WAIT_MS = 10_000
const DEFAULT_POLL_MS = 25
const MAX_POLL_MS = 500

/**
 * The answer to a copy of a payment another request already claimed: nothing for a different
 * payment under the same nonce or the same payment for another request; otherwise the stored
 * answer, once the request working on it is done (or the bounded wait runs out).
 */
export async function answerCopy(
  deps: StoredAnswerDeps,
  existing: PaymentRecord,
  copy: PaymentCopy,
  timings: PhaseTimings,
  options: CopyOptions,
): Promise<PaidPreflightOutcome> {
  const required = (reason: PaymentReason): PaidPreflightOutcome => ({
    kind: 'payment_required',
    reason,
    timings,
  })
  // A different payment under the same authorization nonce: never the stored answer.
  if (!isSamePayment(existing, copy)) return required('authorization_used')
  // The chain decided this authorization can never pay (canceled, used elsewhere, expired).
  if (existing.status === 'failed' && existing.failure?.final) {
    return answerFrom(deps, existing, true, timings)
  }
  if (existing.requestHash !== copy.requestHash) return required('payment_reused')
  const { claimAgain } = options
  const settled = await waitForAnswer(deps, copy.id, {
    first: existing,
    takeOver: options.takeOver,
    untilAbandoned: claimAgain !== undefined,
  })
  // Abandoned: the lease ran out, or the reconciler got there first and marked it failed (the
  // soak saw the copy answer 503 then, and the payment wait for the buyer's next retry).
  if (claimAgain && ownerAbandoned(settled, nowMs(deps))) return claimAgain()
  return answerFrom(deps, settled, true, timings)
}

/** Whether a copy carries the payment stored in `existing` (the same signed payload). */
export function isSamePayment(existing: PaymentRecord, copy: PaymentCopy): boolean {
  // (Rows written before migration 2 hashed the whole payload as received.)
  return (
    existing.payloadHash === copy.payloadHash ||
    existing.payloadHash === canonicalJsonHash(copy.received)
  )
}

/** How {@link waitForAnswer} waits. */
export interface WaitOptions {
  /** The record as the caller just read it (saves one read). */
  first?: PaymentRecord
  /**
   * Given: a payment that may have been sent and whose owner is gone (lease run out) is taken
   * over and resolved from the chain right away. Absent: the wait only watches (the owner's
   * own paths, which know the payment's owner is alive).
   */
  takeOver?: TakeOver
  /** Stop as soon as the owner abandoned the payment before settling (see `ownerAbandoned`). */
  untilAbandoned?: boolean
}

/**
 * Polls the ledger (25 ms growing to 500 ms) until the payment leaves the in-flight states, or
 * the bounded wait runs out; then the record as it is (in flight: 503 `payment_in_progress`).
 */
export async function waitForAnswer(
  deps: StoredAnswerDeps,
  id: string,
  options: WaitOptions = {},
): Promise<PaymentRecord> {
  const deadline = nowMs(deps) + (deps.waitTimeoutMs ?? DEFAULT_WAIT_MS)
  let interval = deps.pollIntervalMs ?? DEFAULT_POLL_MS
  let record = options.first ?? (await deps.ledger.get(id))
  for (;;) {
    if (record && options.takeOver && ownerGone(record, nowMs(deps))) {
      record = (await options.takeOver(id)) ?? (await deps.ledger.get(id))
    }
    if (!record || !isInFlight(record.status) || nowMs(deps) >= deadline) break
    if (options.untilAbandoned && ownerAbandoned(record, nowMs(deps))) break
    await sleep(Math.min(interval, Math.max(1, deadline - nowMs(deps))))
    interval = Math.min(MAX_POLL_MS, interval * 1.5)
    record = await deps.ledger.get(id)
  }
  // A row is never deleted while a request can wait on it: a vanished one is a bug.
  if (!record) throw new AppError('internal_error', 'payment vanished from the ledger')
  return record
}

/** The answer a stored payment gives to every copy of its request. */
export async function answerFrom(
  deps: Pick<StoredAnswerDeps, 'ledger' | 'now'>,
  record: PaymentRecord,
  replayed: boolean,
  timings: PhaseTimings,
): Promise<PaidPreflightOutcome> {
  switch (record.status) {
    case 'settled': {
      const receipt = record.receiptId ? await deps.ledger.getReceipt(record.receiptId) : undefined
      // The ledger stores `settled` with its result and receipt in one transaction (a check
      // constraint forbids anything else): a settled row without them is a bug.
      if (!record.result || !receipt || !record.settleResponse) {
        throw new AppError('internal_error', 'settled payment without a stored answer')
      }
      return {
        kind: 'paid',
        result: record.result,
        receipt,
        settlement: record.settleResponse,
        replayed,
        timings,
      }
    }
    case 'failed': {
      const failure = record.failure
      if (failure?.kind === 'payment_required' && failure.code in PAYMENT_REASONS) {
        return {
          kind: 'payment_required',
          reason: failure.code as PaymentReason,
          ...(failure.facilitatorReason ? { facilitatorReason: failure.facilitatorReason } : {}),
          timings,
        }
      }
      const error = {
        code: isErrorCode(failure?.code) ? failure.code : ('internal_error' as const),
        message: failure?.message ?? 'the payment failed',
        retryAfter: 5,
      }
      const abandoned = failure?.kind === 'error' && failure.code === ABANDONED_CODE
      return errorOutcome(abandoned ? 'abandoned' : 'failed', error, timings)
    }
    case 'settle_pending':
      return pendingOutcome(record.settlementTx ?? undefined, timings)
    default:
      return inProgressOutcome(record.leaseUntil, nowMs(deps), timings)
  }
}

function isInFlight(status: PaymentStatus): boolean {
  return (IN_FLIGHT_STATUSES as readonly string[]).includes(status)
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
