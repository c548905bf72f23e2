import { describe, expect, it } from 'vitest'
import {
  createHeadTracker,
  type HeadPollClock,
  type HeadTracker,
} from '../../src/adapters/rpc/head-tracker.js'
import type { PinnedBlock } from '../../src/domain/preflight/chain-reader.js'

/**
 * The head poll's rhythm (head-tracker.ts) in virtual time: a chain whose blocks arrive at
 * given times, an RPC that answers after a round trip, and the tracker's timers, run in order.
 * What is counted: the reads per block, and how late the tracker learns each head.
 */
const STEP = 250
const BLOCK = 2_000
const ROUND_TRIP = 50

/** Runs the tracker against a chain whose block n arrives at `arrivals[n]` ms, until `endMs`. */
async function run(arrivals: number[], endMs: number, blockMs?: number) {
  let now = 0
  const timers: { at: number; seq: number; fn: () => void; live: boolean }[] = []
  let seq = 0
  const clock: HeadPollClock = {
    now: () => now,
    after(ms, fn) {
      const timer = { at: now + ms, seq: seq++, fn, live: true }
      timers.push(timer)
      return {
        cancel: () => {
          timer.live = false
        },
      }
    },
  }
  const headAt = (t: number) => arrivals.filter((a) => a <= t).length - 1
  const block = (n: number): PinnedBlock => ({
    number: BigInt(n),
    hash: `0x${n.toString(16).padStart(64, '0')}`,
    timestamp: BigInt(n * 2),
    gasLimit: 30_000_000n,
    baseFeePerGas: 1n,
  })
  let reads = 0
  /** When the tracker first held each head. */
  const learned = new Map<number, number>()
  let tracker: HeadTracker | undefined
  tracker = createHeadTracker({
    intervalMs: STEP,
    ...(blockMs ? { blockMs } : {}),
    clock,
    // The node answers with its head half a round trip after the read is sent.
    poll: () =>
      new Promise((resolve) => {
        reads++
        const sentAt = now
        clock.after(ROUND_TRIP, () => {
          const answer = block(headAt(sentAt + ROUND_TRIP / 2))
          tracker?.observe(answer)
          const n = Number(answer.number)
          if (!learned.has(n)) learned.set(n, now)
          resolve(answer)
        })
      }),
  })
  while (true) {
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq)
    const next = timers.shift()
    if (next === undefined || next.at > endMs) break
    if (!next.live) continue
    now = next.at
    next.fn()
    // The poll's continuations (then, schedule) run before the next timer.
    for (let i = 0; i < 5; i++) await Promise.resolve()
  }
  tracker.stop()
  const lateness = arrivals
    .map((arrived, n) => (learned.has(n) ? (learned.get(n) as number) - arrived : undefined))
    .filter((late): late is number => late !== undefined)
  return { reads, lateness, blocks: arrivals.filter((a) => a <= endMs).length }
}

/** Reads when stepping all along: one each step after a round trip. */
const stepsIn = (ms: number) => Math.floor(ms / (STEP + ROUND_TRIP))

const regular = (count: number, phase = 137) =>
  Array.from({ length: count }, (_, n) => phase + n * BLOCK)

describe('the head poll on a chain with a rhythm (blockMs)', () => {
  it('reads 2-3 times a block instead of 7, and learns each head as soon', async () => {
    const arrivals = regular(60)
    const stepping = await run(arrivals, 120_000)
    const rhythmic = await run(arrivals, 120_000, BLOCK)
    // Every step: a read each 300 ms (the step after each 50 ms answer), 400 in 120 s.
    expect(stepping.reads).toBe(stepsIn(120_000))
    expect(rhythmic.reads).toBeLessThanOrEqual(3 * rhythmic.blocks)
    expect(rhythmic.reads * 2).toBeLessThan(stepping.reads)
    // Every head learned, none later than a step and a round trip (as every step does).
    expect(rhythmic.lateness).toHaveLength(60)
    expect(Math.max(...rhythmic.lateness)).toBeLessThanOrEqual(STEP + 2 * ROUND_TRIP)
    expect(Math.max(...stepping.lateness)).toBeLessThanOrEqual(STEP + 2 * ROUND_TRIP)
  })

  it('steps on a chain that mines on demand, as without blockMs', async () => {
    // Gaps of 0.4 to 5 s, no rhythm (a devnet, or a test's anvil behind BASE_RPC_URL).
    let t = 100
    const arrivals = Array.from({ length: 40 }, (_, n) => {
      t += 400 + ((n * 7919) % 4_600)
      return t
    })
    const end = (arrivals.at(-1) as number) + 1_000
    const stepping = await run(arrivals, end)
    const rhythmic = await run(arrivals, end, BLOCK)
    expect(rhythmic.reads).toBeGreaterThanOrEqual(stepping.reads - 2)
    expect(Math.max(...rhythmic.lateness)).toBeLessThanOrEqual(STEP + 2 * ROUND_TRIP)
  })

  it('drops back to stepping when the rhythm breaks, and finds it again', async () => {
    // 20 regular blocks; one 600 ms early; 10 regular at its phase; a 7 s stall; 10 regular.
    const first = regular(20)
    const early = (first.at(-1) as number) + BLOCK - 600
    const second = Array.from({ length: 10 }, (_, n) => early + (n + 1) * BLOCK)
    const resumed = (second.at(-1) as number) + 7_000
    const third = Array.from({ length: 10 }, (_, n) => resumed + n * BLOCK)
    const arrivals = [...first, early, ...second, ...third]
    const result = await run(arrivals, (arrivals.at(-1) as number) + 500, BLOCK)
    expect(result.lateness).toHaveLength(41)
    const bound = STEP + 2 * ROUND_TRIP
    // The early head is learned late by at most its earliness (the wait before it was due)...
    expect(result.lateness[20]).toBeGreaterThan(bound)
    expect(result.lateness[20]).toBeLessThanOrEqual(600 + bound)
    // ...and every other head within a step and two round trips, as when stepping.
    expect(Math.max(...result.lateness.filter((_, n) => n !== 20))).toBeLessThanOrEqual(bound)
    // Stepping again after the early head and through the stall, then in rhythm again.
    expect(result.reads).toBeLessThan(stepsIn((arrivals.at(-1) as number) + 500) / 2)
  })

  it('never learns a rhythm with a step over a quarter of the block', async () => {
    const arrivals = regular(20)
    const withRhythm = await run(arrivals, 40_000, 4 * STEP - 1)
    const without = await run(arrivals, 40_000)
    expect(withRhythm.reads).toBe(without.reads)
  })
})
