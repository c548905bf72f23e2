/** Small helpers shared by the benchmarks: percentiles over millisecond samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index] ?? Number.NaN
}

/** One line: name, count, p50, p95, max in ms. */
export function summary(name: string, samples: readonly number[]): string {
  const f = (n: number) => n.toFixed(2).padStart(9)
  return `${name.padEnd(44)} n=${String(samples.length).padStart(4)}  p50=${f(percentile(samples, 50))} ms  p95=${f(percentile(samples, 95))} ms  max=${f(Math.max(...samples))} ms`
}

/** Times an async function in ms. */
export async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now()
  const result = await fn()
  return [performance.now() - started, result]
}

/** One line: name, count, min, median, max (for small n, where percentiles mean little). */
export function spread(name: string, samples: readonly number[], unit = 'ms'): string {
  const f = (n: number) => n.toFixed(unit === 'ms' ? 0 : 1).padStart(7)
  return `${name.padEnd(64)} n=${String(samples.length).padStart(2)}  min=${f(Math.min(...samples))}  median=${f(percentile(samples, 50))}  max=${f(Math.max(...samples))} ${unit}`
}
