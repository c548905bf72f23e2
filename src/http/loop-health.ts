/**
 * The event loop's own health, for shedding: the slot bound (`MAX_PREFLIGHTS_IN_FLIGHT`) keeps
 * concurrency, not the loop's headroom. When the preflights in flight keep the loop busy (the
 * devnet on a small machine: the service, its node and its clients share the cores), every
 * request waits unread for as long as a loop turn lasts, 503s included; shedding new preflights
 * while the loop lags keeps the turns short. In the spirit of `toobusy-js` and fastify's
 * `under-pressure`: a timer measures how late it fires (a loop turn's overrun), smoothed with a
 * fast rise and a slower fall, and a new preflight is shed with a probability that grows from 0
 * at the threshold to 1 at twice it (no on/off swing at the threshold).
 */

/**
 * `SHED_EVENT_LOOP_DELAY_MS` when unset. Measured with `bench/burst.ts` on a busy 2-core machine
 * (docs/performance.md, "Shedding at the door"): at twice the capacity 20, 50 and 100 ms all
 * cut the 503s' p99 from seconds to tenths of one, but 20 also cut the capacity measured by
 * closed-loop clients (a lag of 20 ms is that machine's scheduling noise); 50 did not.
 */
export const DEFAULT_SHED_EVENT_LOOP_DELAY_MS = 50

/** How often the lag is sampled (ms): a sample per loop turn once turns are longer than this. */
export const LOOP_SAMPLE_INTERVAL_MS = 5

/** Share of the previous smoothed lag kept by a lower sample (the fall; a higher one is taken whole). */
const FALL = 0.5

/** Whether the loop lags past its threshold; see {@link startLoopHealth}. */
export interface LoopHealth {
  /** The threshold (ms); 0: never overloaded (sampled for `onSample` only). */
  readonly maxDelayMs: number
  /** The smoothed lag (ms): how late the sampling timer fired, lately. */
  readonly lagMs: number
  /** Whether a new preflight is shed now: never under the threshold, always at twice it. */
  overloaded(): boolean
  /**
   * Work is coming (a preflight arrived): sampling runs, restarted if it had stopped for
   * `idleAfterMs`. Cheap enough for every request.
   */
  wake(): void
  /** Stops sampling (idempotent). */
  stop(): void
}

/** Options of {@link startLoopHealth}; the clock and the coin are the tests'. */
export interface LoopHealthOptions {
  maxDelayMs: number
  intervalMs?: number
  /** Told of every sample: how late the timer fired (ms) and when (the clock's ms). */
  onSample?: (lateMs: number, at: number) => void
  /**
   * Sampling stops once this long has passed without a {@link LoopHealth.wake} (ms), and starts
   * again at the next: an idle instance's loop is not woken 200 times a second (about 1 % of a
   * core on this project's machines) for a lag nothing would be shed for. Absent: samples until
   * stopped.
   */
  idleAfterMs?: number
  now?: () => number
  random?: () => number
}

/**
 * Samples the loop's lag every `intervalMs` on an unref'd timer (it keeps no process alive)
 * until {@link LoopHealth.stop}, pausing while idle when `idleAfterMs` is set.
 */
export function startLoopHealth(options: LoopHealthOptions): LoopHealth {
  const { maxDelayMs, onSample, idleAfterMs } = options
  if (!(maxDelayMs >= 0)) throw new Error(`loop delay threshold ${maxDelayMs} < 0`)
  const interval = options.intervalMs ?? LOOP_SAMPLE_INTERVAL_MS
  const now = options.now ?? (() => performance.now())
  const random = options.random ?? Math.random
  let lag = 0
  let expected = 0
  let wokenAt = now()
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const sample = () => {
    const at = now()
    const late = Math.max(0, at - expected)
    expected = at + interval
    lag = late >= lag ? late : FALL * lag + (1 - FALL) * late
    onSample?.(late, at)
    if (idleAfterMs !== undefined && at - wokenAt > idleAfterMs) {
      clearInterval(timer)
      timer = undefined
      lag = 0
    }
  }
  const run = () => {
    expected = now() + interval
    timer = setInterval(sample, interval)
    timer.unref()
  }
  run()
  return {
    maxDelayMs,
    get lagMs() {
      return lag
    },
    overloaded() {
      if (maxDelayMs === 0 || lag <= maxDelayMs) return false
      return random() < (lag - maxDelayMs) / maxDelayMs
    },
    wake() {
      wokenAt = now()
      if (timer === undefined && !stopped) run()
    },
    stop() {
      stopped = true
      clearInterval(timer)
      timer = undefined
    },
  }
}
