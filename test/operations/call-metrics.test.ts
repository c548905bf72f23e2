import fc from 'fast-check'
import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { RpcOutcome } from '../../src/adapters/fetch/observed-fetch.js'
import {
  createServiceMetrics,
  httpCallMetrics,
  LATENCY_BUCKETS,
  rpcCallMetrics,
} from '../../src/adapters/metrics/service-metrics.js'

/**
 * The call metrics kept in plain maps (the RPC client's and the HTTP server's) print exactly
 * what prom-client's own `Counter` and `Histogram` print for the same calls: same samples, same
 * labels, same text, same JSON.
 */
function rpcReference(registry: Registry) {
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

/** The HTTP metrics as they were before, on prom-client's own classes. */
function httpReference(registry: Registry) {
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [...LATENCY_BUCKETS],
    registers: [registry],
  })
  return (route: string, method: string, status: string, seconds: number) => {
    const labels = { route, method, status }
    requests.inc(labels)
    duration.observe(labels, seconds)
  }
}

const OUTCOMES: RpcOutcome[] = ['ok', 'rpc_error', 'http_error', 'timeout', 'network_error']
// On the bounds, between them, and past the last one.
const seconds = fc.oneof(
  fc.constantFrom(...LATENCY_BUCKETS, 0),
  fc.double({ min: 0, max: 60, noNaN: true }),
)
const rpcCall = fc.record({
  method: fc.constantFrom('eth_call', 'eth_getCode', 'eth_simulateV1', 'eth_feeHistory'),
  outcome: fc.constantFrom(...OUTCOMES),
  seconds,
})
const httpCall = fc.record({
  route: fc.constantFrom('/simulate/transaction-preflight', '/receipts/:id', 'unmatched'),
  method: fc.constantFrom('GET', 'POST', 'OPTIONS'),
  status: fc.constantFrom('200', '402', '404', '422', '503'),
  seconds,
})

/** The same text and JSON from both registries, and again after both are reset. */
async function same(ours: Registry, theirs: Registry) {
  expect(await ours.metrics()).toBe(await theirs.metrics())
  expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON())
  theirs.resetMetrics()
  ours.resetMetrics()
  expect(await ours.metrics()).toBe(await theirs.metrics())
}

describe('call metrics', () => {
  it("RPC calls print what prom-client's Counter and Histogram print for the same calls", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rpcCall, { maxLength: 60 }), async (calls) => {
        const theirs = new Registry()
        const ours = new Registry()
        const observeTheirs = rpcReference(theirs)
        const { observe } = rpcCallMetrics([ours])
        for (const c of calls) {
          observeTheirs(c.method, c.outcome, c.seconds)
          observe(c.method, c.outcome, c.seconds)
        }
        await same(ours, theirs)
      }),
      { numRuns: 200 },
    )
  })

  it("HTTP answers print what prom-client's Counter and Histogram print for the same answers", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(httpCall, { maxLength: 60 }), async (calls) => {
        const theirs = new Registry()
        const ours = new Registry()
        const observeTheirs = httpReference(theirs)
        const observe = httpCallMetrics([ours])
        for (const c of calls) {
          observeTheirs(c.route, c.method, c.status, c.seconds)
          observe([c.route, c.method, c.status], c.seconds)
        }
        await same(ours, theirs)
      }),
      { numRuns: 200 },
    )
  })

  it('the service records HTTP answers by route pattern, method and status', async () => {
    const metrics = createServiceMetrics({ processMetrics: false })
    metrics.http(['/receipts/:id', 'GET', '404'], 0.0004)
    metrics.http(['/receipts/:id', 'GET', '404'], 3)
    metrics.http(['/receipts/:id', 'GET', '200'], 0.02)
    const text = await metrics.registry.metrics()
    expect(text).toContain('http_requests_total{route="/receipts/:id",method="GET",status="404"} 2')
    expect(text).toContain('http_requests_total{route="/receipts/:id",method="GET",status="200"} 1')
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.001",route="/receipts/:id",method="GET",status="404"} 1',
    )
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="2.5",route="/receipts/:id",method="GET",status="404"} 1',
    )
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="5",route="/receipts/:id",method="GET",status="404"} 2',
    )
    expect(text).toContain(
      'http_request_duration_seconds_sum{route="/receipts/:id",method="GET",status="404"} 3.0004',
    )
  })

  it('count a call with its outcome and time it by method', async () => {
    const registry = new Registry()
    const { observe } = rpcCallMetrics([registry])
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
