import { retryAfterSeconds } from './guard-replies.js'

/**
 * Retrying a preflight the guard shed: a 503 `overloaded` is answered at once, before anything
 * of the request ran or was charged (every slot of the instance taken, or its event loop
 * lagging), with `Retry-After`. The same request sent again after that wait is the documented
 * remedy (a paid call: with the same `PAYMENT-SIGNATURE`), so the client does it itself, a few
 * times, instead of making every agent write the loop. Any other answer, `rpc_unavailable`
 * included (an outage, not a moment's load), is handed back as it came.
 */

/** `GuardClientOptions.overloadRetries` when unset: two more tries, about three seconds. */
export const DEFAULT_OVERLOAD_RETRIES = 2

/** The most `overloadRetries` may be: a guard that keeps shedding is down, not busy. */
export const MAX_OVERLOAD_RETRIES = 10

/**
 * The shortest and the longest wait between tries (s), whatever `Retry-After` says: a guard
 * answering `Retry-After: 0` (or a hostile one) cannot make the client hammer it, nor hold it.
 */
export const MIN_OVERLOAD_WAIT_SECONDS = 1
export const MAX_OVERLOAD_WAIT_SECONDS = 5

/**
 * The least time a try must have before the call's deadline (ms): a wait that leaves less is
 * not made, and the 503 is the answer, rather than a try cut off as `guard_unreachable`.
 */
export const MIN_TRY_MS = 1_000

/** The `overloadRetries` option, checked: an integer from 0 to {@link MAX_OVERLOAD_RETRIES}. */
export function overloadRetriesOf(value: number | undefined): number {
  if (value === undefined) return DEFAULT_OVERLOAD_RETRIES
  if (!Number.isInteger(value) || value < 0 || value > MAX_OVERLOAD_RETRIES) {
    throw new RangeError(
      `overloadRetries must be an integer from 0 to ${MAX_OVERLOAD_RETRIES}, not ${value}`,
    )
  }
  return value
}

/** What {@link retryWhenShed} needs. */
export interface OverloadRetry {
  /** Tries after the first; 0 hands back the first answer. */
  retries: number
  /** The call's deadline (`performance.now()` ms): no try runs past it. */
  deadline: number
  /** Waits `ms` (tests pass a clock); default a timer. */
  sleep?: (ms: number) => Promise<void>
  /** A number in [0, 1) spreading the clients' retries (default `Math.random`). */
  random?: () => number
}

/**
 * `first`, or, while it is a 503 `overloaded` and tries are left, the answer of `again` after
 * the wait its `Retry-After` asks (kept within {@link MIN_OVERLOAD_WAIT_SECONDS} and
 * {@link MAX_OVERLOAD_WAIT_SECONDS}), stretched by up to half again so that shed clients do not
 * all come back in the same millisecond. `again` is given the ms left until `deadline`, its
 * bound. A wait that would leave less than {@link MIN_TRY_MS} before `deadline` is not made:
 * the 503 is the answer.
 */
export async function retryWhenShed(
  first: Response,
  again: (remainingMs: number) => Promise<Response>,
  options: OverloadRetry,
): Promise<Response> {
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)))
  const random = options.random ?? Math.random
  let res = first
  for (let tried = 0; tried < options.retries; tried++) {
    const seconds = await shedFor(res)
    if (seconds === undefined) return res
    const waitMs = seconds * 1000 * (1 + random() / 2)
    if (performance.now() + waitMs + MIN_TRY_MS > options.deadline) return res
    await res.body?.cancel().catch(() => {})
    await sleep(waitMs)
    res = await again(options.deadline - performance.now())
  }
  return res
}

/** The seconds a 503 `overloaded` asks to wait, within bounds; undefined for any other answer. */
async function shedFor(res: Response): Promise<number | undefined> {
  if (res.status !== 503) return undefined
  let code: unknown
  try {
    code = ((await res.clone().json()) as { error?: unknown } | null)?.error
  } catch {
    return undefined
  }
  if (code !== 'overloaded') return undefined
  const seconds = retryAfterSeconds(res.headers.get('Retry-After')) ?? MIN_OVERLOAD_WAIT_SECONDS
  return Math.min(MAX_OVERLOAD_WAIT_SECONDS, Math.max(MIN_OVERLOAD_WAIT_SECONDS, seconds))
}
