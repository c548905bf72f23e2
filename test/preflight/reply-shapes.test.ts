import { getAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import {
  blockHeaderOf,
  feeRewardsOf,
  hexOf,
  quantityOf,
  simulatedCallsOf,
} from '../../src/adapters/rpc/reply-shapes.js'
import { checksummed, isAddressShaped } from '../../src/domain/evm/checksummed.js'

/**
 * The hand-written readers of RPC replies (they replaced zod schemas on the preflight's hot
 * path): real anvil answers are read in full, and every way a field can be wrong is refused.
 */
let devnet: Devnet
const rpc = async (method: string, params: unknown[]) => {
  const res = await fetch(devnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result: unknown }
  return body.result
}

beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

describe('simple values', () => {
  it('hex: 0x and hex digits of any count and case, nothing else', () => {
    for (const ok of ['0x', '0xab', '0xABcd01', `0x${'f'.repeat(4096)}`]) expect(hexOf(ok)).toBe(ok)
    for (const bad of ['', 'ab', '0xzz', '0x ab', ' 0x', 1, null, undefined, {}, ['0x']])
      expect(hexOf(bad)).toBeUndefined()
  })

  it('quantities: at least one digit, below 2^bits', () => {
    expect(quantityOf('0x0', 64)).toBe(0n)
    expect(quantityOf('0xffffffffffffffff', 64)).toBe(2n ** 64n - 1n)
    expect(quantityOf('0x10000000000000000', 64)).toBeUndefined()
    expect(quantityOf(`0x${'f'.repeat(64)}`, 256)).toBe(2n ** 256n - 1n)
    expect(quantityOf(`0x1${'0'.repeat(64)}`, 256)).toBeUndefined()
    for (const bad of ['0x', '12', '0xg', 12, null]) expect(quantityOf(bad, 256)).toBeUndefined()
  })
})

describe('eth_getBlockByNumber and eth_feeHistory', () => {
  it("reads anvil's latest header and refuses it with any pinned field broken", async () => {
    const raw = (await rpc('eth_getBlockByNumber', ['latest', false])) as Record<string, unknown>
    const header = blockHeaderOf(raw)
    expect(header).toEqual({
      number: BigInt(raw.number as string),
      hash: raw.hash,
      timestamp: BigInt(raw.timestamp as string),
      gasLimit: BigInt(raw.gasLimit as string),
      baseFeePerGas: BigInt(raw.baseFeePerGas as string),
    })
    const { baseFeePerGas: _, ...preLondon } = raw
    expect(blockHeaderOf(preLondon)?.baseFeePerGas).toBeUndefined()
    const broken: [string, unknown][] = [
      ['number', undefined],
      ['number', `0x1${'0'.repeat(16)}`],
      ['hash', '0x1234'],
      ['hash', 42],
      ['timestamp', 'soon'],
      ['gasLimit', null],
      ['baseFeePerGas', null],
      ['baseFeePerGas', `0x1${'0'.repeat(64)}`],
    ]
    for (const [field, value] of broken) {
      const copy = { ...raw, [field]: value }
      if (value === undefined) delete copy[field]
      expect(blockHeaderOf(copy), `${field}: ${String(value)}`).toBeUndefined()
    }
    for (const bad of [null, [], 'block', [raw]]) expect(blockHeaderOf(bad)).toBeUndefined()
  })

  it('reads the rewards of a real fee history; a broken field refuses it', async () => {
    const raw = (await rpc('eth_feeHistory', ['0x2', 'latest', [50]])) as Record<string, unknown>
    const rewards = feeRewardsOf(raw)
    expect(rewards).toEqual((raw.reward as string[][]).map((row) => row.map((r) => BigInt(r))))
    const { reward: _, ...noReward } = raw
    expect(feeRewardsOf(noReward)).toEqual([])
    expect(feeRewardsOf({ ...raw, oldestBlock: 'x' })).toBeUndefined()
    expect(feeRewardsOf({ ...raw, baseFeePerGas: ['0x1', 'x'] })).toBeUndefined()
    expect(feeRewardsOf({ ...raw, reward: [['0x1'], ['nope']] })).toBeUndefined()
    expect(feeRewardsOf({ ...raw, reward: ['0x1'] })).toBeUndefined()
  })
})

describe('eth_simulateV1', () => {
  const { buyer } = DEVNET_ACCOUNTS
  const person = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
  let raw: unknown

  beforeAll(async () => {
    const block = (await rpc('eth_getBlockByNumber', ['latest', false])) as { hash: string }
    // A USDC transfer (a log), an ETH transfer (a traced log), and a call that reverts.
    raw = await rpc('eth_simulateV1', [
      {
        blockStateCalls: [
          {
            calls: [
              {
                from: buyer.address,
                to: USDC_ADDRESS,
                data: `0xa9059cbb${person.slice(2).toLowerCase().padStart(64, '0')}${'1'.padStart(64, '0')}`,
              },
              { from: buyer.address, to: person, value: '0x5' },
              { from: buyer.address, to: USDC_ADDRESS, data: '0xdeadbeef' },
            ],
          },
        ],
        traceTransfers: true,
        validation: false,
      },
      { blockHash: block.hash },
    ])
  })

  it('reads every call of a real answer: status, return data, gas, logs and the revert', () => {
    const calls = simulatedCallsOf(raw, 2048)
    const block = (raw as { calls: Record<string, unknown>[] }[])[0]
    expect(calls).toHaveLength(3)
    expect(calls?.map((c) => c.status)).toEqual(['0x1', '0x1', '0x0'])
    calls?.forEach((call, i) => {
      const wire = block?.calls[i] as Record<string, unknown>
      expect(call.returnData).toBe(wire.returnData)
      expect(call.gasUsed).toBe(BigInt(wire.gasUsed as string))
      const logs = (wire.logs as { address: string; topics: string[]; data: string }[]) ?? []
      expect(call.logs ?? []).toEqual(
        logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
      )
    })
    expect(calls?.[0]?.logs?.length).toBeGreaterThan(0)
    expect(calls?.[1]?.logs?.length).toBeGreaterThan(0)
    expect(calls?.[2]?.error?.message).toEqual(expect.any(String))
  })

  it('refuses an answer with any field of any call or log broken', () => {
    type Wire = { calls: Record<string, unknown>[] }[]
    // Strict accessors: a mutation that found nothing to change would make its case vacuous.
    const call = (w: Wire, i: number) => (w[0] as Wire[number]).calls[i] as Record<string, unknown>
    const log0 = (w: Wire) => (call(w, 0).logs as object[])[0] as object
    const breaks: [string, (w: Wire) => void][] = [
      ['two blocks', (w) => w.push(w[0] as Wire[number])],
      ['no calls', (w) => delete (w[0] as { calls?: unknown }).calls],
      ['a status of 0x2', (w) => Object.assign(call(w, 0), { status: '0x2' })],
      ['return data not hex', (w) => Object.assign(call(w, 0), { returnData: '0xzz' })],
      ['gas of 65 digits', (w) => Object.assign(call(w, 0), { gasUsed: `0x${'1'.repeat(65)}` })],
      ['gas missing', (w) => delete call(w, 0).gasUsed],
      ['logs not a list', (w) => Object.assign(call(w, 0), { logs: {} })],
      ['logs null', (w) => Object.assign(call(w, 0), { logs: null })],
      [
        'a log address of 19 bytes',
        (w) =>
          Object.assign(log0(w), {
            address: `0x${'a'.repeat(38)}`,
          }),
      ],
      ['a short topic', (w) => Object.assign(log0(w), { topics: ['0x01'] })],
      [
        'five topics',
        (w) =>
          Object.assign(log0(w), {
            topics: Array(5).fill(`0x${'0'.repeat(64)}`),
          }),
      ],
      ['log data not hex', (w) => Object.assign(log0(w), { data: 'data' })],
      ['an error that is a string', (w) => Object.assign(call(w, 2), { error: 'reverted' })],
      [
        'an error code that is a string',
        (w) => Object.assign(call(w, 2), { error: { code: '3', message: 'x' } }),
      ],
      [
        'error data not hex',
        (w) => Object.assign(call(w, 2), { error: { code: 3, data: 'nope' } }),
      ],
    ]
    for (const [name, mutate] of breaks) {
      const copy = clone(raw) as Wire
      mutate(copy)
      expect(simulatedCallsOf(copy, 2048), name).toBeUndefined()
    }
    const logs = (call(raw as Wire, 0).logs as unknown[]).length
    expect(simulatedCallsOf(raw, logs)).toBeDefined()
    expect(simulatedCallsOf(raw, logs - 1), 'more logs than allowed').toBeUndefined()
  })
})

describe('checksummed addresses', () => {
  it("gives viem's getAddress for any case, from the cache too, and throws like it", () => {
    const addresses = [
      '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      '0X3C44CDDDB6A900FA2B585DD299E03D12FA4293BC'.replace('0X', '0x'),
      USDC_ADDRESS,
      '0x0000000000000000000000000000000000000000',
    ]
    for (const a of addresses) {
      expect(checksummed(a)).toBe(getAddress(a))
      expect(checksummed(a)).toBe(getAddress(a))
    }
    for (let i = 0; i < 5000; i++) {
      const a = `0x${i.toString(16).padStart(40, '0')}`
      expect(checksummed(a)).toBe(getAddress(a))
    }
    expect(() => checksummed('0x1234')).toThrow()
    expect(isAddressShaped('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc')).toBe(true)
    expect(isAddressShaped('0x3c44cdddb6a900fa2b585dd299e03d12fa4293b')).toBe(false)
    expect(isAddressShaped('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bcz')).toBe(false)
    expect(isAddressShaped(42)).toBe(false)
  })
})
