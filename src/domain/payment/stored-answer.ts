import type { Hex } from 'viem'
import { AppError, isErrorCode } from '../../errors.js'
import { canonicalJsonHash } from '../receipt/canonical-json.js'
import type { PaidPreflightOutcome, PhaseTimings } from './paid-preflight-outcome.js'
import {
  IN_FLIGHT_STATUSES,
  type PaymentLedger,
  type PaymentRecord,
  type PaymentStatus,
} from './payment-ledger.js'
import { PAYMENT_REASONS, type PaymentReason } from './payment-reasons.js'
import { ownerAbandoned, ownerGone } from './payment-recovery.js'

/** What answering from the ledger needs: the ledger, and the bounds of waiting on it. */
export interface StoredAnswerDeps {
  ledger: PaymentLedger
  /**
   * How long a copy of a payment waits for the request already working on it (ms, default
   * 10 s) before answering 503 `payment_in_progress` with Retry-After.
   */
  waitTimeoutMs?: number
  /** First poll interval of that wait (ms); it grows to 500 ms. */
  pollIntervalMs?: number
  /**
   * Takes over a payment whose owner is gone and resolves it from the chain; returns the
   * record after, or undefined when someone else owns it (see `recoverPayment`).
   */
  recover?: (id: string) => Promise<PaymentRecord | undefined>
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
  /**
   * Claims the payment and works on it, for when its owner died before sending anything: the
   * waiting copy takes it over as soon as the lease runs out instead of answering 503 and
   * leaving it to the buyer's next retry (up to the whole wait later).
   */
  takeOver?: () => Promise<PaidPreflightOutcome>,
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
  const settled = await waitForAnswer(deps, copy.id, existing, takeOver !== undefined)
  // Abandoned: the lease ran out, or the reconciler got there first and marked it failed (the
  // soak saw the copy answer 503 then, and the payment wait for the buyer's next retry).
  if (takeOver && ownerAbandoned(settled)) return takeOver()
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

/**
 * Polls the ledger (25 ms growing to 500 ms) until the payment leaves the in-flight states, or
 * the bounded wait runs out; then the record as it is (in flight: 503 `payment_in_progress`).
 * A payment that may have been sent and whose owner is gone (lease run out) is taken over and
 * resolved from the chain right away, when `recover` is given.
 */
export async function waitForAnswer(
  deps: StoredAnswerDeps,
  id: string,
  first?: PaymentRecord,
  /** Stop as soon as the owner abandoned the payment before settling (see `ownerAbandoned`). */
  untilAbandoned = false,
): Promise<PaymentRecord> {
  const deadline = Date.now() + (deps.waitTimeoutMs ?? DEFAULT_WAIT_MS)
  let interval = deps.pollIntervalMs ?? DEFAULT_POLL_MS
  let record = first ?? (await deps.ledger.get(id))
  for (;;) {
    if (record && deps.recover && ownerGone(record)) {
      record = (await deps.recover(id)) ?? (await deps.ledger.get(id))
    }
    if (!record || !isInFlight(record.status) || Date.now() >= deadline) break
    if (untilAbandoned && ownerAbandoned(record)) break
    await sleep(Math.min(interval, Math.max(1, deadline - Date.now())))
    interval = Math.min(MAX_POLL_MS, interval * 1.5)
    record = await deps.ledger.get(id)
  }
  if (!record) throw new AppError('internal_error', 'payment vanished from the ledger')
  return record
}

/** The answer a stored payment gives to every copy of its request. */
export async function answerFrom(
  deps: Pick<StoredAnswerDeps, 'ledger'>,
  record: PaymentRecord,
  replayed: boolean,
  timings: PhaseTimings,
): Promise<PaidPreflightOutcome> {
  switch (record.status) {
    case 'settled': {
      const receipt = record.receiptId ? await deps.ledger.getReceipt(record.receiptId) : undefined
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
      throw new AppError(
        isErrorCode(failure?.code) ? failure.code : 'internal_error',
        failure?.message ?? 'the payment failed',
        { retryAfter: 5 },
      )
    }
    case 'settle_pending':
      throw pendingError(record.settlementTx ?? undefined)
    default: {
      // Say what is true: an owner holds the payment until its lease runs out; if it died,
      // the first retry after that takes the payment over and finishes it from the chain.
      const leftMs = record.leaseUntil.getTime() - Date.now()
      const retryAfter = Math.min(30, Math.max(1, Math.ceil(leftMs / 1000)))
      throw new AppError(
        'payment_in_progress',
        leftMs > 0
          ? `a request is working on this payment (its lease runs until ${record.leaseUntil.toISOString()}); retry with the same PAYMENT-SIGNATURE in ${retryAfter} s: if that request stopped, the retry recovers the payment from the chain`
          : 'the request that worked on this payment stopped; retry with the same PAYMENT-SIGNATURE to recover it from the chain',
        { retryAfter },
      )
    }
  }
}

/** 503 `settlement_pending`: the chain decides, and a retry gets the outcome. */
export function pendingError(transaction: Hex | undefined): AppError {
  return new AppError(
    'settlement_pending',
    `the settlement outcome is not known yet${transaction ? ` (transaction ${transaction})` : ''}; it is resolved from the chain: retry with the same PAYMENT-SIGNATURE to get the result and receipt (or the reason nothing was charged); you will never be charged twice`,
    { retryAfter: 5 },
  )
}

function isInFlight(status: PaymentStatus): boolean {
  return (IN_FLIGHT_STATUSES as readonly string[]).includes(status)
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
