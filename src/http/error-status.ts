import { ERROR_CODES, type ErrorCode } from '../errors.js'

/** Every HTTP status an error code can map to. */
export type ErrorStatus = ReturnType<typeof statusForCode>

/** The one HTTP status for each error code. */
export function statusForCode(
  code: ErrorCode,
): 400 | 401 | 402 | 403 | 404 | 405 | 408 | 409 | 422 | 429 | 431 | 500 | 502 | 503 {
  switch (code) {
    // Refused by the HTTP server before the app (not valid HTTP/1.1).
    case 'malformed_request':
    // The x402 payment-identifier extension's statuses (its spec's, not ours): an id outside
    // 16-128 of [A-Za-z0-9_-], or none where the server requires one.
    case 'invalid_payment_identifier':
    case 'payment_identifier_required':
      return 400
    // The payment-identifier already names another payment or another request body.
    case 'payment_identifier_conflict':
      return 409
    // The request's headers or body did not arrive within the server's timeouts.
    case 'request_timeout':
      return 408
    // Headers over the server's bound, or a PAYMENT-SIGNATURE over 16 KiB.
    case 'headers_too_large':
      return 431
    case 'invalid_request':
    // EIP-712 typed data that no wallet could sign as given (bad types, values or bounds).
    case 'invalid_typed_data':
    case 'invalid_json':
    case 'unsupported_content_type':
    case 'body_too_large':
    case 'unsupported_chain':
    // A user operation for an EntryPoint other than the canonical v0.6/v0.7/v0.8 ones.
    case 'unsupported_entry_point':
    case 'unsafe_url':
    // A host MetaMask's phishing list flags: refused before anything is fetched.
    case 'phishing_domain':
    case 'target_unreachable':
    // The reader reached the target and it answered an HTTP error (404, 500...). 422, not 502:
    // the reader is healthy and retrying the same URL will not turn an error page into evidence;
    // 502 stays reserved for reader trouble a client should retry (the reader itself unavailable).
    case 'target_error':
    // The reader declined the URL itself (its 451 for non-public or blocked targets).
    case 'reader_refused':
    // The node ran a bundle and refused it as a whole (a value beyond the balance, say).
    case 'simulation_refused':
      return 422
    case 'unauthorized':
      return 401
    // A browser page of a foreign Origin calling POST /mcp (DNS rebinding, cross-site pages).
    case 'origin_not_allowed':
      return 403
    case 'payment_required':
      return 402
    case 'not_found':
      return 404
    case 'method_not_allowed':
      return 405
    // One client spent its token bucket on a free route; Retry-After says when to come back.
    case 'rate_limited':
      return 429
    case 'reader_unavailable':
    case 'facilitator_unavailable':
    // The Base RPC offers no eth_simulateV1, which bundles and state overrides need.
    case 'simulation_unavailable':
      return 502
    case 'rpc_unavailable':
    case 'service_starting':
    case 'settlement_pending':
    case 'payment_in_progress':
    // The payment ledger (PGlite or PostgreSQL) cannot be read or written: retry later.
    case 'ledger_unavailable':
    // `/readyz`: a dependency (RPC, ledger, payment rail) is not usable right now.
    case 'not_ready':
    // Every preflight slot of the instance is taken (MAX_PREFLIGHTS_IN_FLIGHT): shed at once.
    case 'overloaded':
      return 503
    case 'internal_error':
      return 500
  }
}

/**
 * The codes each status can carry, in {@link ERROR_CODES} order: derived from
 * {@link statusForCode}, so the OpenAPI document and the docs' table cannot drift from it.
 */
export function codesByStatus(): Map<ErrorStatus, ErrorCode[]> {
  const byStatus = new Map<ErrorStatus, ErrorCode[]>()
  for (const code of ERROR_CODES) {
    const status = statusForCode(code)
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return byStatus
}
