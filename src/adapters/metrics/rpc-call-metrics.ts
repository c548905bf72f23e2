import type { Metric, Registry } from 'prom-client'
import type { RpcObserver } from '../http/observed-fetch.js'

/** A sample as prom-client's registry prints it: `metricName{labels} value`. */
interface Sample {
  value: number
  labels: Record<string, string | number>
  metricName?: string
  /** Histogram buckets carry one (none recorded here), as prom-client's do. */
  exemplar?: null
}

/** What prom-client's `Registry` asks of a metric (its own `Counter` and `Histogram` give the same). */
interface RegistryMetric {
  name: string
  help: string
  type: 'counter' | 'histogram'
  aggregator: 'sum'
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>
  reset(): void
}

const REQUESTS = {
  name: 'rpc_requests_total',
  help: 'JSON-RPC requests to the Base RPC, by method and outcome (ok, rpc_error, http_error, timeout, network_error).',
}
const DURATION = {
  name: 'rpc_request_duration_seconds',
  help: 'JSON-RPC request latency to the Base RPC, reply body included, by method.',
}

/**
 * `rpc_requests_total` (method, outcome) and `rpc_request_duration_seconds` (method): the same
 * counter and histogram, samples and text as prom-client's `Counter` and `Histogram` would give,
 * recorded in plain maps. A preflight's wave records a dozen calls, and prom-client hashes and
 * validates the label set at every one (about 3 % of a preflight's CPU, bench/service.ts); here a
 * call is a map lookup and a few additions, and the samples are built when `/metrics` is read.
 * Label values are our own method names and outcome codes: a bounded set.
 */
export function createRpcCallMetrics(buckets: readonly number[], registries: Registry[]) {
  const counts = new Map<string, { method: string; outcome: string; value: number }>()
  const timings = new Map<string, { perBucket: number[]; sum: number; count: number }>()

  const observe: RpcObserver = (method, outcome, seconds) => {
    const key = `${method} ${outcome}`
    const counted = counts.get(key)
    if (counted !== undefined) counted.value++
    else counts.set(key, { method, outcome, value: 1 })
    let timing = timings.get(method)
    if (timing === undefined) {
      timing = { perBucket: buckets.map(() => 0), sum: 0, count: 0 }
      timings.set(method, timing)
    }
    // The first bound at or above the value, as prom-client places it; above all: +Inf only.
    const at = buckets.findIndex((bound) => seconds <= bound)
    if (at >= 0) timing.perBucket[at] = (timing.perBucket[at] ?? 0) + 1
    timing.sum += seconds
    timing.count++
  }

  const requests: RegistryMetric = {
    ...REQUESTS,
    type: 'counter',
    aggregator: 'sum',
    async get() {
      const values = [...counts.values()].map(({ method, outcome, value }) => ({
        value,
        labels: { method, outcome },
      }))
      return { ...REQUESTS, type: 'counter', values, aggregator: 'sum' }
    },
    reset: () => counts.clear(),
  }
  const duration: RegistryMetric = {
    ...DURATION,
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: Sample[] = []
      for (const [method, { perBucket, sum, count }] of timings) {
        let cumulative = 0
        buckets.forEach((bound, i) => {
          cumulative += perBucket[i] ?? 0
          values.push({
            value: cumulative,
            labels: { le: bound, method },
            metricName: `${DURATION.name}_bucket`,
            exemplar: null,
          })
        })
        values.push(
          {
            value: count,
            labels: { le: '+Inf', method },
            metricName: `${DURATION.name}_bucket`,
            exemplar: null,
          },
          { value: sum, labels: { method }, metricName: `${DURATION.name}_sum` },
          { value: count, labels: { method }, metricName: `${DURATION.name}_count` },
        )
      }
      return { ...DURATION, type: 'histogram', values, aggregator: 'sum' }
    },
    reset: () => timings.clear(),
  }
  for (const registry of registries) {
    // prom-client's registry takes any object with its metrics' shape.
    registry.registerMetric(requests as unknown as Metric)
    registry.registerMetric(duration as unknown as Metric)
  }
  return { observe }
}
