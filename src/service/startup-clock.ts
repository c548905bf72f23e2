import { performance } from 'node:perf_hooks'

/** When each start-up step finished, in ms since the process started (Node's time origin). */
export type StartupTimes = Record<string, number>

/** Notes when start-up's steps finish, for the "listening" log line and `bench/startup.ts`. */
export interface StartupClock {
  /** Resolves as `promise` does, noting when it resolved as `step`. */
  time<T>(step: string, promise: Promise<T>): Promise<T>
  /** Every step noted so far, plus `now`: ms since the process started, rounded. */
  read(): StartupTimes
}

export function startupClock(): StartupClock {
  const times: StartupTimes = {}
  const now = () => Math.round(performance.now())
  return {
    time(step, promise) {
      const timed = promise.then((value) => {
        times[step] = now()
        return value
      })
      // Awaited later by start-up; a failure meanwhile is not an unhandled rejection.
      timed.catch(() => undefined)
      return timed
    },
    read: () => ({ ...times, now: now() }),
  }
}
