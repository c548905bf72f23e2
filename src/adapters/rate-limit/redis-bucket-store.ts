import { Redis } from 'ioredis'
import {
  type BucketPolicy,
  type BucketStore,
  refillPerMs,
  resultOf,
} from '../../domain/rate-limit/token-bucket.js'

/**
 * One atomic take, in Redis: refill by Redis's own clock (`TIME`, so instances with skewed
 * clocks share one notion of time), take a token if there is one, store, and expire the key
 * once the bucket would be full again (a missing key is a full bucket). Returns
 * `{allowed, tokens}`; tokens as a string because Lua numbers become integers in replies.
 */
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or capacity
local ts = tonumber(b[2]) or now
if now > ts then tokens = math.min(capacity, tokens + (now - ts) * rate) end
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
if now > ts then ts = now end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', ts)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate) + 1000)
return {allowed, tostring(tokens)}
`

/**
 * One atomic refund: the same refill, then one token back (never beyond capacity). Returns
 * the tokens as a string.
 */
const REFUND_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or capacity
local ts = tonumber(b[2]) or now
if now > ts then tokens = tokens + (now - ts) * rate; ts = now end
tokens = math.min(capacity, tokens + 1)
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', ts)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate) + 1000)
return tostring(tokens)
`

interface BucketCommands {
  takeToken(key: string, capacity: number, ratePerMs: number): Promise<[number, string]>
  refundToken(key: string, capacity: number, ratePerMs: number): Promise<string>
}

/** Options for {@link createRedisBucketStore}. */
export interface RedisBucketStoreOptions {
  url: string
  /** Key prefix, so several services can share one Redis. */
  prefix?: string
  /** Bound on one take, connection included (ms); past it the take throws. */
  timeoutMs?: number
  onError?: (error: unknown) => void
}

/**
 * Token buckets shared by every instance through Redis (`REDIS_URL`). A take never waits
 * long: no offline queue, one bounded attempt; when Redis is unreachable it throws and the
 * caller decides (the HTTP limiter lets the request through and counts the failure).
 */
export function createRedisBucketStore(options: RedisBucketStoreOptions): BucketStore {
  const timeoutMs = options.timeoutMs ?? 250
  const redis = new Redis(options.url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: timeoutMs,
    // Keep trying to come back, at most every 2 s; meanwhile takes fail at once.
    retryStrategy: (times) => Math.min(2_000, 100 * times),
  })
  redis.on('error', (error) => options.onError?.(error))
  // EVALSHA with a fallback to EVAL: the script crosses the network once per connection.
  redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT })
  redis.defineCommand('refundToken', { numberOfKeys: 1, lua: REFUND_SCRIPT })
  const commands = redis as unknown as BucketCommands
  const take = commands.takeToken.bind(redis)
  const refund = commands.refundToken.bind(redis)
  const prefix = options.prefix ?? 'pre-send-guard:ratelimit:'
  // Without an offline queue a command sent while connecting fails at once; the first
  // requests after start-up wait (bounded) for the connection instead of going uncounted.
  const connected = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        redis.off('ready', onReady)
        reject(new Error(`Redis not ready within ${timeoutMs} ms (${redis.status})`))
      }, timeoutMs)
      const onReady = () => {
        clearTimeout(timer)
        resolve()
      }
      redis.once('ready', onReady)
    })
  return {
    async take(key: string, policy: BucketPolicy) {
      if (redis.status === 'connecting' || redis.status === 'connect') await connected()
      const reply = await take(
        `${prefix}${policy.name}:${key}`,
        policy.capacity,
        refillPerMs(policy),
      )
      return resultOf(policy, reply[0] === 1, Number(reply[1]))
    },
    async refund(key: string, policy: BucketPolicy) {
      if (redis.status === 'connecting' || redis.status === 'connect') await connected()
      const tokens = await refund(
        `${prefix}${policy.name}:${key}`,
        policy.capacity,
        refillPerMs(policy),
      )
      return resultOf(policy, true, Number(tokens))
    },
    async close() {
      redis.disconnect()
    },
  }
}
