import type { MiddlewareHandler } from 'hono'
import { AppError } from '../errors.js'

/**
 * Most preflights one instance runs at once when `MAX_PREFLIGHTS_IN_FLIGHT` is unset. Past its
 * capacity an instance only grows its latency; this bound turns the excess into a fast 503.
 * The figure: this service serves 750-1,050 plain preflights/s on 2 cores (docs/operations.md,
 * "Admission"); by Little's law that rate needs about rate x latency preflights in flight, 50-100
 * behind an RPC 50-100 ms away. 128 keeps a remote RPC's instance busy and a devnet's queue short.
 */
export const DEFAULT_MAX_PREFLIGHTS_IN_FLIGHT = 128

/** Seconds a shed request is told to wait (`Retry-After`): a slot frees in milliseconds. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void

/**
 * The bounded number of preflights in flight on this instance: a free preflight takes a slot
 * at once or is shed (`tryEnter`); a paid call that already holds a payment waits its turn
 * (`enter`), and waiting calls get freed slots before any new free preflight.
 */
export interface PreflightAdmission {
  readonly limit: number
  /** Slots taken now. */
  readonly inFlight: number
  /** Paid calls waiting for a slot. */
  readonly waiting: number
  /** Whether a new free preflight would be shed now (every slot taken, or a paid call waits). */
  saturated(): boolean
  /** A slot now, or undefined when {@link saturated}. */
  tryEnter(): ReleaseSlot | undefined
  /** A slot, once one is free (first come, first served among waiters). */
  enter(): Promise<ReleaseSlot>
}

/** Told whenever the counts change (the in-flight and waiting gauges). */
export type AdmissionObserver = (inFlight: number, waiting: number) => void

/** A {@link PreflightAdmission} of `limit` slots. */
export function createPreflightAdmission(
  limit: number,
  observe: AdmissionObserver = () => {},
): PreflightAdmission {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`admission limit ${limit} < 1`)
  let inFlight = 0
  const waiters: ((release: ReleaseSlot) => void)[] = []
  const slot = (): ReleaseSlot => {
    let released = false
    return () => {
      if (released) return
      released = true
      const next = waiters.shift()
      // The slot passes straight to the first waiter: no free preflight can take it between.
      if (next) next(slot())
      else inFlight--
      observe(inFlight, waiters.length)
    }
  }
  const saturated = () => inFlight >= limit || waiters.length > 0
  return {
    limit,
    get inFlight() {
      return inFlight
    },
    get waiting() {
      return waiters.length
    },
    saturated,
    tryEnter() {
      if (saturated()) return undefined
      inFlight++
      observe(inFlight, waiters.length)
      return slot()
    },
    enter() {
      if (!saturated()) {
        inFlight++
        observe(inFlight, waiters.length)
        return Promise.resolve(slot())
      }
      return new Promise((resolve) => {
        waiters.push(resolve)
        observe(inFlight, waiters.length)
      })
    },
  }
}

/** Why a preflight was shed: every slot taken, or the event loop lagging past its threshold. */
export type ShedReason = 'slots' | 'event_loop'

/** The 503 a shed request gets: `overloaded`, with `Retry-After`, its message by reason. */
export function overloaded(
  admission: Pick<PreflightAdmission, 'limit'>,
  reason: ShedReason = 'slots',
): AppError {
  return new AppError(
    'overloaded',
    reason === 'slots'
      ? `this instance is running its ${admission.limit} preflights at once; retry shortly`
      : 'this instance is too busy to start another preflight now (its event loop lags); retry shortly',
    { retryAfter: OVERLOADED_RETRY_AFTER_SECONDS },
  )
}

/**
 * A route middleware (after the body is read, so a slow body holds no slot): takes a slot for
 * the rest of the request, or sheds it with 503 `overloaded` at once: every slot taken, or
 * `loopLags` (the request passed the door before the rate limit judged it, or in the race).
 */
export function admitPreflight(
  admission: PreflightAdmission,
  onShed: (reason: ShedReason) => void,
  loopLags: () => boolean = () => false,
): MiddlewareHandler {
  return async (_c, next) => {
    const reason: ShedReason | undefined = admission.saturated()
      ? 'slots'
      : loopLags()
        ? 'event_loop'
        : undefined
    const release = reason === undefined ? admission.tryEnter() : undefined
    if (release === undefined) {
      onShed(reason ?? 'slots')
      throw overloaded(admission, reason)
    }
    try {
      await next()
    } finally {
      release()
    }
  }
}
