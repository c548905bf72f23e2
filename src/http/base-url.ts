import type { Context } from 'hono'

/** The last request URL's origin: a client sends the same URL over and over. */
let last = { url: '', origin: '' }

/**
 * The absolute base URL clients should use for links in answers: the configured public URL
 * when set (behind a proxy the request's own origin is internal), else the request's origin.
 * Never has a trailing slash.
 */
export function publicBaseUrl(c: Context, configured: string | undefined): string {
  if (configured !== undefined) return configured.replace(/\/+$/, '')
  const url = c.req.url
  if (last.url !== url) last = { url, origin: new URL(url).origin }
  return last.origin
}
