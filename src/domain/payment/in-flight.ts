/**
 * Counts work that must not be cut short (a paid call between claim and answer), so shutdown
 * can wait for it before closing the ledger.
 */
export interface InFlightTracker {
  /** Runs `work`, counted until it settles. */
  track<T>(work: () => Promise<T>): Promise<T>
  /** How many are running now. */
  readonly size: number
  /**
   * Resolves when nothing is running, or after `timeoutMs`: true when everything finished,
   * false when the wait ran out (what was still running is then abandoned mid-way; the ledger
   * and the reconciler recover it).
   */
  drain(timeoutMs: number): Promise<boolean>
}

/** A fresh {@link InFlightTracker}. */
export function createInFlightTracker(): InFlightTracker {
  const running = new Set<Promise<unknown>>()
  return {
    track<T>(work: () => Promise<T>): Promise<T> {
      const promise = work()
      const settled = promise.then(
        () => undefined,
        () => undefined,
      )
      running.add(settled)
      void settled.then(() => running.delete(settled))
      return promise
    },
    get size() {
      return running.size
    },
    async drain(timeoutMs: number): Promise<boolean> {
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs)
        timer.unref()
      })
      const all = (async () => {
        // Work started while draining is waited for too.
        while (running.size > 0) await Promise.all([...running])
        return true as const
      })()
      try {
        return await Promise.race([all, timedOut])
      } finally {
        clearTimeout(timer)
      }
    },
  }
}
