import fc from 'fast-check'
import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { RpcOutcome } from '../../src/adapters/http/observed-fetch.js'
import { createRpcCallMetrics } from '../../src/adapters/metrics/rpc-call-metrics.js'
import { LATENCY_BUCKETS } from '../../src/adapters/metrics/service-metrics.js'

/**
 * The RPC call metrics kept in plain maps print exactly what prom-client's own `Counter` and
 * `Histogram` print for the same calls: same samples, same labels, same text, same JSON.
 */
function reference(registry: Registry) {
  const requests = new Counter({
    name: 'rpc_requests_total',
    help: 'JSON-RPC requests to the Base RPC, by method and outcome (ok, rpc_error, http_error, timeout, network_error).',
    labelNames: ['method', 'outcome'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'rpc_request_duration_seconds',
    help: 'JSON-RPC request latency to the Base RPC, reply body included, by method.',
    labelNames: ['method'] as const,
    buckets: [...LATENCY_BUCKETS],
    registers: [registry],
  })
  return (method: string, outcome: RpcOutcome, seconds: number) => {
    requests.inc({ method, outcome })
    duration.observe({ method }, seconds)
  }
}

const OUTCOMES: RpcOutcome[] = ['ok', 'rpc_error', 'http_error', 'timeout', 'network_error']
const call = fc.record({
  method: fc.constantFrom('eth_call', 'eth_getCode', 'eth_simulateV1', 'eth_feeHistory'),
  outcome: fc.constantFrom(...OUTCOMES),
  // On the bounds, between them, and past the last one.
  seconds: fc.oneof(
    fc.constantFrom(...LATENCY_BUCKETS, 0),
    fc.double({ min: 0, max: 60, noNaN: true }),
  ),
})

describe('RPC call metrics', () => {
  it("print what prom-client's Counter and Histogram print for the same calls", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 60 }), async (calls) => {
        const theirs = new Registry()
        const ours = new Registry()
        const observeTheirs = reference(theirs)
        const { observe } = createRpcCallMetrics(LATENCY_BUCKETS, [ours])
        for (const c of calls) {
          observeTheirs(c.method, c.outcome, c.seconds)
          observe(c.method, c.outcome, c.seconds)
        }
        expect(await ours.metrics()).toBe(await theirs.metrics())
        expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON())
        theirs.resetMetrics()
        ours.resetMetrics()
        expect(await ours.metrics()).toBe(await theirs.metrics())
      }),
      { numRuns: 200 },
    )
  })

  it('count a call with its outcome and time it by method', async () => {
    const registry = new Registry()
    const { observe } = createRpcCallMetrics(LATENCY_BUCKETS, [registry])
    observe('eth_call', 'ok', 0.002)
    observe('eth_call', 'ok', 0.2)
    observe('eth_call', 'timeout', 40)
    const text = await registry.metrics()
    expect(text).toContain('rpc_requests_total{method="eth_call",outcome="ok"} 2')
    expect(text).toContain('rpc_requests_total{method="eth_call",outcome="timeout"} 1')
    expect(text).toContain('rpc_request_duration_seconds_bucket{le="0.0025",method="eth_call"} 1')
    expect(text).toContain('rpc_request_duration_seconds_bucket{le="30",method="eth_call"} 2')
    expect(text).toContain('rpc_request_duration_seconds_bucket{le="+Inf",method="eth_call"} 3')
    expect(text).toContain('rpc_request_duration_seconds_count{method="eth_call"} 3')
  })
})
