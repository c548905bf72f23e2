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
 * (`enter`), and waiting calls get freed slots before any new free preflight. The bound may be
 * moved while running (`setLimit`, within 1 and `maxLimit`): the adaptive limit
 * (`adaptive-limit.ts`) moves it on the event loop's lag.
 */
export interface PreflightAdmission {
  /** The bound now. */
  readonly limit: number
  /** The most the bound may be (`MAX_PREFLIGHTS_IN_FLIGHT`). */
  readonly maxLimit: number
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
  /**
   * Moves the bound (rounded, kept within 1 and `maxLimit`). Lowered, no slot is taken back:
   * new preflights are shed until enough are released. Raised, waiting paid calls get the room.
   */
  setLimit(limit: number): void
}

/** Told whenever the counts change (the in-flight and waiting gauges). */
export type AdmissionObserver = (inFlight: number, waiting: number) => void

/** A {@link PreflightAdmission} of `limit` slots (its `maxLimit`). */
export function createPreflightAdmission(
  maxLimit: number,
  observe: AdmissionObserver = () => {},
): PreflightAdmission {
  if (!Number.isInteger(maxLimit) || maxLimit < 1) {
    throw new Error(`admission limit ${maxLimit} < 1`)
  }
  let limit = maxLimit
  let inFlight = 0
  const waiters: ((release: ReleaseSlot) => void)[] = []
  /** Hands the room under the bound to the waiters, first come first served. */
  const admitWaiters = () => {
    while (inFlight < limit && waiters.length > 0) {
      inFlight++
      waiters.shift()?.(slot())
    }
  }
  const slot = (): ReleaseSlot => {
    let released = false
    return () => {
      if (released) return
      released = true
      // The slot goes to the waiters first: no free preflight can take it between.
      inFlight--
      admitWaiters()
      observe(inFlight, waiters.length)
    }
  }
  const saturated = () => inFlight >= limit || waiters.length > 0
  return {
    get limit() {
      return limit
    },
    maxLimit,
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
    setLimit(next) {
      const bounded = Math.min(maxLimit, Math.max(1, Math.round(next)))
      if (bounded === limit) return
      limit = bounded
      if (waiters.length > 0) {
        admitWaiters()
        observe(inFlight, waiters.length)
      }
    },
  }
}

/** Why a preflight was shed: every slot taken, or the event loop lagging past its threshold. */
export type ShedReason = 'slots' | 'event_loop'

/**
 * Why a new preflight would be shed now, or undefined: every slot taken (or a paid call waits),
 * or the loop lagging (`loopLags`, asked only then) while a preflight is in flight. A lone
 * preflight is never shed for the lag: with none in flight the lag is not the preflights' doing
 * (a GC pause, a machine busy with other processes), shedding cannot shorten it, and admitting
 * one costs one preflight; a client retrying on `Retry-After` would otherwise be refused for as
 * long as something else keeps the loop slow. Under a burst some preflight is in flight at almost
 * every arrival, so the shed still keeps the turns short.
 */
export function shedReason(
  admission: Pick<PreflightAdmission, 'saturated' | 'inFlight'>,
  loopLags: () => boolean,
): ShedReason | undefined {
  if (admission.saturated()) return 'slots'
  if (admission.inFlight > 0 && loopLags()) return 'event_loop'
  return undefined
}

/**
 * The 503 a shed request gets: `overloaded`, with `Retry-After`, its message by reason. The
 * message names the configured bound, not the adaptive one of the moment: the door answers from
 * a template made once, and the app's answer is the same bytes.
 */
export function overloaded(
  admission: Pick<PreflightAdmission, 'maxLimit'>,
  reason: ShedReason = 'slots',
): AppError {
  return new AppError(
    'overloaded',
    reason === 'slots'
      ? `this instance is running as many preflights as it takes now (at most ${admission.maxLimit}); retry shortly`
      : 'this instance is too busy to start another preflight now (its event loop lags); retry shortly',
    { retryAfter: OVERLOADED_RETRY_AFTER_SECONDS },
  )
}

/**
 * A route middleware (after the body is read, so a slow body holds no slot): takes a slot for
 * the rest of the request, or sheds it with 503 `overloaded` at once, for {@link shedReason}
 * (the request passed the door before the rate limit judged it, or in the race).
 */
export function admitPreflight(
  admission: PreflightAdmission,
  onShed: (reason: ShedReason) => void,
  loopLags: () => boolean = () => false,
): MiddlewareHandler {
  return async (_c, next) => {
    const reason = shedReason(admission, loopLags)
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
