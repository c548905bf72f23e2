import type { OpenAPIHono } from '@hono/zod-openapi'
import { FREE_ROUTES_PREFIX, ROUTES } from '@pre-send-guard/client/types'
import manifest from '../../package.json' with { type: 'json' }
import type { ErrorCode } from '../errors.js'
import { publicBaseUrl } from '../http/base-url.js'
import { codesByStatus } from '../http/error-status.js'
import { operationErrorCodes } from './route-error-codes.js'

/**
 * The OpenAPI document's own version (`info.version`): the service's, read from its
 * package.json (bundled into the build), so a release changes it in one place. It is OpenAPI 3.1.0.
 */
export const OPENAPI_VERSION: string = manifest.version

/** A JSON object of the document; its shape is only known where this module narrows it. */
type Json = Record<string, unknown>

/** One response of an operation, as far as this module edits it. */
interface DocResponse {
  headers?: Json
  [key: string]: unknown
}

/** One operation, as far as this module edits it. */
interface DocOperation {
  responses: Record<string, DocResponse>
  'x-payment-info'?: unknown
  [key: string]: unknown
}

/** The generated document, as far as this module edits it. */
interface Doc {
  paths?: Record<string, Record<string, DocOperation>>
  components?: { headers?: Json; schemas?: Json; [key: string]: unknown }
  [key: string]: unknown
}

/** Headers the service sets, described once and referenced from every response that carries them. */
const HEADERS: Json = {
  XRequestId: {
    description:
      'Identifies this request in the service log; echoed as `requestId` in error bodies.',
    schema: { type: 'string' },
  },
  RetryAfter: {
    description:
      'Seconds to wait before retrying (set on 429, 502 and 503 answers that can be retried).',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimit: {
    description:
      "IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): what is left of this client's bucket. Set only where rate limits are configured.",
    schema: { type: 'string' },
  },
  RateLimitPolicy: {
    description:
      'The policy behind `RateLimit` (quota and window). Set only where rate limits are configured.',
    schema: { type: 'string' },
  },
  PaymentRequired: {
    description:
      'x402 v2 PaymentRequired: base64 of its JSON (x402Version, resource, accepts, extensions).',
    required: true,
    schema: { type: 'string' },
  },
  PaymentResponse: {
    description:
      'x402 v2 SettlementResponse: base64 of its JSON (success, transaction, network, payer).',
    schema: { type: 'string' },
  },
}

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` })

const ERROR_REF = '#/components/schemas/Error'

/**
 * One error body per status (`Error422`...): the shared `Error` with its `error` narrowed to the
 * codes that status carries (`statusForCode`). An operation that can meet every one of them
 * points at it; one that meets fewer (`route-error-codes.ts`) gets the same shape with its own,
 * narrower list, so a client learns from each response which codes it can meet there.
 */
function errorBody(status: string, codes: readonly string[], whose: string): Json {
  return {
    description: `The error body of a ${status}: \`error\` is one of the codes ${whose}.`,
    allOf: [
      { $ref: ERROR_REF },
      { type: 'object', properties: { error: { type: 'string', enum: codes } } },
    ],
  }
}

const CODES_BY_STATUS: ReadonlyMap<string, readonly string[]> = new Map(
  [...codesByStatus()].map(([status, codes]) => [String(status), codes]),
)

/**
 * Points a response with the shared error body at the codes its operation can answer with its
 * status: the status's own body (`Error422`...) when that is all of them, else the same body
 * with the operation's narrower list. A declared error status none of the operation's codes
 * carries is a mistake in the route or in `route-error-codes.ts`, and fails the build.
 */
function narrowErrorBody(path: string, status: string, response: DocResponse, schemas: Json): void {
  const json = (response.content as Record<string, Json> | undefined)?.['application/json']
  const schema = json?.schema as Json | undefined
  const statusCodes = CODES_BY_STATUS.get(status)
  if (json === undefined || schema?.$ref !== ERROR_REF || statusCodes === undefined) return
  const operationCodes = operationErrorCodes(path)
  if (operationCodes === undefined) {
    throw new Error(`${path} has no entry in src/routes/route-error-codes.ts`)
  }
  const codes = statusCodes.filter((code) => operationCodes.has(code as ErrorCode))
  if (codes.length === 0) {
    throw new Error(`${path} declares ${status}, but none of its error codes carries that status`)
  }
  if (codes.length === statusCodes.length) {
    schemas[`Error${status}`] = errorBody(status, statusCodes, 'this status carries')
    json.schema = { $ref: `${ERROR_REF}${status}` }
  } else {
    json.schema = errorBody(status, codes, 'this operation answers with this status')
  }
}

