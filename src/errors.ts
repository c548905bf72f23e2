/**
 * Stable error codes. Once published, a code is API: add new ones, never rename.
 * Each maps to exactly one HTTP status, in the HTTP layer (`src/http/error-status.ts`): the
 * domain raises typed failures and knows no HTTP status.
 */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_typed_data',
  'invalid_json',
  'unsupported_content_type',
  'body_too_large',
  'headers_too_large',
  'request_timeout',
  'malformed_request',
  'unsupported_chain',
  'unsafe_url',
  'target_unreachable',
  'target_error',
  'reader_refused',
  'payment_required',
  'not_found',
  'method_not_allowed',
  'rpc_unavailable',
  'reader_unavailable',
  'facilitator_unavailable',
  'settlement_pending',
  'payment_in_progress',
  'ledger_unavailable',
  'service_starting',
  'rate_limited',
  'not_ready',
  'unauthorized',
  'simulation_unavailable',
  'simulation_refused',
  'invalid_payment_identifier',
  'payment_identifier_required',
  'payment_identifier_conflict',
  'internal_error',
] as const

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number]

/** Whether `code` is one of {@link ERROR_CODES} (a stored failure's code, say). */
export function isErrorCode(code: string | undefined): code is ErrorCode {
  return (ERROR_CODES as readonly (string | undefined)[]).includes(code)
}

/** One problem with a request, pointing at the offending field. */
export interface ErrorIssue {
  path: string
  message: string
}

/** The service's one error body. */
export interface ErrorBody {
  error: ErrorCode
  message: string
  issues: ErrorIssue[]
  requestId?: string
}

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
