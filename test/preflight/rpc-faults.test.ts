import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { startFaultyRpc } from '../support/faulty-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * Every read the preflight makes, broken one at a time, in every way a node or load balancer
 * breaks: the answer is 503 rpc_unavailable within the timeout, never a 500, a hang, or a
 * verdict about the transaction.
 */
const PATH = '/payanagent/v1/base-transaction-preflight'
const TIMEOUT_MS = 400
const request = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  data: '0x',
  value: '0x1',
}

let devnet: Devnet
let rpc: Awaited<ReturnType<typeof startFaultyRpc>>
let app: ReturnType<typeof preflightApp>

beforeAll(async () => {
  devnet = await startDevnet()
  rpc = await startFaultyRpc(devnet.rpcUrl)
  app = preflightApp(rpc.url, { timeoutMs: TIMEOUT_MS })
}, 60_000)

afterAll(async () => {
  await rpc?.close()
  await devnet?.stop()
})

const METHODS = [
  'eth_getBlockByNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_getBalance',
  'eth_getCode',
  'eth_getTransactionCount',
  'eth_feeHistory',
  'eth_simulateV1',
]
const HUGE = `0x${'f'.repeat(80)}`
const FAULTS = {
  'an object where a value belongs': { kind: 'result', result: { weird: true } },
  'a non-hex string': { kind: 'result', result: 'zz' },
  'a quantity beyond 256 bits': { kind: 'result', result: HUGE },
  'a node timeout as -32000': {
    kind: 'error',
    code: -32000,
    message: 'execution aborted (timeout = 5s)',
  },
  'a rate limit as -32005': { kind: 'error', code: -32005, message: 'rate limit exceeded' },
  'headers, then a stalled body': { kind: 'stall' },
  'a body dripping past the deadline': { kind: 'drip' },
} as const

describe('a broken read of the preflight is a 503, never a 500 or a hang', () => {
  it('answers 200 through the proxy when nothing is broken, every state read pinned by hash', async () => {
    rpc.clear()
    rpc.seen.length = 0
    // The fault cases need a short deadline to stay quick; the healthy one must not race it on
    // a loaded machine (it is about pinning, not speed).
    const res = await postJson(preflightApp(rpc.url, { timeoutMs: 10_000 }), PATH, request)
    expect(res.status).toBe(200)
    const { block } = (await res.json()) as {
      block: { number: string; hash: string; timestamp: string }
    }
    const stateReads = rpc.seen.filter((r) =>
      [
        'eth_call',
        'eth_estimateGas',
        'eth_getBalance',
        'eth_getCode',
        'eth_getTransactionCount',
        'eth_simulateV1',
      ].includes(r.method),
    )
    // eth_call (the transaction), estimate, balance, nonce, code x2, eth_simulateV1, which also
    // carries the GasPriceOracle's fee parameters (the L1 fee is computed, not asked for).
    expect(stateReads.map((r) => r.method).sort()).toEqual([
      'eth_call',
      'eth_estimateGas',
      'eth_getBalance',
      'eth_getCode',
      'eth_getCode',
      'eth_getTransactionCount',
      'eth_simulateV1',
    ])
    const simulation = stateReads.find((r) => r.method === 'eth_simulateV1')
    expect(JSON.stringify(simulation?.params).toLowerCase()).toContain(
      '0x420000000000000000000000000000000000000f',
    )
    for (const read of stateReads)
      expect(read.params[1], read.method).toEqual({ blockHash: block.hash })
    // The transaction's own call and estimate run as in the block it lands in: the pinned
    // block's state, the next block's number and time (Base: 2 s on).
    for (const read of stateReads.filter((r) => ['eth_call', 'eth_estimateGas'].includes(r.method)))
      expect(read.params.slice(2), read.method).toEqual([
        {},
        {
          number: `0x${(BigInt(block.number) + 1n).toString(16)}`,
          time: `0x${(BigInt(block.timestamp) + 2n).toString(16)}`,
        },
      ])
    // So is the simulation's block.
    const payload = simulation?.params[0] as { blockStateCalls: unknown[] } | undefined
    const simulated = payload?.blockStateCalls[0]
    expect(simulated).toMatchObject({
      blockOverrides: {
        number: `0x${(BigInt(block.number) + 1n).toString(16)}`,
        time: `0x${(BigInt(block.timestamp) + 2n).toString(16)}`,
      },
    })
    for (const read of stateReads.filter(
      (r) => !['eth_call', 'eth_estimateGas'].includes(r.method),
    ))
      expect(read.params, read.method).toHaveLength(2)
    const history = rpc.seen.find((r) => r.method === 'eth_feeHistory')
    expect(history?.params[1]).toBe(`0x${BigInt(block.number).toString(16)}`)
  })

  for (const method of METHODS) {
    for (const [name, fault] of Object.entries(FAULTS)) {
      // A huge hex blob is valid bytecode or return data: only quantities can be out of range.
      if (
        fault.kind === 'result' &&
        fault.result === HUGE &&
        ['eth_call', 'eth_getCode'].includes(method)
      )
        continue
      it(`${method}: ${name}`, async () => {
        rpc.set(method, fault as never)
        const started = Date.now()
        const res = await postJson(app, PATH, request)
        const elapsed = Date.now() - started
        expect(res.status).toBe(503)
        expect(await res.json()).toMatchObject({ error: 'rpc_unavailable' })
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
        // Bounded by the per-request deadline (a few reads run in sequence), not by a socket idle timeout.
        expect(elapsed).toBeLessThan(TIMEOUT_MS * 4 + 1000)
      })
    }
  }

  it("reports a real revert as a revert, with the node's words, not as RPC trouble", async () => {
    // (eth_call also serves the GasPriceOracle read, so the estimate carries the revert here.)
    rpc.set('eth_estimateGas', {
      kind: 'error',
      code: -32000,
      message: 'execution reverted: paused',
    })
    const res = await postJson(app, PATH, request)
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      verdict: string
      gas: { success: boolean; message: string }
    }
    expect(body.verdict).toBe('block')
    expect(body.gas).toMatchObject({ success: false, message: expect.stringContaining('paused') })
  })
})

describe('a node without eth_simulateV1 is not node trouble', () => {
  it('a generic -32000 "not supported" answer falls back to debug_traceCall, pinned by hash: 200', async () => {
    rpc.set('eth_simulateV1', {
      kind: 'error',
      code: -32000,
      message: 'the method eth_simulateV1 is not supported',
    })
    rpc.seen.length = 0
    const res = await postJson(app, PATH, request)
    expect(res.status).toBe(200)
    const answer = (await res.json()) as { block: { hash: string }; effects: unknown }
    expect(answer.effects).toMatchObject({ available: true, source: 'debug_traceCall' })
    const trace = rpc.seen.find((r) => r.method === 'debug_traceCall')
    expect(trace?.params[1]).toEqual({ blockHash: answer.block.hash })
    rpc.clear()
  })

  it('a debug_traceCall fallback answering garbage is a 503, like any read', async () => {
    rpc.set('debug_traceCall', { kind: 'result', result: { weird: true } })
    const proxy = await startCountingRpc(rpc.url, { holdMs: 0 })
    try {
      proxy.lack('eth_simulateV1')
      const res = await postJson(preflightApp(proxy.url, { timeoutMs: 1000 }), PATH, request)
      expect(res.status).toBe(503)
      expect(await res.json()).toMatchObject({ error: 'rpc_unavailable' })
    } finally {
      await proxy.close()
      rpc.clear()
    }
  })
})
