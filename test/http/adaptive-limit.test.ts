import { describe, expect, it } from 'vitest'
import { ADAPT_WINDOW_MS, createAdaptiveLimit } from '../../src/http/adaptive-limit.js'
import { createPreflightAdmission } from '../../src/http/preflight-admission.js'

// The adaptive preflight bound (src/http/adaptive-limit.ts) over a real admission, fed samples
// on a clock of our own: one move per window at most, down a tenth on a lag past the target,
// up a sixteenth (at least one) on a quiet window that reached the bound, held otherwise.

function controller(max: number, min: number, target = 20) {
  const admission = createPreflightAdmission(max)
  const moves: number[] = []
  const limit = createAdaptiveLimit({
    admission,
    minLimit: min,
    targetDelayMs: target,
    onChange: (n) => moves.push(n),
  })
  let at = 0
  /** One window of samples every 5 ms, each late by `late` ms (the last one decides nothing more). */
  const window = (late: number, during?: () => void) => {
    for (let t = 0; t < ADAPT_WINDOW_MS; t += 5) {
      limit.sample(late, at)
      during?.()
      at += 5
    }
    limit.sample(late, at)
  }
  return { admission, limit, moves, window }
}

describe('createAdaptiveLimit', () => {
  it('starts at the configured bound and cuts it by a tenth per window whose lag passed the target, never under the floor', () => {
    const { admission, moves, window } = controller(128, 16)
    expect(admission.limit).toBe(128)
    window(25)
    expect(admission.limit).toBe(115)
    for (let i = 0; i < 40; i++) window(25)
    expect(admission.limit).toBe(16)
    expect(moves.slice(0, 4)).toEqual([115, 103, 92, 82])
    // At the floor a lagging window moves nothing (and tells nothing).
    const told = moves.length
    window(500)
    expect(admission.limit).toBe(16)
    expect(moves.length).toBe(told)
  })

  it('moves at most once per window, whatever the samples in it', () => {
    const { admission, limit } = controller(100, 10)
    for (let t = 0; t < ADAPT_WINDOW_MS; t += 5) limit.sample(1_000, t)
    // The window has not closed: no move yet.
    expect(admission.limit).toBe(100)
    limit.sample(0, ADAPT_WINDOW_MS)
    expect(admission.limit).toBe(90)
  })

  it('raises the bound only after a quiet window that reached it, by a sixteenth (at least one)', () => {
    const { admission, limit, window } = controller(128, 16)
    for (let i = 0; i < 40; i++) window(25)
    expect(admission.limit).toBe(16)
    // Quiet, but the bound was never reached: held (an idle instance keeps what it learnt).
    window(0)
    expect(admission.limit).toBe(16)
    // Quiet, and a preflight was shed for slots: up by one (16 / 16).
    window(0, () => limit.shedForSlots())
    expect(admission.limit).toBe(17)
    // Quiet, every slot taken at a sample: up again.
    const held = Array.from({ length: admission.limit }, () => admission.tryEnter())
    window(2)
    expect(admission.limit).toBe(18)
    for (const release of held) release?.()
    // From 64 a step is 4 (a sixteenth).
    admission.setLimit(64)
    window(0, () => limit.shedForSlots())
    expect(admission.limit).toBe(68)
    // Never over the configured bound.
    admission.setLimit(127)
    window(0, () => limit.shedForSlots())
    window(0, () => limit.shedForSlots())
    expect(admission.limit).toBe(128)
  })

  it('holds between half the target and the target, even when the bound is reached', () => {
    const { admission, limit, window } = controller(64, 8, 20)
    window(15, () => limit.shedForSlots())
    window(20, () => limit.shedForSlots())
    expect(admission.limit).toBe(64)
    window(20.5)
    expect(admission.limit).toBe(57)
  })

  it('refuses a target of zero and a floor under one; a floor over the bound is the bound', () => {
    const admission = createPreflightAdmission(8)
    expect(() => createAdaptiveLimit({ admission, minLimit: 4, targetDelayMs: 0 })).toThrow()
    expect(() => createAdaptiveLimit({ admission, minLimit: 0, targetDelayMs: 20 })).toThrow()
    const limit = createAdaptiveLimit({ admission, minLimit: 100, targetDelayMs: 20 })
    for (let at = 0; at <= 10 * ADAPT_WINDOW_MS; at += 5) limit.sample(100, at)
    expect(admission.limit).toBe(8)
  })
})
