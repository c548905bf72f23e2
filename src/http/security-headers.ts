import type { MiddlewareHandler } from 'hono'

/** Documents a browser renders (and may frame, or run script in). */
const DOCUMENT_TYPES = /^(text\/html|image\/svg\+xml)\b/i

/**
 * The headers every answer carries, set on the route's own response: `X-Content-Type-Options:
 * nosniff` on all (a JSON body that quotes a page or a token's name is never sniffed into HTML
 * or script); on HTML pages and SVG, the pages' Content-Security-Policy (`csp`, which names
 * their inline script and style by hash), `frame-ancestors 'none'` with `X-Frame-Options: DENY`
 * for older browsers, and `Referrer-Policy: no-referrer` (no page's URL leaves with a link).
 */
export function securityHeaders(csp: string): MiddlewareHandler {
  return async (c, next) => {
    await next()
    const headers = c.res.headers
    headers.set('X-Content-Type-Options', 'nosniff')
    if (DOCUMENT_TYPES.test(headers.get('content-type') ?? '')) {
      headers.set('Content-Security-Policy', csp)
      headers.set('X-Frame-Options', 'DENY')
      headers.set('Referrer-Policy', 'no-referrer')
    }
  }
}
