import type { PinnedBlock } from '../../domain/preflight/chain-reader.js'

/** The last chain head the reader saw, kept current by its own reads and an optional poll. */
export interface HeadTracker {
  /** The last head seen; undefined until the first read. */
  current(): PinnedBlock | undefined
  /** Records a head a read just returned (the newest answer wins, even a lower one: a reorg). */
  observe(block: PinnedBlock): void
  /** Stops the poll; idempotent. */
  stop(): void
}

/**
 * Tracks the chain head. With `intervalMs > 0` it polls `poll` (which reports through
 * {@link HeadTracker.observe}) one request at a time, on an unref'd timer so it never keeps the
 * process alive. A failed poll is ignored: answers never depend on the poll, only the number of
 * waves does (a stale head costs a preflight one more wave, see `atLatestHead`).
 */
export function createHeadTracker(options: {
  poll: () => Promise<unknown>
  intervalMs: number
}): HeadTracker {
  let head: PinnedBlock | undefined
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(tick, options.intervalMs)
    timer.unref()
  }
  const tick = () => {
    options.poll().then(schedule, schedule)
  }
  if (options.intervalMs > 0) schedule()
  return {
    current: () => head,
    observe(block) {
      head = block
    },
    stop() {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
    },
  }
}
