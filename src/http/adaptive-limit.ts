import type { PreflightAdmission } from './preflight-admission.js'

/**
 * The preflight bound moved on the event loop's lag: additive increase, multiplicative decrease
 * (AIMD, as TCP's congestion window and Netflix's `concurrency-limits` move theirs), where the
 * congestion signal is the lag of this process's loop rather than a request's latency.
 *
 * Why: a fixed bound (`MAX_PREFLIGHTS_IN_FLIGHT`) keeps concurrency, not the loop's headroom.
 * Where preflights cost CPU more than time (a local node, a small machine), 128 of them keep the
 * loop in turns of tens of milliseconds, and every request, a 503 included, waits unread for a
 * turn. The loop-lag shed (`loop-health.ts`) acts only past its threshold, once the turns are
 * already long. This bound comes down before: in each window of samples, a lag past the target
 * cuts the bound by a tenth; a window under half the target in which the bound was reached (a
 * preflight shed for slots, or every slot taken at a sample) raises it by a sixteenth (at least
 * one); between the two it holds. It never goes under `minLimit` (a floor that keeps a slow
 * upstream's instance busy whatever the loop says) nor over the configured bound, and it starts
 * there: an instance that is never short of loop time behaves as with the fixed bound.
 */

/** `PREFLIGHT_LIMIT_LOOP_DELAY_MS` when unset: the lag the adaptive bound holds under (ms). */
export const DEFAULT_PREFLIGHT_LIMIT_LOOP_DELAY_MS = 20

/** `MIN_PREFLIGHTS_IN_FLIGHT` when unset: the adaptive bound's floor. */
export const DEFAULT_MIN_PREFLIGHTS_IN_FLIGHT = 16

/** A window of samples (ms): the bound moves at most once per window. */
export const ADAPT_WINDOW_MS = 50

/** Share of the bound kept by a window whose lag passed the target. */
const BACKOFF = 0.9

/** Share of the bound added by a window under half the target that reached it (at least 1). */
const GROWTH = 1 / 16

/** Options of {@link createAdaptiveLimit}. */
export interface AdaptiveLimitOptions {
  admission: Pick<PreflightAdmission, 'limit' | 'maxLimit' | 'inFlight' | 'setLimit'>
  /** The bound's floor (at most the admission's `maxLimit`). */
  minLimit: number
  /** The lag the bound holds under (ms), > 0. */
  targetDelayMs: number
  windowMs?: number
  /** Told of each move of the bound. */
  onChange?: (limit: number) => void
}

/** The controller: fed the loop's samples, it moves the admission's bound. */
export interface AdaptiveLimit {
  /** One sample of the loop's lag (ms), at the clock's `at` (ms). */
  sample(lateMs: number, at: number): void
  /** A preflight was shed because every slot was taken (the bound was reached). */
  shedForSlots(): void
}

/** An {@link AdaptiveLimit} over `admission`. */
export function createAdaptiveLimit(options: AdaptiveLimitOptions): AdaptiveLimit {
  const { admission, targetDelayMs } = options
  const windowMs = options.windowMs ?? ADAPT_WINDOW_MS
  const minLimit = Math.min(options.minLimit, admission.maxLimit)
  if (!(targetDelayMs > 0)) throw new Error(`adaptive limit target ${targetDelayMs} <= 0`)
  if (!(minLimit >= 1)) throw new Error(`adaptive limit floor ${options.minLimit} < 1`)
  let windowStart: number | undefined
  let worst = 0
  let reached = false
  return {
    shedForSlots() {
      reached = true
    },
    sample(lateMs, at) {
      windowStart ??= at
      worst = Math.max(worst, lateMs)
      if (admission.inFlight >= admission.limit) reached = true
      if (at - windowStart < windowMs) return
      const limit = admission.limit
      let next = limit
      if (worst > targetDelayMs) next = Math.max(minLimit, Math.floor(limit * BACKOFF))
      else if (reached && worst <= targetDelayMs / 2) {
        next = Math.min(admission.maxLimit, limit + Math.max(1, Math.floor(limit * GROWTH)))
      }
      windowStart = at
      worst = 0
      reached = false
      if (next === limit) return
      admission.setLimit(next)
      options.onChange?.(admission.limit)
    },
  }
}
