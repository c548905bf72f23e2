import type { IncomingMessage, ServerResponse } from 'node:http'
import { type LoopHealth, startLoopHealth } from './loop-health.js'
import {
  OVERLOADED_RETRY_AFTER_SECONDS,
  overloaded,
  type PreflightAdmission,
  type ShedReason,
  shedReason,
} from './preflight-admission.js'
import { requestIdOf } from './security-headers.js'

export type { ShedReason }

/**
 * Admission at the door, before the app: a preflight the instance would shed now is answered
 * its 503 `overloaded` by the `node:http` request listener, from a prebuilt template, without a
 * `Request`, a middleware, a routing step or its body read (Node discards the unread body and
 * keeps the connection). A shed then costs the loop a parsed request line and headers, not a
 * whole request: under twice the capacity the sheds no longer take the loop's time from the
 * admitted preflights, nor wait behind them. The app keeps its own shed for the race between
 * the door and the slot (`admitPreflight`, `shedPaid`), with the same answer.
 */
export interface PreflightDoor {
  /** Answers `req` with the 503 and returns true when it is shed; false hands it to the app. */
  shed(req: IncomingMessage, res: ServerResponse): boolean
  /**
   * Starts sampling the loop's lag (when a threshold or `onLoopSample` is set); the server calls
   * it once listening.
   */
  start(): void
  /** Stops the sampling (idempotent); the server calls it on close. */
  stop(): void
  /** Whether the loop lags now (a new preflight is shed for it); false when not sampled. */
  loopLags(): boolean
}

/** What the door needs from the app: its admission, its routes, its headers, its metrics. */
export interface PreflightDoorOptions {
  admission: Pick<PreflightAdmission, 'saturated' | 'inFlight' | 'maxLimit'>
  /** The free preflight routes (a POST to one runs a preflight). */
  freeRoutes: readonly string[]
  /**
   * The paid route when mounted: a POST carrying PAYMENT-SIGNATURE is shed as the app sheds it
   * (it holds no payment yet: nothing is claimed), one without it goes on to its 402.
   */
  paidRoute?: string
  /** Headers in PAYMENT-SIGNATURE or X-PAYMENT above this are the app's 431, never shed here. */
  maxPaymentHeaderBytes: number
  /** SHED_EVENT_LOOP_DELAY_MS: shed new preflights while the loop lags past it (ms); 0: off. */
  maxEventLoopDelayMs: number
  /**
   * The headers the app puts on every answer of these routes besides the error's own (CORS,
   * security), lower-case, in the app's order: the door's 503 is the app's, byte for byte.
   */
  headers: Readonly<Record<string, string>>
  /**
   * Whether the app's rate limit judges this request (a limited route, a client not exempt): it
   * is handed on, so that a client past its limit meets its 429 first, and the app sheds it
   * after on the same signals (`loopLags`). Absent: none is.
   */
  judgedFirst?: (req: IncomingMessage, path: string) => boolean
  /** Told of every sample of the loop's lag (the adaptive bound): the loop is sampled for it too. */
  onLoopSample?: (lateMs: number, at: number) => void
  /** Told of each shed: the route, why, and the time the door took (s). */
  onShed(route: string, reason: ShedReason, seconds: number): void
  /** The loop's health instead of sampling one (tests). */
  loopHealth?: Pick<LoopHealth, 'overloaded' | 'wake' | 'stop'>
}

/**
 * How long after the last preflight arrived the door keeps sampling the loop's lag (ms): far
 * longer than any shed decision looks back (the lag's smoothing, the adaptive bound's 50 ms
 * windows), and short enough that an idle instance's loop sleeps.
 */
export const LOOP_IDLE_AFTER_MS = 1_000

/** A {@link PreflightDoor} over an app's admission. */
export function createPreflightDoor(options: PreflightDoorOptions): PreflightDoor {
  const free = new Set(options.freeRoutes)
  const { paidRoute, maxPaymentHeaderBytes } = options
  let loop = options.loopHealth
  // The body around the request id, as the error renderer writes it (its key order).
  const template = (message: string) => {
    const [head, tail] = JSON.stringify({
      error: 'overloaded',
      message,
      issues: [],
      requestId: '\u0000',
    }).split('"\\u0000"') as [string, string]
    return { head: `${head}"`, tail: `"${tail}`, bytes: Buffer.byteLength(head + tail) + 2 }
  }
  const bodies: Record<ShedReason, { head: string; tail: string; bytes: number }> = {
    slots: template(overloaded(options.admission, 'slots').message),
    event_loop: template(overloaded(options.admission, 'event_loop').message),
  }
  // The app's headers in its order (a fetch Headers object's: sorted), then Content-Length as
  // @hono/node-server adds it; a flat [name, value, ...] list with the id and length filled in.
  const names = Object.entries({
    ...options.headers,
    'content-type': 'application/json',
    'retry-after': String(OVERLOADED_RETRY_AFTER_SECONDS),
    'x-request-id': '',
  }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const rawHeaders = [...names.flat(), 'Content-Length', '']
  const idAt = rawHeaders.indexOf('x-request-id') + 1
  const lengthAt = rawHeaders.length - 1

  /** The reason to shed a preflight to this path now, or undefined (not a preflight, or room). */
  const reasonFor = (req: IncomingMessage, path: string): ShedReason | undefined => {
    const isFree = free.has(path)
    if (!isFree && path !== paidRoute) return undefined
    // A preflight may come: the loop's lag is sampled from now on (it pauses while idle).
    loop?.wake()
    // An unpaid call gets its 402 (no preflight); one carrying a payment is shed before
    // anything of it is claimed, as in the app.
    if (!isFree && req.headers['payment-signature'] === undefined) return undefined
    // An oversized payment header is the app's 431, whatever the load.
    for (const name of ['payment-signature', 'x-payment'] as const) {
      const value = req.headers[name]
      if (typeof value === 'string' && Buffer.byteLength(value) > maxPaymentHeaderBytes)
        return undefined
    }
    if (options.judgedFirst?.(req, path)) return undefined
    return shedReason(options.admission, () => loop?.overloaded() ?? false)
  }

  return {
    shed(req, res) {
      if (req.method !== 'POST') return false
      const url = req.url ?? ''
      const query = url.indexOf('?')
      const path = query === -1 ? url : url.slice(0, query)
      const started = performance.now()
      const reason = reasonFor(req, path)
      if (reason === undefined) return false
      const id = requestIdOf(req.headers['x-request-id'])
      const body = bodies[reason]
      const raw = rawHeaders.slice()
      raw[idAt] = id
      // An id is ASCII (requestIdOf: hono's rule, or a UUID): its length is its bytes.
      raw[lengthAt] = String(body.bytes + id.length)
      res.writeHead(503, raw)
      res.end(body.head + id + body.tail)
      options.onShed(path, reason, (performance.now() - started) / 1000)
      return true
    },
    start() {
      const { maxEventLoopDelayMs, onLoopSample } = options
      if (loop === undefined && (maxEventLoopDelayMs > 0 || onLoopSample)) {
        loop = startLoopHealth({
          maxDelayMs: maxEventLoopDelayMs,
          idleAfterMs: LOOP_IDLE_AFTER_MS,
          ...(onLoopSample ? { onSample: onLoopSample } : {}),
        })
      }
    },
    stop() {
      loop?.stop()
    },
    loopLags() {
      return loop?.overloaded() ?? false
    },
  }
}
