import type { Context, MiddlewareHandler, TypedResponse } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { JSONParsed } from 'hono/utils/types'

/** Documents a browser renders (and may frame, or run script in). */
const DOCUMENT_TYPES = /^(text\/html|image\/svg\+xml)\b/i

/** What hono's `requestId` takes from a client's `X-Request-Id`: at most 255 of [\w=-]. */
const CLIENT_REQUEST_ID = /^[\w\-=]{1,255}$/

/**
 * An answer's request id: the client's own `X-Request-Id` when it is at most 255 of
 * `[A-Za-z0-9_=-]` (hono's `requestId` rules: always ASCII), else a new UUID.
 */
export function requestIdOf(client: string | string[] | undefined): string {
  return typeof client === 'string' && CLIENT_REQUEST_ID.test(client) ? client : crypto.randomUUID()
}

/** The CORS side of {@link answerHeaders}. */
export interface AnswerCors {
  /** Whether a page on another origin may call `path`. */
  applies: (path: string) => boolean
  /** Answers a CORS preflight (`OPTIONS`) on such a path (hono's `cors`). */
  preflight: MiddlewareHandler
  /** `Access-Control-Allow-Origin` on every other answer there. */
  allowOrigin: string
  /** `Access-Control-Expose-Headers` on every other answer there. */
  exposeHeaders: string
}

/**
 * Context variables (not a WeakMap or WeakSet over each request's objects: short-lived keys
 * cost the garbage collector more than the lookups save): the CORS of a request it applies
 * to, and the answer {@link completeAnswer} built.
 */
const CORS_KEY = 'answerCors'
const COMPLETE_KEY = 'completeAnswer'

/**
 * The headers every answer carries, set on the route's own response (one middleware, outermost):
 * - `X-Request-Id`: the client's own when it is at most 255 of `[A-Za-z0-9_=-]`, else a new
 *   UUID (hono's `requestId` rules), also in `c.get('requestId')` for the route and the log;
 * - `X-Content-Type-Options: nosniff` on all (a JSON body that quotes a page or a token's name
 *   is never sniffed into HTML or script); on HTML pages and SVG, the pages'
 *   Content-Security-Policy (`csp`, which names their inline script and style by hash),
 *   `frame-ancestors 'none'` with `X-Frame-Options: DENY` for older browsers, and
 *   `Referrer-Policy: no-referrer` (no page's URL leaves with a link);
 * - on the paths `cors` applies to, `Access-Control-Allow-Origin` and
 *   `Access-Control-Expose-Headers`; their `OPTIONS` preflights are `cors.preflight`'s.
 *
 * Written once the route has answered, never before: a header set earlier would make hono
 * keep a `Headers` of its own and copy it into every answer. An answer built by
 * {@link completeAnswer} carries them already and is left as it is.
 */
export function answerHeaders(csp: string, cors: AnswerCors): MiddlewareHandler {
  return async (c, next) => {
    const requestId = requestIdOf(c.req.header('x-request-id'))
    c.set('requestId', requestId)
    const crossOrigin = cors.applies(c.req.path)
    if (crossOrigin) c.set(CORS_KEY, cors)
    if (crossOrigin && c.req.method === 'OPTIONS') {
      // hono's `cors` answers a preflight itself (not the route, nor the middlewares after this).
      const preflight = await cors.preflight(c, next)
      if (preflight) c.res = preflight
    } else await next()
    if (c.res === (c.get(COMPLETE_KEY) as CompleteParts | undefined)?.answer) return
    const headers = c.res.headers
    headers.set('X-Request-Id', requestId)
    headers.set('X-Content-Type-Options', 'nosniff')
    if (crossOrigin && c.req.method !== 'OPTIONS') {
      headers.set('Access-Control-Allow-Origin', cors.allowOrigin)
      headers.set('Access-Control-Expose-Headers', cors.exposeHeaders)
    }
    if (DOCUMENT_TYPES.test(headers.get('content-type') ?? '')) {
      headers.set('Content-Security-Policy', csp)
      headers.set('X-Frame-Options', 'DENY')
      headers.set('Referrer-Policy', 'no-referrer')
    }
  }
}

