import type { SendTransactionParameters } from 'viem'
import { describe, expect, it } from 'vitest'
import type { PreflightResult } from '../../packages/client/src/client/guard-responses.js'
import { withSuggestedGas } from '../../packages/client/src/viem/with-suggested-gas.js'

/**
 * The bounds on the guard's gas (viem-guard-gas.test.ts sends through them on a devnet): the
 * limit is viem's estimate raised to the guard's, never under viem's, never over twice it, and
 * the caller's own gas is never touched.
 */
const parameters = {
  to: '0x4200000000000000000000000000000000000006',
  value: 1n,
} as unknown as SendTransactionParameters

const guardSaid = (estimate: bigint): PreflightResult['gas'] => ({
  success: true,
  estimate: estimate.toString(),
})

/** viem's estimate, counted. */
function viemSays(gas: bigint | Error) {
  const calls: SendTransactionParameters[] = []
  return {
    calls,
    estimate: async (p: SendTransactionParameters) => {
      calls.push(p)
      if (gas instanceof Error) throw gas
      return gas
    },
  }
}

const gasOf = (p: SendTransactionParameters) => (p as { gas?: bigint }).gas

describe('withSuggestedGas', () => {
  it("takes the guard's estimate above viem's", async () => {
    const viem = viemSays(147_676n)
    const sent = await withSuggestedGas(parameters, guardSaid(151_614n), viem.estimate)
    expect(gasOf(sent)).toBe(151_614n)
    expect(sent).toMatchObject({ to: parameters.to, value: 1n })
    expect(viem.calls).toEqual([parameters])
  })

  it("keeps viem's estimate when the guard's is lower: a guard cannot starve the send", async () => {
    const viem = viemSays(60_000n)
    expect(gasOf(await withSuggestedGas(parameters, guardSaid(21_000n), viem.estimate))).toBe(
      60_000n,
    )
    expect(gasOf(await withSuggestedGas(parameters, guardSaid(1n), viem.estimate))).toBe(60_000n)
  })

  it("raises it to at most twice viem's", async () => {
    const viem = viemSays(100_000n)
    expect(gasOf(await withSuggestedGas(parameters, guardSaid(200_000n), viem.estimate))).toBe(
      200_000n,
    )
    expect(gasOf(await withSuggestedGas(parameters, guardSaid(30_000_000n), viem.estimate))).toBe(
      200_000n,
    )
  })

  it("leaves the caller's gas, asking viem nothing", async () => {
    const viem = viemSays(100_000n)
    const own = { ...parameters, gas: 90_000n } as SendTransactionParameters
    expect(await withSuggestedGas(own, guardSaid(150_000n), viem.estimate)).toBe(own)
    expect(viem.calls).toEqual([])
  })

  it("leaves the parameters when the guard's estimate failed", async () => {
    const viem = viemSays(100_000n)
    const failed: PreflightResult['gas'] = {
      success: false,
      estimate: null,
      message: 'execution reverted',
      revert: null,
    }
    expect(await withSuggestedGas(parameters, failed, viem.estimate)).toBe(parameters)
    expect(viem.calls).toEqual([])
  })

  it("leaves them to viem's own send when viem cannot estimate", async () => {
    const viem = viemSays(new Error('execution reverted'))
    expect(await withSuggestedGas(parameters, guardSaid(150_000n), viem.estimate)).toBe(parameters)
    expect(viem.calls).toHaveLength(1)
  })
})