/** Where the rate limits apply (see `app.ts`): the free POST routes and unpaid calls to the paid one. */
function rateLimited(path: string, method: string): boolean {
  return (
    method === 'post' &&
    (path.startsWith(FREE_ROUTES_PREFIX) || path === ROUTES.paidTransactionPreflight)
  )
}

/**
 * Adds what the route definitions do not say themselves: the headers of every response
 * (X-Request-Id everywhere, Retry-After on retryable failures, RateLimit where limits apply,
 * PAYMENT-REQUIRED and PAYMENT-RESPONSE on the paid route) and `servers`.
 */
export function completeDocument(doc: Doc, serverUrl: string): Doc {
  doc.servers = [{ url: serverUrl, description: 'This instance.' }]
  // No route needs credentials: the paid one is paid per call with x402 (PAYMENT-SIGNATURE),
  // not authenticated; only /metrics may ask for the operator's token.
  doc.security = []
  const schemas: Json = { ...doc.components?.schemas }
  doc.components = {
    ...doc.components,
    schemas,
    headers: { ...doc.components?.headers, ...HEADERS },
    securitySchemes: {
      metricsToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'METRICS_TOKEN, when the operator set one.',
      },
    },
  }
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      // What the server and the first middleware answer on every route, before the route runs.
      operation.responses['408'] ??= errorResponse(
        "`request_timeout`: the headers or the body did not arrive within the server's timeouts.",
      )
      operation.responses['431'] ??= errorResponse(
        '`headers_too_large`: PAYMENT-SIGNATURE over 16 KiB (or headers over 64 KiB).',
      )
      operation.responses = sortedByStatus(operation.responses)
      for (const [status, response] of Object.entries(operation.responses)) {
        narrowErrorBody(path, status, response, schemas)
        const headers: Json = { 'X-Request-Id': ref('XRequestId'), ...response.headers }
        if (['429', '502', '503'].includes(status)) headers['Retry-After'] = ref('RetryAfter')
        if (rateLimited(path, method)) {
          headers.RateLimit = ref('RateLimit')
          headers['RateLimit-Policy'] = ref('RateLimitPolicy')
        }
        if (operation['x-payment-info']) {
          if (status === '402') headers['PAYMENT-REQUIRED'] = ref('PaymentRequired')
          if (status === '200' || status === '402') {
            headers['PAYMENT-RESPONSE'] = {
              ...ref('PaymentResponse'),
              description:
                status === '200'
                  ? 'The settlement of this payment (always set on a 200).'
                  : 'Set when a settlement was attempted and failed.',
            }
          }
        }
        response.headers = headers
      }
    }
  }
  return doc
}

function errorResponse(description: string): DocResponse {
  return {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }
}

function sortedByStatus(responses: Record<string, DocResponse>): Record<string, DocResponse> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))
}

/** Mounts `GET /openapi.json`: the document generated from the routes, completed. */
export function registerOpenApiDocument(
  app: OpenAPIHono,
  deps: { publicBaseUrl: string | undefined },
): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: ROUTES.openapi,
    operationId: 'getOpenApiDocument',
    tags: ['discovery'],
    summary: 'This OpenAPI 3.1 document',
    responses: {
      200: {
        description: 'The document.',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  })
  app.get(ROUTES.openapi, (c) => {
    const baseUrl = publicBaseUrl(c, deps.publicBaseUrl)
    const doc = app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'Pre-Send Guard',
        version: OPENAPI_VERSION,
        description:
          'A pre-send transaction guard for programmatic EVM agents on Base: simulate, judge, never broadcast.',
        license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
      },
      servers: [{ url: baseUrl }],
      tags: [
        { name: 'preflight', description: 'Transaction, bundle and typed-data preflights.' },
        { name: 'evidence', description: 'Public pages as bounded, hashed markdown.' },
        { name: 'receipts', description: 'Signed PRE_SEND_PROOF_RECEIPTs.' },
        { name: 'discovery', description: 'What the service offers, for clients and indexers.' },
        { name: 'operations', description: 'Liveness, readiness and metrics, for operators.' },
      ],
    })
    // The generator's own type is stricter than what this module edits (extensions, headers).
    return c.json(completeDocument(doc as unknown as Doc, baseUrl))
  })
}
