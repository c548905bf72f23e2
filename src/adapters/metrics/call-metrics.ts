import type { Metric, Registry } from 'prom-client'

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

/** A counter of calls and a histogram of their durations; see {@link createCallMetrics}. */
export interface CallMetricsSpec<Label extends string> {
  requests: { name: string; help: string; labelNames: readonly Label[] }
  /** Timed by the first `labelCount` of the counter's labels (all of them when absent). */
  duration: { name: string; help: string; labelCount?: number }
  buckets: readonly number[]
}

/** Records one call: its label values in the counter's label order, and its duration (s). */
export type ObserveCall = (values: readonly string[], seconds: number) => void

/**
 * A counter of calls by label values and a histogram of their durations by a leading part of
 * those labels: the same samples, text and JSON as prom-client's `Counter` and `Histogram` would
 * give, recorded in plain maps. prom-client validates and hashes the label object at every `inc`
 * and `observe`; the HTTP metrics record every request and the RPC metrics every call of a
 * preflight's wave (about 3 % of a preflight's CPU, bench/service.ts), so here a call is a map
 * lookup and a few additions, and the samples are built when `/metrics` is read. Label values
 * must come from bounded sets (route patterns, method names, status and outcome codes).
 */
export function createCallMetrics<Label extends string>(
  spec: CallMetricsSpec<Label>,
  registries: Registry[],
): ObserveCall {
  const { requests, duration, buckets } = spec
  const timedBy = spec.requests.labelNames.slice(0, duration.labelCount)
  const counts = new Map<string, { values: readonly string[]; value: number }>()
  const timings = new Map<
    string,
    { values: readonly string[]; perBucket: number[]; sum: number; count: number }
  >()
  const labelsOf = (names: readonly string[], values: readonly string[]) => {
    const labels: Record<string, string> = {}
    names.forEach((name, i) => {
      labels[name] = values[i] ?? ''
    })
    return labels
  }

  const observe: ObserveCall = (values, seconds) => {
    const key = values.join('\0')
    const counted = counts.get(key)
    if (counted !== undefined) counted.value++
    else counts.set(key, { values: [...values], value: 1 })
    const timedValues = timedBy.length === values.length ? values : values.slice(0, timedBy.length)
    const timedKey = timedValues === values ? key : timedValues.join('\0')
    let timing = timings.get(timedKey)
    if (timing === undefined) {
      timing = { values: [...timedValues], perBucket: buckets.map(() => 0), sum: 0, count: 0 }
      timings.set(timedKey, timing)
    }
    // The first bound at or above the value, as prom-client places it; above all: +Inf only.
    const at = buckets.findIndex((bound) => seconds <= bound)
    if (at >= 0) timing.perBucket[at] = (timing.perBucket[at] ?? 0) + 1
    timing.sum += seconds
    timing.count++
  }

  const counter: RegistryMetric = {
    name: requests.name,
    help: requests.help,
    type: 'counter',
    aggregator: 'sum',
    async get() {
      const values = [...counts.values()].map(({ values, value }) => ({
        value,
        labels: labelsOf(requests.labelNames, values),
      }))
      return {
        name: requests.name,
        help: requests.help,
        type: 'counter',
        values,
        aggregator: 'sum',
      }
    },
    reset: () => counts.clear(),
  }
  const histogram: RegistryMetric = {
    name: duration.name,
    help: duration.help,
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const samples: Sample[] = []
      const bucket = `${duration.name}_bucket`
      for (const { values, perBucket, sum, count } of timings.values()) {
        const labels = labelsOf(timedBy, values)
        let cumulative = 0
        buckets.forEach((bound, i) => {
          cumulative += perBucket[i] ?? 0
          samples.push({
            value: cumulative,
            labels: { le: bound, ...labels },
            metricName: bucket,
            exemplar: null,
          })
        })
        samples.push(
          { value: count, labels: { le: '+Inf', ...labels }, metricName: bucket, exemplar: null },
          { value: sum, labels: { ...labels }, metricName: `${duration.name}_sum` },
          { value: count, labels: { ...labels }, metricName: `${duration.name}_count` },
        )
      }
      return {
        name: duration.name,
        help: duration.help,
        type: 'histogram',
        values: samples,
        aggregator: 'sum',
      }
    },
    reset: () => timings.clear(),
  }
  for (const registry of registries) {
    // prom-client's registry takes any object with its metrics' shape.
    registry.registerMetric(counter as unknown as Metric)
    registry.registerMetric(histogram as unknown as Metric)
  }
  return observe
}
