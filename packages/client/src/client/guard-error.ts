import { PreSendGuardBaseError } from './base-error.js'
import type { ChallengeCheck } from './check-challenge.js'

/**
 * Codes the buyer kit raises itself; every other code is the service's own `error` code
 * (`invalid_request`, `rpc_unavailable`, `payment_required`, `settlement_pending`...).
 */
export type GuardClientErrorCode =
  /** The guard could not be reached, or did not answer in time. */
  | 'guard_unreachable'
  /** The guard answered something the kit cannot use (not JSON, missing fields). */
  | 'invalid_response'
  /** The unpaid 402 did not match discovery: nothing was paid (spec 1.5 step 4). */
  | 'challenge_mismatch'
  /** A paid call was asked of a client created without `payer`. */
  | 'payer_missing'
  /** The payment could not be created or signed: nothing was sent. */
  | 'payment_failed'
  /** A paid preflight's receipt does not verify against discovery (viem wrapper). */
  | 'receipt_invalid'
  /** The guard checked on another environment than the wallet expects (viem wrapper). */
  | 'environment_mismatch'
  /** Discovery names a network this kit does not know (not one of `NETWORKS`). */
  | 'network_unsupported'

/** A failed guard call: the service's `error` code (or a {@link GuardClientErrorCode}). */
export class GuardError extends PreSendGuardBaseError {
  override name = 'GuardError'
  /** Stable snake_case code. */
  readonly code: GuardClientErrorCode | (string & {})
  /** HTTP status of the guard's answer; undefined when there was none. */
  readonly status: number | undefined
  /** Seconds to wait before retrying, from `Retry-After` (502/503). */
  readonly retryAfter: number | undefined
  /** Field problems of a 422, as the service lists them. */
  readonly issues: { path: string; message: string }[]
  readonly requestId: string | undefined
  /** On a 402: the service's `reason` (e.g. `insufficient_funds`). */
  readonly reason: string | undefined
  /** On `challenge_mismatch`: every check, passed or not. */
  readonly checks: ChallengeCheck[] | undefined
  /**
   * The `PAYMENT-SIGNATURE` sent, on every error raised after a payment left (a 5xx such as 503
   * `settlement_pending`, a lost connection, a garbled 200, a receipt that does not verify, and
   * a 4xx refusal of the payment too). See {@link GuardError.paymentPending}.
   */
  readonly paymentSignature: string | undefined

  constructor(
    code: GuardClientErrorCode | (string & {}),
    message: string,
    options: {
      status?: number | undefined
      retryAfter?: number | undefined
      issues?: { path: string; message: string }[]
      requestId?: string | undefined
      reason?: string | undefined
      checks?: ChallengeCheck[]
      paymentSignature?: string | undefined
      cause?: unknown
    } = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause })
    this.code = code
    this.status = options.status
    this.retryAfter = options.retryAfter
    this.issues = options.issues ?? []
    this.requestId = options.requestId
    this.reason = options.reason
    this.checks = options.checks
    this.paymentSignature = options.paymentSignature
  }

  /**
   * True when a payment left and the guard did not refuse it with a 4xx: it may have been
   * charged. Retry with `paidPreflight(tx, { paymentSignature })`, never with a new payment.
   */
  get paymentPending(): boolean {
    const refused = this.status !== undefined && this.status >= 400 && this.status < 500
    return this.paymentSignature !== undefined && !refused
  }

  /** A copy of this error that carries `paymentSignature` (a payment left before it). */
  withPaymentSignature(paymentSignature: string): GuardError {
    if (this.paymentSignature !== undefined) return this
    return new GuardError(this.code, this.shortMessage, {
      status: this.status,
      retryAfter: this.retryAfter,
      issues: this.issues,
      requestId: this.requestId,
      reason: this.reason,
      ...(this.checks ? { checks: this.checks } : {}),
      paymentSignature,
      cause: this.cause,
    })
  }

  /** True when the guard is down rather than refusing: unreachable, garbled, or a 5xx. */
  get unavailable(): boolean {
    return (
      this.code === 'guard_unreachable' ||
      this.code === 'invalid_response' ||
      (this.status !== undefined && this.status >= 500)
    )
  }
}
