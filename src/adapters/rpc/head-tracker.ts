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

/** The poll's clock and timer (the tests' virtual time; real time by default). */
export interface HeadPollClock {
  now(): number
  /** Calls `fn` in `ms`; the timer must not keep the process alive. */
  after(ms: number, fn: () => void): { cancel(): void }
}

/**
 * Heads in a row whose arrivals, each known within a step, must be `blockMs` apart (within a
 * step) before the poll waits between blocks: two gaps, so that a chain without a rhythm
 * seldom seems to have one by chance.
 */
const RHYTHM_ARRIVALS = 3

const realClock: HeadPollClock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms)
    timer.unref()
    return { cancel: () => clearTimeout(timer) }
  },
}

/**
 * Tracks the chain head. With `intervalMs > 0` it polls `poll` (which reports through
 * {@link HeadTracker.observe}) one request at a time, on an unref'd timer so it never keeps the
 * process alive. A failed poll is ignored: answers never depend on the poll, only the number of
 * waves does (a stale head costs a preflight one more wave, see `atLatestHead`).
 *
 * With `blockMs` (the chain's block time), the poll learns the chain's rhythm instead of asking
 * every `intervalMs` for a head that changes once a block:
 * - a new head's arrival is known within a step when the read before it ended a step before the
 *   read that saw it began;
 * - once three heads in a row arrived so, each `blockMs` after the one before (within a step),
 *   the next read waits until shortly before the next head is due (a step, and twice the
 *   slowest of their reads' round trips, ahead of it), then steps again until it comes;
 * - a head that comes early (first seen by the read after a wait), a missed block, a reorg, a
 *   failed read or a chain without a rhythm (a devnet that mines on demand) drops back to a read
 *   every step until the rhythm is seen again. A step longer than a quarter of `blockMs` always
 *   steps.
 * On Base (2 s blocks, 250 ms steps, a 50 ms RPC) that is 2.4 reads a block instead of 6.7, and
 * each head is learned as soon, within a step and two round trips of its arrival, but for a head
 * that comes early, by at most its earliness later (test/preflight/head-rhythm.test.ts).
 */
export function createHeadTracker(options: {
  poll: () => Promise<PinnedBlock>
  intervalMs: number
  blockMs?: number
  clock?: HeadPollClock
}): HeadTracker {
  const { intervalMs } = options
  // A step of more than a quarter of a block learns too little of the rhythm to be worth it.
  const blockMs = (options.blockMs ?? 0) >= 4 * intervalMs ? (options.blockMs ?? 0) : 0
  const clock = options.clock ?? realClock
  let head: PinnedBlock | undefined
  let timer: { cancel(): void } | undefined
  let stopped = false
  /** The head the last read saw, and when that read was answered. */
  let last: { number: bigint; doneAt: number } | undefined
  /**
   * The last heads' arrivals (when the read that first saw each was sent), oldest first, as many
   * as {@link RHYTHM_ARRIVALS}; undefined for a head whose arrival is not known within a step.
   */
  let arrivals: (Arrival | undefined)[] = []

  /** When to read next (ms from now): a step on, or, in rhythm, shortly before the next head. */
  const nextReadIn = (): number => {
    if (blockMs <= 0 || arrivals.length < RHYTHM_ARRIVALS) return intervalMs
    let roundTripMs = 0
    for (let i = 0; i < arrivals.length; i++) {
      const arrival = arrivals[i]
      if (arrival === undefined) return intervalMs
      const before = arrivals[i - 1]
      if (before && Math.abs(arrival.at - before.at - blockMs) > intervalMs) return intervalMs
      roundTripMs = Math.max(roundTripMs, arrival.roundTripMs)
    }
    const latest = arrivals.at(-1) as Arrival
    const margin = intervalMs + 2 * roundTripMs
    return Math.max(intervalMs, latest.at + blockMs - margin - clock.now())
  }
  const learn = (block: PinnedBlock, sentAt: number, doneAt: number) => {
    const previous = last
    last = { number: block.number, doneAt }
    if (previous === undefined || block.number === previous.number) return
    const precise =
      block.number === previous.number + 1n && sentAt - previous.doneAt <= intervalMs * 1.5
    arrivals.push(precise ? { at: sentAt, roundTripMs: doneAt - sentAt } : undefined)
    if (arrivals.length > RHYTHM_ARRIVALS) arrivals.shift()
  }
  const schedule = (ms: number) => {
    if (stopped) return
    timer = clock.after(ms, tick)
  }
  const tick = () => {
    const sentAt = clock.now()
    options.poll().then(
      (block) => {
        learn(block, sentAt, clock.now())
        schedule(nextReadIn())
      },
      () => {
        last = undefined
        arrivals = []
        schedule(intervalMs)
      },
    )
  }
  if (intervalMs > 0) schedule(intervalMs)
  return {
    current: () => head,
    observe(block) {
      head = block
    },
    stop() {
      stopped = true
      timer?.cancel()
    },
  }
}

/** When a head was first seen (the read's send time) and that read's round trip (ms). */
interface Arrival {
  at: number
  roundTripMs: number
}
