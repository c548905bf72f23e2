import type { SettleResponse } from '@x402/core/types'
import type { Hex } from 'viem'
import type { ErrorCode, ErrorIssue } from '../../errors.js'
import type { PreflightResult } from '../preflight/run-preflight.js'
import type { Receipt } from '../receipt/receipt.js'
import type { PaymentReason } from './payment-reasons.js'

/** Wall time of each phase of the call that did the work (ms); absent when skipped. */
export interface PhaseTimings {
  verifyMs?: number
  preflightMs?: number
  settleMs?: number
}

/** The wire error an outcome other than `paid` and `payment_required` is answered with. */
export interface OutcomeError {
  code: ErrorCode
  message: string
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number
  issues?: ErrorIssue[]
}

/** 200: the result, its receipt and the settlement (PAYMENT-RESPONSE). */
export interface PaidOutcome {
  kind: 'paid'
  result: PreflightResult
  receipt: Receipt
  settlement: SettleResponse
  /** True when this is the stored answer of an earlier (or concurrent) identical call. */
  replayed: boolean
  timings: PhaseTimings
}

/** 402: the payment is missing or refused; nothing was charged. */
export interface PaymentRequiredOutcome {
  kind: 'payment_required'
  reason: PaymentReason
  detail?: string
  facilitatorReason?: string
  /** The failed settlement, for the PAYMENT-RESPONSE header. */
  settlement?: SettleResponse
  timings: PhaseTimings
}

/**
 * Every way a paid call ends, as data: each step of the paid path returns one, and the route
 * maps each kind to its status, headers and body (a throw is a bug, or a port that failed under
 * the call, which `handlePaidPreflight` turns into `unavailable`). Kinds, one idea each:
 * - `paid` (200), `payment_required` (402);
 * - `pending` (503 `settlement_pending`): settlement may have been sent; the chain decides;
 * - `in_progress` (503 `payment_in_progress`): a living request holds the payment (its lease);
 * - `abandoned` (503 `payment_in_progress`, the code buyers know): the request that held the
 *   payment stopped before settling; nothing was charged and a retry claims it again;
 * - `unconfirmed` (502 `facilitator_unavailable`): the facilitator reported a settlement the
 *   chain does not show;
 * - `unavailable` (502/503): the facilitator, the RPC or the ledger failed; nothing charged;
 * - `refused` (400/409): the call's payment-identifier is invalid, missing or names another call;
 * - `failed`: the payment failed earlier on our side (a stored failure): its copies get its code.
 */
export type PaidPreflightOutcome =
  | PaidOutcome
  | PaymentRequiredOutcome
  | ({ kind: 'pending'; transaction: Hex | undefined; timings: PhaseTimings } & OutcomeError)
  | ({ kind: 'in_progress'; leaseUntil: Date; timings: PhaseTimings } & OutcomeError)
  | ({ kind: 'abandoned'; timings: PhaseTimings } & OutcomeError)
  | ({ kind: 'unconfirmed'; transaction: Hex; timings: PhaseTimings } & OutcomeError)
  | ({ kind: 'unavailable'; timings: PhaseTimings } & OutcomeError)
  | ({ kind: 'refused'; timings: PhaseTimings } & OutcomeError)
  | ({ kind: 'failed'; timings: PhaseTimings } & OutcomeError)

/** The outcomes answered with an error body. */
export type ErrorOutcome = Exclude<PaidPreflightOutcome, PaidOutcome | PaymentRequiredOutcome>

/** 503 `settlement_pending`: the chain decides, and a retry gets the outcome. */
export function pendingOutcome(transaction: Hex | undefined, timings: PhaseTimings): ErrorOutcome {
  return {
    kind: 'pending',
    transaction,
    code: 'settlement_pending',
    message: `the settlement outcome is not known yet${transaction ? ` (transaction ${transaction})` : ''}; it is resolved from the chain: retry with the same PAYMENT-SIGNATURE to get the result and receipt (or the reason nothing was charged); you will never be charged twice`,
    retryAfter: 5,
    timings,
  }
}

/**
 * 503 `payment_in_progress` for a payment still in flight when a copy's wait ran out. Says what
 * is true: an owner holds it until its lease runs out; if it died, the first retry after that
 * takes the payment over and finishes it from the chain.
 */
export function inProgressOutcome(
  leaseUntil: Date,
  nowMs: number,
  timings: PhaseTimings,
): ErrorOutcome {
  const leftMs = leaseUntil.getTime() - nowMs
  const retryAfter = Math.min(30, Math.max(1, Math.ceil(leftMs / 1000)))
  if (leftMs <= 0) {
    return {
      kind: 'abandoned',
      code: 'payment_in_progress',
      message:
        'the request that worked on this payment stopped; retry with the same PAYMENT-SIGNATURE to recover it from the chain',
      retryAfter,
      timings,
    }
  }
  return {
    kind: 'in_progress',
    leaseUntil,
    code: 'payment_in_progress',
    message: `a request is working on this payment (its lease runs until ${leaseUntil.toISOString()}); retry with the same PAYMENT-SIGNATURE in ${retryAfter} s: if that request stopped, the retry recovers the payment from the chain`,
    retryAfter,
    timings,
  }
}

/**
 * 502 `facilitator_unavailable`: the facilitator reported settlement in `transaction`, which
 * the chain does not show paying for this authorization; nothing recorded as settled.
 */
export function unconfirmedOutcome(transaction: Hex, timings: PhaseTimings): ErrorOutcome {
  return {
    kind: 'unconfirmed',
    transaction,
    code: 'facilitator_unavailable',
    message: `the payment facilitator reported settlement in transaction ${transaction}, but the chain does not show that transaction paying for this authorization; nothing was recorded as settled and no receipt was issued. The payment stays pending until the chain decides: retry with the same PAYMENT-SIGNATURE; you will never be charged twice`,
    retryAfter: 5,
    timings,
  }
}

/** An error outcome of `kind` carrying `error`'s code, message, Retry-After and issues. */
export function errorOutcome(
  kind: 'unavailable' | 'refused' | 'failed' | 'abandoned',
  error: { [K in keyof OutcomeError]: OutcomeError[K] | undefined } & {
    code: ErrorCode
    message: string
  },
  timings: PhaseTimings,
): ErrorOutcome {
  return {
    kind,
    code: error.code,
    message: error.message,
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    ...(error.issues && error.issues.length > 0 ? { issues: error.issues } : {}),
    timings,
  }
}
