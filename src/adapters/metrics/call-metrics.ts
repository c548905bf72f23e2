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
  // Each label set found by walking its values through nested maps (no key string built per
  // call), its record kept in a list too, in the order of its first call, as prom-client prints.
  const counts = labelTree<{ values: readonly string[]; value: number }>()
  const timings = labelTree<{
    values: readonly string[]
    perBucket: number[]
    sum: number
    count: number
  }>()
  const labelsOf = (names: readonly string[], values: readonly string[]) => {
    const labels: Record<string, string> = {}
    names.forEach((name, i) => {
      labels[name] = values[i] ?? ''
    })
    return labels
  }

  const observe: ObserveCall = (values, seconds) => {
    const counted = counts.find(values, values.length)
    if (counted !== undefined) counted.value++
    else counts.add(values, values.length, { values: [...values], value: 1 })
    let timing = timings.find(values, timedBy.length)
    if (timing === undefined) {
      const timedValues = values.slice(0, timedBy.length)
      timing = { values: timedValues, perBucket: buckets.map(() => 0), sum: 0, count: 0 }
      timings.add(values, timedBy.length, timing)
    }
    // The first bound at or above the value, as prom-client places it; above all: +Inf only.
    for (let at = 0; at < buckets.length; at++) {
      if (seconds <= (buckets[at] as number)) {
        timing.perBucket[at] = (timing.perBucket[at] ?? 0) + 1
        break
      }
    }
    timing.sum += seconds
    timing.count++
  }

  const counter: RegistryMetric = {
    name: requests.name,
    help: requests.help,
    type: 'counter',
    aggregator: 'sum',
    async get() {
      const values = counts.records.map(({ values, value }) => ({
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
      for (const { values, perBucket, sum, count } of timings.records) {
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

/** Records by label values: nested maps, one level per label, and the records in first-use order. */
interface LabelTree<T> {
  /** The record of the first `depth` of `values`, if any. */
  find(values: readonly string[], depth: number): T | undefined
  /** Files `record` under the first `depth` of `values` (which have none yet). */
  add(values: readonly string[], depth: number, record: T): void
  /** Every record, in the order they were added. */
  readonly records: T[]
  clear(): void
}

interface LabelNode<T> {
  children: Map<string, LabelNode<T>> | undefined
  record: T | undefined
}

function labelTree<T>(): LabelTree<T> {
  let root: LabelNode<T> = { children: undefined, record: undefined }
  const tree = {
    records: [] as T[],
    find(values: readonly string[], depth: number): T | undefined {
      let node: LabelNode<T> | undefined = root
      for (let i = 0; i < depth && node !== undefined; i++) {
        node = node.children?.get(values[i] ?? '')
      }
      return node?.record
    },
    add(values: readonly string[], depth: number, record: T): void {
      let node = root
      for (let i = 0; i < depth; i++) {
        node.children ??= new Map()
        const value = values[i] ?? ''
        let next = node.children.get(value)
        if (next === undefined) {
          next = { children: undefined, record: undefined }
          node.children.set(value, next)
        }
        node = next
      }
      node.record = record
      tree.records.push(record)
    },
    clear(): void {
      root = { children: undefined, record: undefined }
      tree.records = []
    },
  }
  return tree
}
