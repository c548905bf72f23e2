import { describe, expect, it } from 'vitest'
import { createPreflightAdmission, shedReason } from '../../src/http/preflight-admission.js'

describe('createPreflightAdmission', () => {
  it('takes slots up to its limit, then sheds; a release frees one once', () => {
    const seen: [number, number][] = []
    const admission = createPreflightAdmission(2, (inFlight, waiting) =>
      seen.push([inFlight, waiting]),
    )
    const a = admission.tryEnter()
    const b = admission.tryEnter()
    expect(a && b).toBeTruthy()
    expect(admission.saturated()).toBe(true)
    expect(admission.tryEnter()).toBeUndefined()
    a?.()
    a?.()
    expect(admission.inFlight).toBe(1)
    expect(admission.tryEnter()).toBeTruthy()
    expect(seen).toEqual([
      [1, 0],
      [2, 0],
      [1, 0],
      [2, 0],
    ])
  })

  it('gives a freed slot to the waiters first, in order, before any new free preflight', async () => {
    const admission = createPreflightAdmission(1)
    const first = admission.tryEnter()
    const order: string[] = []
    const w1 = admission.enter().then((release) => {
      order.push('w1')
      return release
    })
    const w2 = admission.enter().then((release) => {
      order.push('w2')
      return release
    })
    expect(admission.waiting).toBe(2)
    first?.()
    // The slot went to w1, not to a free preflight arriving now.
    expect(admission.tryEnter()).toBeUndefined()
    const r1 = await w1
    expect(order).toEqual(['w1'])
    expect(admission.inFlight).toBe(1)
    r1()
    const r2 = await w2
    expect(order).toEqual(['w1', 'w2'])
    expect(admission.saturated()).toBe(true)
    r2()
    expect(admission.inFlight).toBe(0)
    expect(admission.saturated()).toBe(false)
  })

  it('moves its bound: lowered, nothing is taken back and new preflights wait for releases; raised, waiters get the room first', async () => {
    const admission = createPreflightAdmission(4)
    expect(admission.maxLimit).toBe(4)
    const held = [admission.tryEnter(), admission.tryEnter(), admission.tryEnter()]
    admission.setLimit(2)
    expect(admission.limit).toBe(2)
    expect(admission.inFlight).toBe(3)
    expect(admission.tryEnter()).toBeUndefined()
    held[0]?.()
    // 2 in flight under a bound of 2: still shed.
    expect(admission.tryEnter()).toBeUndefined()
    // A paid call waits; a release under the bound passes it its slot.
    const order: string[] = []
    const waiter = admission.enter().then((release) => {
      order.push('paid')
      return release
    })
    expect(admission.waiting).toBe(1)
    held[1]?.()
    const paid = await waiter
    expect(order).toEqual(['paid'])
    expect(admission.inFlight).toBe(2)
    // Raised: the waiters take the room before any new free preflight.
    const second = admission.enter()
    admission.setLimit(3)
    await second
    expect(admission.inFlight).toBe(3)
    expect(admission.waiting).toBe(0)
    // Kept within 1 and the configured bound, rounded.
    admission.setLimit(1_000)
    expect(admission.limit).toBe(4)
    admission.setLimit(0)
    expect(admission.limit).toBe(1)
    admission.setLimit(2.6)
    expect(admission.limit).toBe(3)
    paid()
  })

  it('refuses a limit below one', () => {
    expect(() => createPreflightAdmission(0)).toThrow()
  })
})

describe('shedReason', () => {
  it('sheds for the slots first, for the loop only with a preflight in flight, and asks the loop only then', () => {
    const admission = createPreflightAdmission(2)
    let asked = 0
    const lags = () => {
      asked++
      return true
    }
    // None in flight: a lone preflight is admitted whatever the loop says, which is not asked.
    expect(shedReason(admission, lags)).toBeUndefined()
    expect(asked).toBe(0)
    const first = admission.tryEnter()
    expect(shedReason(admission, lags)).toBe('event_loop')
    expect(shedReason(admission, () => false)).toBeUndefined()
    admission.tryEnter()
    // Every slot taken: the slots, without asking the loop.
    asked = 0
    expect(shedReason(admission, lags)).toBe('slots')
    expect(asked).toBe(0)
    first?.()
    expect(shedReason(admission, () => false)).toBeUndefined()
  })
})
