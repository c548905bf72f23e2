import type { GuardError } from './guard-error.js'
import type { Finding } from './guard-responses.js'
import type { GuardCheck } from './viem-guard.js'

/** Base of every refusal by {@link withPreSendGuard}: nothing was sent. */
export class PreSendGuardError extends Error {
  override name = 'PreSendGuardError'
}

/** The guard's verdict was `block`: nothing was sent. */
export class TransactionBlockedError extends PreSendGuardError {
  override name = 'TransactionBlockedError'
  readonly check: GuardCheck
  readonly findings: Finding[]
  constructor(check: GuardCheck) {
    super(`the guard blocked this transaction: ${summary(check.findings, 'critical')}`)
    this.check = check
    this.findings = check.findings
  }
}

/** The verdict was `review` and no `onReview` approved it: nothing was sent. */
export class TransactionNeedsReviewError extends PreSendGuardError {
  override name = 'TransactionNeedsReviewError'
  readonly check: GuardCheck
  readonly findings: Finding[]
  constructor(check: GuardCheck) {
    super(`the guard asks for a review: ${summary(check.findings, 'warning')}`)
    this.check = check
    this.findings = check.findings
  }
}

/**
 * The guard cannot judge this transaction (contract creation, EIP-7702 authorizations, batched
 * calls, a chain other than Base): nothing was sent. Use the unwrapped client deliberately.
 */
export class TransactionNotCheckableError extends PreSendGuardError {
  override name = 'TransactionNotCheckableError'
}

/** The guard was down (unreachable, garbled, 5xx) and `failClosed` is on: nothing was sent. */
export class GuardUnavailableError extends PreSendGuardError {
  override name = 'GuardUnavailableError'
  /** Seconds the guard asked to wait, when it said. */
  readonly retryAfter: number | undefined
  constructor(cause: GuardError) {
    super(`the guard is unavailable, not sending blind: ${cause.message}`, { cause })
    this.retryAfter = cause.retryAfter
  }
}

function summary(findings: Finding[], severity: Finding['severity']): string {
  const relevant = findings.filter((f) => f.severity === severity)
  const shown = relevant.length > 0 ? relevant : findings
  return shown.map((f) => `${f.id} (${f.title})`).join(', ') || 'no findings given'
}
