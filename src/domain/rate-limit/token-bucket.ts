/**
 * One token-bucket policy: `capacity` requests at once, refilled at `perMinute` a minute.
 * A client that stays under `perMinute` is never refused; a burst of `capacity` always passes.
 */
export interface BucketPolicy {
  /** Stable name, used in keys, metrics and the `RateLimit-Policy` header. */
  name: string
  capacity: number
  perMinute: number
}

/** What one take from a bucket decided. */
export interface TakeResult {
  allowed: boolean
  /** Whole tokens left after this take. */
  remaining: number
  /** Seconds until the bucket is full again. */
  resetSeconds: number
  /** Seconds until one token is available (0 when allowed). */
  retryAfterSeconds: number
}

/** Where buckets live: this process's memory, or Redis when several instances share limits. */
export interface BucketStore {
  /** Takes one token from `key`'s bucket under `policy`. Throws when the store is unreachable. */
  take(key: string, policy: BucketPolicy): Promise<TakeResult>
  /**
   * Gives one token back to `key`'s bucket (never beyond capacity): a request that took one
   * and turned out not to count (a paid call whose payment verified). The result describes
   * the bucket after it, as a take's would (`allowed` true). Throws when the store is
   * unreachable.
   */
  refund(key: string, policy: BucketPolicy): Promise<TakeResult>
  close(): Promise<void>
}

/** Tokens refilled per millisecond. */
export function refillPerMs(policy: BucketPolicy): number {
  return policy.perMinute / 60_000
}

/**
 * The bucket arithmetic shared by every store: refill for the time elapsed since `lastMs`
 * (never beyond capacity, never backwards when clocks disagree), then take one token.
 */
export function takeToken(
  policy: BucketPolicy,
  state: { tokens: number; lastMs: number } | undefined,
  nowMs: number,
): { state: { tokens: number; lastMs: number }; result: TakeResult } {
  const rate = refillPerMs(policy)
  const lastMs = state ? Math.max(state.lastMs, 0) : nowMs
  const elapsed = Math.max(0, nowMs - lastMs)
  let tokens = Math.min(policy.capacity, (state?.tokens ?? policy.capacity) + elapsed * rate)
  const allowed = tokens >= 1
  if (allowed) tokens -= 1
  return {
    state: { tokens, lastMs: Math.max(nowMs, lastMs) },
    result: resultOf(policy, allowed, tokens),
  }
}

/**
 * Giving one token back, with the same arithmetic as {@link takeToken}: refill for the time
 * elapsed, then add one, never beyond capacity.
 */
export function giveToken(
  policy: BucketPolicy,
  state: { tokens: number; lastMs: number } | undefined,
  nowMs: number,
): { state: { tokens: number; lastMs: number }; result: TakeResult } {
  const rate = refillPerMs(policy)
  const lastMs = state ? Math.max(state.lastMs, 0) : nowMs
  const elapsed = Math.max(0, nowMs - lastMs)
  const tokens = Math.min(policy.capacity, (state?.tokens ?? policy.capacity) + elapsed * rate + 1)
  return {
    state: { tokens, lastMs: Math.max(nowMs, lastMs) },
    result: resultOf(policy, true, tokens),
  }
}

/** The caller-facing figures for a bucket holding `tokens` after a take. */
export function resultOf(policy: BucketPolicy, allowed: boolean, tokens: number): TakeResult {
  const rate = refillPerMs(policy)
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((policy.capacity - tokens) / rate / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate / 1000)),
  }
}
