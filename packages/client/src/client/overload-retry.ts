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

/** The longest wait honoured between tries (s), whatever `Retry-After` says. */
export const MAX_OVERLOAD_WAIT_SECONDS = 5

/** What {@link retryWhenShed} needs. */
export interface OverloadRetry {
  /** Tries after the first; 0 hands back the first answer. */
  retries: number
  /** No wait may end past this time (`performance.now()` ms): the call's own bound. */
  deadline: number
  /** Waits `ms` (tests pass a clock); default a timer. */
  sleep?: (ms: number) => Promise<void>
  /** A number in [0, 1) spreading the clients' retries (default `Math.random`). */
  random?: () => number
}

/**
 * `first`, or, while it is a 503 `overloaded` and tries are left, the answer of `again` after
 * the wait its `Retry-After` asks (1 s when absent or unreadable, at most
 * {@link MAX_OVERLOAD_WAIT_SECONDS}, stretched by up to half again so that shed clients do not
 * all come back in the same millisecond). A wait that would end past `deadline` is not made:
 * the 503 is the answer.
 */
export async function retryWhenShed(
  first: Response,
  again: () => Promise<Response>,
  options: OverloadRetry,
): Promise<Response> {
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)))
  const random = options.random ?? Math.random
  let res = first
  for (let tried = 0; tried < options.retries; tried++) {
    const seconds = await shedFor(res)
    if (seconds === undefined) return res
    const waitMs = seconds * 1000 * (1 + random() / 2)
    if (performance.now() + waitMs > options.deadline) return res
    await res.body?.cancel().catch(() => {})
    await sleep(waitMs)
    res = await again()
  }
  return res
}

/** The seconds a 503 `overloaded` asks to wait; undefined for any other answer. */
async function shedFor(res: Response): Promise<number | undefined> {
  if (res.status !== 503) return undefined
  let code: unknown
  try {
    code = ((await res.clone().json()) as { error?: unknown } | null)?.error
  } catch {
    return undefined
  }
  if (code !== 'overloaded') return undefined
  const header = res.headers.get('Retry-After')?.trim() ?? ''
  const seconds = /^[0-9]+$/.test(header) ? Number(header) : 1
  return Math.min(MAX_OVERLOAD_WAIT_SECONDS, seconds)
}
