import type { ErrorIssue } from '@pre-send-guard/client/schemas'
import { ERROR_CODES, type ErrorCode } from '@pre-send-guard/client/types'

/**
 * Stable error codes, shared with buyers (`@pre-send-guard/client/types`). Once published, a
 * code is API: add new ones, never rename. Each maps to exactly one HTTP status, in the HTTP
 * layer (`src/http/error-status.ts`): the domain raises typed failures and knows no HTTP status.
 */
export { ERROR_CODES, type ErrorCode }

/** Whether `code` is one of {@link ERROR_CODES} (a stored failure's code, say). */
export function isErrorCode(code: string | undefined): code is ErrorCode {
  return (ERROR_CODES as readonly (string | undefined)[]).includes(code)
}

/** One problem with a request, and the service's one error body (declared with the answers). */
export type { ErrorBody, ErrorIssue } from '@pre-send-guard/client/schemas'

/** A failure with a stable code; the domain and routes throw it and one HTTP handler renders it. */
export class AppError extends Error {
  override name = 'AppError'
  readonly code: ErrorCode
  readonly issues: ErrorIssue[]
  /** Seconds, sent as `Retry-After` for 429/502/503-class failures. */
  readonly retryAfter: number | undefined
  constructor(
    code: ErrorCode,
    message: string,
    options: { issues?: ErrorIssue[]; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.issues = options.issues ?? []
    this.retryAfter = options.retryAfter
  }
}

/** The Base RPC failed, timed out or answered something unusable (`rpc_unavailable`). */
export class RpcUnavailableError extends AppError {
  override name = 'RpcUnavailableError'
  constructor(message: string, cause?: unknown) {
    super('rpc_unavailable', message, { retryAfter: 5, cause })
  }
}

/** The payment facilitator is unreachable, timed out or answered garbage. */
export class FacilitatorUnavailableError extends AppError {
  override name = 'FacilitatorUnavailableError'
  constructor(message: string, cause?: unknown) {
    super('facilitator_unavailable', message, { retryAfter: 5, cause })
  }
}

/**
 * The payment ledger failed (connection lost, timeout, storage error): the
 * request may be retried with the same PAYMENT-SIGNATURE, it is never charged twice.
 */
export class LedgerUnavailableError extends AppError {
  override name = 'LedgerUnavailableError'
  constructor(message: string, cause?: unknown) {
    super('ledger_unavailable', message, { retryAfter: 5, cause })
  }
}

/**
 * An error and every error along its cause chain, AggregateError members included: bounded in
 * depth, for telling an outage from an answer.
 */
export function errorChain(error: unknown, depth = 6): object[] {
  if (depth === 0 || error === null || typeof error !== 'object') return []
  const { errors, cause } = error as { errors?: unknown; cause?: unknown }
  return [
    error,
    ...(Array.isArray(errors) ? errors.flatMap((e) => errorChain(e, depth - 1)) : []),
    ...errorChain(cause, depth - 1),
  ]
}

/**
 * The `code` strings along an error's cause chain ({@link errorChain}): a Node socket's
 * `ECONNREFUSED`, PostgreSQL's SQLSTATE.
 */
export function errorCodes(error: unknown): string[] {
  return errorChain(error).flatMap((e) => {
    const { code } = e as { code?: unknown }
    return typeof code === 'string' ? [code] : []
  })
}
