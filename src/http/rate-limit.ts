import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context, MiddlewareHandler } from 'hono'
import ipaddr from 'ipaddr.js'
import type { BucketPolicy, BucketStore, TakeResult } from '../domain/rate-limit/token-bucket.js'
import { AppError } from '../errors.js'
import type { ErrorRenderer } from './errors.js'
import { addAnswerFields } from './security-headers.js'

declare module 'hono' {
  interface ContextVariableMap {
    /** Gives back the token this request took (see {@link refundRateLimit}). */
    rateLimitRefund: (() => void) | undefined
  }
}

/** Options for {@link rateLimit}. */
export interface RateLimitOptions {
  store: BucketStore
  /** Renders the 429 (the app's error renderer, which scrubs secrets). */
  errorResponse: ErrorRenderer['response']
  /** The policy a request is counted under; undefined leaves it unlimited. */
  policyFor: (c: Context) => BucketPolicy | undefined
  /**
   * A header set by a proxy in front of the service that names the client (`x-forwarded-for`,
   * `x-real-ip`, ...). Only set it behind such a proxy: clients can send any header. The last
   * comma-separated entry is used, the one the nearest proxy appended; it must be a bare IP
   * address (brackets allowed around IPv6), else the socket's address counts instead.
   */
  clientHeader?: string
  /** Loopback clients are not limited (the devnet, where the user is the operator). */
  exemptLoopback: boolean
  /** A take that failed (Redis down): the request goes through, never refused for our trouble. */
  onStoreError?: (error: unknown) => void
  /** A request refused with 429. */
  onLimited?: (policy: BucketPolicy) => void
}

/**
 * Token-bucket rate limiting per client, with the IETF `RateLimit-Policy` / `RateLimit`
 * headers (draft-ietf-httpapi-ratelimit-headers) on every counted answer, and 429
 * `rate_limited` with `Retry-After` once the bucket is empty. The store failing never refuses
 * a request: limits protect quotas, they must not take the service down. A handler may give
 * the request's token back once it turns out not to count ({@link refundRateLimit}); the
 * answer's `RateLimit` field then shows the bucket after the refund.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  return async (c, next) => {
    const policy = options.policyFor(c)
    if (!policy) return next()
    const client = clientOf(c, options.clientHeader)
    if (options.exemptLoopback && client?.loopback) return next()
    const key = client?.key ?? 'unknown'
    let taken: TakeResult
    try {
      taken = await options.store.take(key, policy)
    } catch (error) {
      options.onStoreError?.(error)
      return next()
    }
    const headers = rateLimitHeaders(policy, taken)
    if (!taken.allowed) {
      options.onLimited?.(policy)
      for (const [name, value] of Object.entries(headers)) c.header(name, value)
      return options.errorResponse(
        c,
        new AppError(
          'rate_limited',
          `too many requests to this route from one client (${policy.perMinute} a minute, bursts of ${policy.capacity}); retry after ${taken.retryAfterSeconds} s`,
          { retryAfter: taken.retryAfterSeconds },
        ),
      )
    }
    // At most one refund per request, of the token this request took.
    let refunded: Promise<TakeResult | undefined> | undefined
    c.set('rateLimitRefund', () => {
      refunded ??= options.store.refund(key, policy).catch((error: unknown) => {
        options.onStoreError?.(error)
        return undefined
      })
    })
    await next()
    const after = (await refunded) ?? taken
    addAnswerFields(c, rateLimitHeaders(policy, after))
  }
}

/**
 * Gives back the rate-limit token the request took, once: for a request that proved it
 * should not count against its client (a paid call whose payment verified). A no-op when the
 * request took none (no policy, loopback, the store down).
 */
export function refundRateLimit(c: Context): () => void {
  return () => c.get('rateLimitRefund')?.()
}

/**
 * The IETF rate-limit fields for a token bucket: the quota is the bucket (`q` requests, `w`
 * the seconds it takes to refill from empty); `r` what is left, `t` the seconds until full.
 */
export function rateLimitHeaders(policy: BucketPolicy, taken: TakeResult): Record<string, string> {
  const window = Math.ceil((policy.capacity * 60) / policy.perMinute)
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.capacity};w=${window}`,
    RateLimit: `"${policy.name}";r=${taken.remaining};t=${taken.resetSeconds}`,
  }
}

/**
 * The client: from the trusted proxy header when configured and its last entry is an IP
 * address, else the socket. A value that is not an address (a name, `unknown`, an address with
 * a port, any string a client made up) is never a key: it would give whoever sends it a fresh
 * bucket per spelling.
 */
function clientOf(c: Context, header: string | undefined): Client | undefined {
  if (header) {
    const value = c.req.header(header)
    const last = value
      ?.split(',')
      .at(-1)
      ?.trim()
      .replace(/^\[(.*)\]$/, '$1')
    if (last && ipaddr.isValid(last)) return parseClient(last)
  }
  try {
    const address = getConnInfo(c).remote.address
    return address ? parseClient(address) : undefined
  } catch {
    return undefined // no socket (an in-process request)
  }
}

/**
 * What one spelling of a client address comes to: one key per client whatever its spelling
 * (`::ffff:1.2.3.4` is `1.2.3.4`), and whether it is loopback. An IPv6 client is its /64: one
 * subscriber is handed a whole /64 (RFC 6177), so keying by /128 gave one client 2^64 buckets.
 */
interface Client {
  key: string
  loopback: boolean
}
/** Spellings seen lately (clients repeat; parsing each request's address again is waste). */
const CLIENTS_LIMIT = 4096
const clients = new Map<string, Client>()

function parseClient(address: string): Client {
  const known = clients.get(address)
  if (known !== undefined) return known
  let client: Client
  try {
    const parsed = ipaddr.process(address.replace(/^\[|\]$/g, ''))
    client = { key: keyOf(parsed), loopback: parsed.range() === 'loopback' }
  } catch {
    client = { key: address.slice(0, 100), loopback: false }
  }
  // An address is at most 47 characters; a longer header value is not worth remembering.
  if (address.length > 64) return client
  if (clients.size >= CLIENTS_LIMIT) clients.clear()
  clients.set(address, client)
  return client
}

/** `1.2.3.4`; `2001:db8:1:2::/64` for every IPv6 address of that /64. */
function keyOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (!(address instanceof ipaddr.IPv6)) return address.toString()
  const prefix = address.parts.slice(0, 4)
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`
}
