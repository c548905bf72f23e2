import type { Context, MiddlewareHandler } from 'hono'
import { AppError } from '../errors.js'

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

/**
 * What @hono/zod-openapi's media-type gate accepts as JSON (its `jsonRequestRegex`). Ours is
 * more forgiving (`application/json ; charset=utf-8`); only a header that passes ours but not
 * this one is rewritten for the validator downstream.
 */
const VALIDATOR_JSON_CONTENT_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i

/**
 * Guards a JSON POST route before schema validation: bounded size, a JSON content type, a body
 * that parses, and a top-level object. Each failure is a 422 with its own stable code, so a
 * client can tell "fix your JSON" from "fix a field".
 *
 * The body is read once and parsed once: a declared `Content-Length` is checked without
 * touching the body stream, so @hono/node-server reads the socket straight into one buffer (no
 * web stream, no second `Request`); only a body without one (chunked, or an in-process
 * `app.request`) is read from the stream with a running count. The route's validator then
 * gets the value parsed here instead of parsing the text again.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler[] {
  return [
    async (c, next) => {
      // Checked in hono's `bodyLimit` order: a declared length first, then the content type,
      // then the body itself.
      const declared = declaredLength(c)
      if (declared !== undefined && declared > maxBytes) throw tooLarge(maxBytes)
      const contentType = c.req.header('content-type') ?? ''
      if (!JSON_CONTENT_TYPE.test(contentType)) {
        throw new AppError(
          'unsupported_content_type',
          `send the body as JSON with Content-Type: application/json (got ${contentType ? JSON.stringify(contentType) : 'none'})`,
        )
      }
      const text = await readBody(c, declared, maxBytes)
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (error) {
        throw new AppError(
          'invalid_json',
          `request body is not valid JSON: ${(error as Error).message}`,
        )
      }
      if (!VALIDATOR_JSON_CONTENT_TYPE.test(contentType)) {
        // Rare: the body is JSON, say so plainly to the validator (a new Request is the only
        // way to change a request header). The text is already cached on `c.req`.
        const headers = new Headers(c.req.raw.headers)
        headers.set('content-type', 'application/json')
        c.req.raw = new Request(c.req.raw, { headers, body: text })
      }
      // The validator (@hono/zod-openapi -> hono's validator) calls `c.req.json()`, which
      // would parse the cached text a second time. The value is only read from here on (zod
      // builds its output as a new object), so handing over this one is safe.
      c.req.json = () => Promise.resolve(parsed as never)
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed
        throw new AppError('invalid_request', `request body must be a JSON object, got ${kind}`, {
          issues: [{ path: '', message: 'expected object' }],
        })
      }
      await next()
    },
  ]
}

/**
 * The body as text. A body that stops arriving (the server's request timeout cut the client
 * off, or the client went away) is a `request_timeout`, not an internal error: the server has
 * already answered the client 408, and this keeps the app's own answer in the same terms.
 */
async function readBody(
  c: Context,
  declared: number | undefined,
  maxBytes: number,
): Promise<string> {
  try {
    return declared !== undefined ? await c.req.text() : await readCounted(c, maxBytes)
  } catch (error) {
    if (error instanceof AppError) throw error
    throw new AppError('request_timeout', 'the request body did not arrive in full', {
      cause: error,
    })
  }
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('body_too_large', `request body exceeds ${maxBytes} bytes`)
}

/**
 * The body's declared length, when it has one that Node's HTTP parser holds it to (no
 * `Transfer-Encoding`); then the body is read without a web stream.
 */
function declaredLength(c: Context): number | undefined {
  const declared = c.req.header('content-length')
  if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return undefined
  const length = Number.parseInt(declared, 10)
  return Number.isNaN(length) ? undefined : length
}

/**
 * A body without a declared length (chunked, or an in-process `app.request`), refused with
 * `body_too_large` past `maxBytes` as it streams in, never buffering more than `maxBytes` plus
 * one chunk.
 */
async function readCounted(c: Context, maxBytes: number): Promise<string> {
  const stream = c.req.raw.body
  if (!stream) return c.req.text()
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  // Decoded as `Request.text()` does (UTF-8, a leading BOM dropped, bad bytes replaced), and
  // cached where hono's body readers look, since the stream is spent (hono types the cache's
  // entries as the values; at run time they hold the readers' promises).
  const text = new TextDecoder().decode(bytes)
  c.req.bodyCache.text = Promise.resolve(text) as never
  return text
}