/** A complete answer's parts, kept so that a later layer can add fields ({@link addAnswerFields}). */
interface CompleteParts {
  answer: Response
  status: number
  body: string
  /** Its fields: lower-case names in a `Headers`' order, then `Content-Length`. */
  record: Record<string, string>
}

/**
 * An answer with every header as one plain record, the ones {@link answerHeaders} would add
 * included: @hono/node-server writes such a record as it is, with no `Headers` built, filled
 * and iterated on the way (the unpaid 402's and the free preflights' path: bench/unpaid-402.ts,
 * bench/service.ts). The record is in the order a `Headers` iterates (lower-case names,
 * sorted), then `Content-Length`, so the bytes on the wire are the ones `c.body(body, status,
 * headers)` would send. `headers` are the route's own, lower-case and sorted, each between
 * `access-control-*` and `x-*` (as `cache-control`, `content-type`, `payment-*`,
 * `server-timing` are). Only for a JSON (never HTML) answer that no earlier middleware put
 * a header on with `c.header`; a later middleware adds its fields with {@link addAnswerFields}.
 */
export function completeAnswer(
  c: Context,
  status: number,
  body: string,
  headers: Readonly<Record<string, string>>,
): Response {
  const cors = c.get(CORS_KEY) as AnswerCors | undefined
  // Built in order, without a sort: the names fall where they are written.
  const fields: Record<string, string> = cors
    ? {
        'access-control-allow-origin': cors.allowOrigin,
        'access-control-expose-headers': cors.exposeHeaders,
      }
    : {}
  for (const name in headers) fields[name] = headers[name] as string
  fields['x-content-type-options'] = 'nosniff'
  fields['x-request-id'] = c.get('requestId') as string
  return completed(c, status, body, fields)
}

/**
 * A JSON answer of `value` with {@link completeAnswer}: the text, status and headers of
 * `c.json(value, status)` under {@link answerHeaders}, typed as `c.json`'s answer.
 */
export function jsonAnswer<T, S extends ContentfulStatusCode>(
  c: Context,
  value: T,
  status: S,
): TypedResponse<JSONParsed<T>, S, 'json'> {
  return completeAnswer(c, status, JSON.stringify(value), JSON_FIELDS) as unknown as TypedResponse<
    JSONParsed<T>,
    S,
    'json'
  >
}
const JSON_FIELDS = { 'content-type': 'application/json' } as const

/**
 * Sets `fields` on the route's answer (a middleware's, after `next()`): on a complete answer
 * ({@link completeAnswer}) it is rebuilt with them in place, as a `Headers` would order them,
 * so the bytes are those of the same fields set on `c.res.headers` of a `c.json` answer.
 */
export function addAnswerFields(c: Context, fields: Readonly<Record<string, string>>): void {
  const complete = c.get(COMPLETE_KEY) as CompleteParts | undefined
  if (complete === undefined || complete.answer !== c.res) {
    for (const name in fields) c.res.headers.set(name, fields[name] as string)
    return
  }
  // The record's names are sorted already: the new ones (a few) are merged in, not sorted again.
  const added = Object.keys(fields)
    .map((name) => [name.toLowerCase(), fields[name] as string] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const sorted: Record<string, string> = {}
  let next = 0
  for (const name in complete.record) {
    if (name === 'Content-Length') continue
    for (let field = added[next]; field !== undefined && field[0] <= name; field = added[++next])
      sorted[field[0]] = field[1]
    sorted[name] ??= complete.record[name] as string
  }
  for (const [name, value] of added.slice(next)) sorted[name] = value
  // Cleared first: hono's `c.res` setter copies the old answer's fields into a new one through
  // a `Headers` (which would also move `Content-Length` among them).
  c.res = undefined
  c.res = completed(c, complete.status, complete.body, sorted)
}

/** The complete answer of `record`'s fields (in a `Headers`' order) and its `Content-Length`. */
function completed(
  c: Context,
  status: number,
  body: string,
  record: Record<string, string>,
): Response {
  // Where @hono/node-server puts it after a `Headers`' fields (left to Node, it would come
  // after Date and Connection).
  record['Content-Length'] = String(Buffer.byteLength(body))
  const answer = new Response(body, { status, headers: record })
  c.set(COMPLETE_KEY, { answer, status, body, record } satisfies CompleteParts)
  return answer
}
