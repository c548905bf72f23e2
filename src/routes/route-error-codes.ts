import { ROUTES } from '@pre-send-guard/client/types'
import type { ErrorCode } from '../errors.js'
import { DEVNET_FAUCET_PATH } from './devnet-faucet.js'
import { HEALTHZ_PATH, METRICS_PATH, READYZ_PATH } from './operations.js'

/**
 * Which error codes each operation of the OpenAPI document can answer: the per-route half of
 * the error vocabulary (`src/http/error-status.ts` is the per-status half: one status per code).
 * The document narrows every error response of an operation to the codes listed here that
 * carry that status, so a client learns from each response which codes it can meet there.
 *
 * Where a new code is raised, list it under every operation that can now answer it: a test
 * that meets it on an unlisted operation fails, because every answer a test receives is held
 * to the served document (`test/support/openapi-contract.ts`).
 */

/** What the server answers on any route, before the route runs (its timeouts and header bound). */
const BEFORE_ANY_ROUTE = ['request_timeout', 'headers_too_large'] as const satisfies ErrorCode[]

/**
 * A mainnet instance waiting at start-up for its RPC or database answers every path but
 * `/healthz` and `/readyz` with this (`src/service/starting.ts`).
 */
const STARTING = ['service_starting'] as const satisfies ErrorCode[]

/** A JSON body the route could not take: the body parser's and the request schema's refusals. */
const JSON_BODY = [
  'invalid_request',
  'invalid_json',
  'unsupported_content_type',
  'body_too_large',
] as const satisfies ErrorCode[]

/** A route that reads the Base RPC. */
const READS_CHAIN = ['rpc_unavailable'] as const satisfies ErrorCode[]

/** A free POST route (and the paid route's unpaid calls): the per-client rate limit. */
const RATE_LIMITED = ['rate_limited'] as const satisfies ErrorCode[]

/**
 * A route that runs a preflight: shed with 503 `overloaded` when every slot of the instance is
 * taken (`src/http/preflight-admission.ts`).
 */
const ADMITTED = ['overloaded'] as const satisfies ErrorCode[]

/** A free preflight: a JSON body judged against the chain, rate limited, admitted. */
const FREE_PREFLIGHT = [...JSON_BODY, ...READS_CHAIN, ...RATE_LIMITED, ...STARTING, ...ADMITTED]

/** A route that reads the payment ledger. */
const READS_LEDGER = ['ledger_unavailable'] as const satisfies ErrorCode[]

/** The codes each documented operation can answer, by path (every path has one method). */
const OPERATION_CODES: Readonly<Record<string, readonly ErrorCode[]>> = {
  [HEALTHZ_PATH]: [],
  [READYZ_PATH]: ['not_ready'],
  [METRICS_PATH]: ['unauthorized', ...STARTING],
  [ROUTES.discovery]: STARTING,
  [ROUTES.openapi]: STARTING,
  [ROUTES.transactionPreflight]: FREE_PREFLIGHT,
  [ROUTES.typedDataPreflight]: [...FREE_PREFLIGHT, 'invalid_typed_data'],
  [ROUTES.bundlePreflight]: [...FREE_PREFLIGHT, 'simulation_refused', 'simulation_unavailable'],
  [ROUTES.authorizationPreflight]: FREE_PREFLIGHT,
  [ROUTES.userOperationPreflight]: [
    ...FREE_PREFLIGHT,
    'unsupported_entry_point',
    'simulation_refused',
    'simulation_unavailable',
  ],
  [ROUTES.evidence]: [
    ...JSON_BODY,
    ...RATE_LIMITED,
    ...STARTING,
    'unsafe_url',
    'phishing_domain',
    'target_unreachable',
    'target_error',
    'reader_refused',
    'reader_unavailable',
  ],
  [ROUTES.paidTransactionPreflight]: [
    ...JSON_BODY,
    ...READS_CHAIN,
    ...RATE_LIMITED,
    ...STARTING,
    ...READS_LEDGER,
    ...ADMITTED,
    'invalid_payment_identifier',
    'payment_identifier_required',
    'payment_identifier_conflict',
    'facilitator_unavailable',
    'payment_in_progress',
    'settlement_pending',
  ],
  [ROUTES.receipt]: ['not_found', ...READS_LEDGER, ...STARTING],
  [ROUTES.receiptByAuthorization]: ['not_found', 'invalid_request', ...READS_LEDGER, ...STARTING],
  [DEVNET_FAUCET_PATH]: [...JSON_BODY, ...READS_CHAIN],
}

/**
 * The error codes the operation at `path` can answer, the server's own included; `undefined`
 * for a path this table does not know (the document then fails to build: see
 * `openapi-document.ts`).
 */
export function operationErrorCodes(path: string): ReadonlySet<ErrorCode> | undefined {
  const codes = OPERATION_CODES[path]
  return codes === undefined ? undefined : new Set([...BEFORE_ANY_ROUTE, ...codes])
}

/**
 * Codes no documented operation answers, and why: the server's refusal of what is not HTTP,
 * answers off the document (unknown paths, MCP, a bug) and a code kept for the API's sake.
 */
export const CODES_OUTSIDE_OPERATIONS: Readonly<Partial<Record<ErrorCode, string>>> = {
  malformed_request: 'written by the HTTP server before any route, to what is not HTTP/1.1',
  not_found: 'also any unknown path',
  method_not_allowed: 'the MCP endpoint (not in the OpenAPI document) refuses GET',
  origin_not_allowed:
    'the MCP endpoint (not in the OpenAPI document) refuses a browser page of a foreign Origin',
  payment_required: "the paid route's 402, whose body is the x402 challenge, not an error body",
  internal_error: 'a bug, on any route',
  unsupported_chain: 'reserved: never answered today',
}
