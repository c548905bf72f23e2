import type { Context } from 'hono'

/**
 * The absolute base URL clients should use for links in answers: the configured public URL
 * when set (behind a proxy the request's own origin is internal), else the request's origin.
 * Never has a trailing slash.
 */
export function publicBaseUrl(c: Context, configured: string | undefined): string {
  const base = configured ?? new URL(c.req.url).origin
  return base.replace(/\/+$/, '')
}
