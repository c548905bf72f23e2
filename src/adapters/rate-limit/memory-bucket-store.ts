import {
  type BucketPolicy,
  type BucketStore,
  giveToken,
  refillPerMs,
  takeToken,
} from '../../domain/rate-limit/token-bucket.js'

/** Buckets idle long enough to be full again are dropped on this cadence, bounding memory. */
const SWEEP_EVERY_TAKES = 1_000

/**
 * Token buckets in this process's memory: the default, right for one instance. A bucket that
 * would be full again is forgotten (same answer as a fresh one), so memory follows the number
 * of clients active in the last refill period, not every client ever seen.
 */
export function createMemoryBucketStore(now: () => number = Date.now): BucketStore {
  const buckets = new Map<string, { tokens: number; lastMs: number; fullAtMs: number }>()
  let takes = 0
  const sweep = (nowMs: number) => {
    for (const [key, bucket] of buckets) if (bucket.fullAtMs <= nowMs) buckets.delete(key)
  }
  const apply = (key: string, policy: BucketPolicy, step: typeof takeToken) => {
    const nowMs = now()
    if (++takes % SWEEP_EVERY_TAKES === 0) sweep(nowMs)
    const bucketKey = `${policy.name}:${key}`
    const { state, result } = step(policy, buckets.get(bucketKey), nowMs)
    const fullAtMs = nowMs + (policy.capacity - state.tokens) / refillPerMs(policy)
    buckets.set(bucketKey, { ...state, fullAtMs })
    return result
  }
  return {
    async take(key: string, policy: BucketPolicy) {
      return apply(key, policy, takeToken)
    },
    async refund(key: string, policy: BucketPolicy) {
      return apply(key, policy, giveToken)
    },
    async close() {
      buckets.clear()
    },
  }
}
