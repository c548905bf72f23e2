import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { AppError } from '../errors.js'

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

/**
 * Guards a JSON POST route before schema validation: bounded size, a JSON content type, a body
 * that parses, and a top-level object. Each failure is a 422 with its own stable code, so a
 * client can tell "fix your JSON" from "fix a field".
 */
export function jsonBody(maxBytes: number): MiddlewareHandler[] {
  return [
    bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw new AppError('body_too_large', `request body exceeds ${maxBytes} bytes`)
      },
    }),
    async (c, next) => {
      const contentType = c.req.header('content-type') ?? ''
      if (!JSON_CONTENT_TYPE.test(contentType)) {
        throw new AppError(
          'unsupported_content_type',
          `send the body as JSON with Content-Type: application/json (got ${contentType ? JSON.stringify(contentType) : 'none'})`,
        )
      }
      const text = await c.req.text()
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (error) {
        throw new AppError(
          'invalid_json',
          `request body is not valid JSON: ${(error as Error).message}`,
        )
      }
      // The route's own validator is stricter about the header's spelling (it refuses
      // `application/json ; charset=utf-8`); the body is JSON, so say so plainly downstream.
      const headers = new Headers(c.req.raw.headers)
      headers.set('content-type', 'application/json')
      c.req.raw = new Request(c.req.raw, { headers, body: text })
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
