import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { createMemoryBucketStore } from '../../src/adapters/rate-limit/memory-bucket-store.js'
import { createRedisBucketStore } from '../../src/adapters/rate-limit/redis-bucket-store.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { takeToken } from '../../src/domain/rate-limit/token-bucket.js'
import type { RateLimitSettings } from '../../src/http/create-app.js'
import {
  BUYER,
  builtinFacilitator,
  buyer,
  EXAMPLE_BODY,
  PAID_URL,
  paidApp,
  unpaidOffer,
} from '../payment/paid-stack.js'
import { freePort } from '../support/net.js'
import { preflightApp } from '../support/preflight-app.js'
import { serveApp } from '../support/served-guard.js'

const PREFLIGHT = '/payanagent/v1/base-transaction-preflight'
const EVIDENCE = '/payanagent/v1/public-page-evidence'
const TX = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  data: '0x',
}
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

function limits(overrides: Partial<RateLimitSettings> = {}): RateLimitSettings {
  return {
    store: createMemoryBucketStore(),
    // One token every 10 s: a loaded machine's slow requests never refill a bucket mid-test.
    free: { name: 'free', capacity: 3, perMinute: 6 },
    evidence: { name: 'evidence', capacity: 2, perMinute: 6 },
    exemptLoopback: false,
    ...overrides,
  }
}

const post = (baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

describe('the token bucket', () => {
  const policy = { name: 'p', capacity: 3, perMinute: 60 }
  it('lets a burst of `capacity` through, refuses the next, and refills at perMinute', () => {
    let state: Parameters<typeof takeToken>[1]
    const results = []
    for (let i = 0; i < 4; i++) {
      const taken = takeToken(policy, state, 1_000)
      state = taken.state
      results.push(taken.result)
    }
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false])
    expect(results[3]).toMatchObject({ remaining: 0, retryAfterSeconds: 1, resetSeconds: 3 })
    // One token a second: 999 ms later still empty, 1 s later one more.
    expect(takeToken(policy, state, 1_999).result.allowed).toBe(false)
    const later = takeToken(policy, state, 2_000)
    expect(later.result).toMatchObject({ allowed: true, remaining: 0 })
    // Never above capacity however long the bucket rests; a clock going back adds nothing.
    expect(takeToken(policy, state, 10_000_000).result.remaining).toBe(2)
    expect(takeToken(policy, later.state, 0).result.allowed).toBe(false)
  })
})

describe('rate limits on the free routes (real HTTP)', () => {
  it('answers 429 rate_limited with Retry-After and the IETF RateLimit fields once the bucket is empty', async () => {
    const served = await serveApp(
      preflightApp(devnet.rpcUrl, { operations: { rateLimits: limits() } }),
    )
    try {
      const answers = []
      for (let i = 0; i < 4; i++) answers.push(await post(served.baseUrl, PREFLIGHT, TX))
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429])
      expect(answers[0]?.headers.get('ratelimit-policy')).toBe('"free";q=3;w=30')
      const remaining = (res: Response | undefined) => {
        const match = /^"free";r=(\d+);t=(\d+)$/.exec(res?.headers.get('ratelimit') ?? '')
        return match ? { r: Number(match[1]), t: Number(match[2]) } : undefined
      }
      expect(answers.slice(0, 3).map((r) => remaining(r)?.r)).toEqual([2, 1, 0])
      // Seconds until full: about 10 per missing token.
      expect(remaining(answers[0])?.t).toBeGreaterThan(0)
      expect(remaining(answers[0])?.t).toBeLessThanOrEqual(10)
      expect(remaining(answers[2])?.t).toBeGreaterThan(20)
      expect(remaining(answers[2])?.t).toBeLessThanOrEqual(30)
      const refused = answers[3]
      const retryAfter = Number(refused?.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(10)
      expect(remaining(refused)?.r).toBe(0)
      const body = (await refused?.json()) as Record<string, unknown>
      expect(body).toMatchObject({ error: 'rate_limited', issues: [] })
      expect(body.message).toMatch(/6 a minute, bursts of 3/)
      // Invalid bodies count too (they still cost a parse), and the evidence route has its own bucket.
      const evidence = await post(served.baseUrl, EVIDENCE, { url: 'http://localhost/' })
      expect(evidence.status).toBe(422)
      expect(evidence.headers.get('ratelimit-policy')).toBe('"evidence";q=2;w=20')
      // Pages, discovery-like GETs and health are never counted.
      for (let i = 0; i < 5; i++) {
        const health = await fetch(`${served.baseUrl}/healthz`)
        expect(health.status).toBe(200)
        expect(health.headers.get('ratelimit')).toBeNull()
      }
      // (Refill over time is the token bucket's unit test above.)
    } finally {
      await served.close()
    }
  }, 30_000)

  it('keys clients by the trusted proxy header (its last entry) and exempts loopback when asked', async () => {
    const served = await serveApp(
      preflightApp(devnet.rpcUrl, {
        operations: {
          rateLimits: limits({ clientHeader: 'x-forwarded-for', exemptLoopback: true }),
        },
      }),
    )
    try {
      const as = (client: string) =>
        post(served.baseUrl, PREFLIGHT, TX, { 'x-forwarded-for': `6.6.6.6, ${client}` })
      const first = []
      for (let i = 0; i < 4; i++) first.push((await as('203.0.113.7')).status)
      expect(first).toEqual([200, 200, 200, 429])
      // Another client (the first entry is what the client claims; only the last counts).
      expect((await as('203.0.113.8')).status).toBe(200)
      // The same client in its IPv4-mapped IPv6 spelling is the same client.
      expect((await as('::ffff:203.0.113.7')).status).toBe(429)
      // A loopback client (the devnet's operator) is never limited.
      const loopback = []
      for (let i = 0; i < 6; i++) loopback.push((await as('127.0.0.1')).status)
      expect(loopback.every((s) => s === 200)).toBe(true)
    } finally {
      await served.close()
    }
  }, 30_000)

  it('keys an IPv6 client by its /64, and never by a header value that is not an address (issue 37)', async () => {
    const served = await serveApp(
      preflightApp(devnet.rpcUrl, {
        operations: {
          rateLimits: limits({ clientHeader: 'x-forwarded-for', exemptLoopback: false }),
        },
      }),
    )
    try {
      const as = (client: string) =>
        post(served.baseUrl, PREFLIGHT, TX, { 'x-forwarded-for': client })
      // One subscriber's /64: every address in it shares one bucket, whatever its spelling.
      const six = []
      for (const client of ['2001:db8:1:2::1', '2001:db8:1:2::2', '[2001:db8:1:2:ffff::9]']) {
        six.push((await as(client)).status)
      }
      expect(six).toEqual([200, 200, 200])
      expect((await as('2001:0db8:0001:0002:abcd::1')).status).toBe(429)
      // The next /64 is another client.
      expect((await as('2001:db8:1:3::1')).status).toBe(200)
      // Made-up values are not keys: each falls back to the socket (here 127.0.0.1, not
      // exempt), so a client cannot buy a fresh bucket per spelling.
      const made = []
      for (const value of ['x', 'unknown', '203.0.113.9:4711', 'a'.repeat(60)]) {
        made.push((await as(value)).status)
      }
      expect(made).toEqual([200, 200, 200, 429])
    } finally {
      await served.close()
    }
  }, 30_000)

  it('counts a call carrying a payment until its payment verified; an unpaid 402 counts as free', async () => {
    const storage: Storage = await openStorage({ kind: 'pglite', dataDir: undefined })
    try {
      const { app } = await paidApp({
        preflightRpcUrl: devnet.rpcUrl,
        facilitator: builtinFacilitator(devnet.rpcUrl),
        ledger: storage.ledger,
        // One token a minute: nothing refills while the paid call settles on a loaded machine.
        operations: { rateLimits: limits({ free: { name: 'free', capacity: 3, perMinute: 1 } }) },
      })
      // The first unpaid challenge takes a token and gives the offer to sign.
      const offer = await unpaidOffer(app)
      const { paymentHeader } = buyer(app, devnet.rpcUrl, BUYER)
      const pay = async () =>
        app.request(PAID_URL, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'PAYMENT-SIGNATURE': await paymentHeader(offer),
          },
          body: JSON.stringify(EXAMPLE_BODY),
        })
      // A paid call takes a token too, and gets it back once its payment verified.
      const paid = await pay()
      expect(paid.status).toBe(200)
      expect(paid.headers.get('ratelimit')).toMatch(/^"free";r=2;t=\d+$/)
      const unpaid = []
      for (let i = 0; i < 3; i++) {
        const res = await app.request(PAID_URL, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(EXAMPLE_BODY),
        })
        unpaid.push(res.status)
      }
      expect(unpaid).toEqual([402, 402, 429])
      // The bucket is empty: a call carrying a payment is refused like any other (a payment is
      // only known genuine once verified, and verifying costs what the limit protects).
      const refused = await pay()
      expect(refused.status).toBe(429)
      expect(await refused.json()).toMatchObject({ error: 'rate_limited' })
    } finally {
      await storage.close()
    }
  }, 60_000)

  it('gives a token back at most up to capacity (memory and Redis stores)', async () => {
    const policy = { name: `refund${randomBytes(4).toString('hex')}`, capacity: 2, perMinute: 1 }
    const stores = [
      createMemoryBucketStore(),
      createRedisBucketStore({ url: REDIS_URL, prefix: `test:${randomBytes(4).toString('hex')}:` }),
    ]
    try {
      for (const store of stores) {
        expect((await store.take('c', policy)).remaining).toBe(1)
        expect((await store.take('c', policy)).remaining).toBe(0)
        expect((await store.take('c', policy)).allowed).toBe(false)
        // One back: one take passes again, the next does not.
        expect(await store.refund('c', policy)).toMatchObject({ allowed: true, remaining: 1 })
        expect((await store.take('c', policy)).allowed).toBe(true)
        expect((await store.take('c', policy)).allowed).toBe(false)
        // Never beyond capacity, however many come back; another client's bucket untouched.
        for (let i = 0; i < 5; i++) await store.refund('c', policy)
        expect((await store.take('c', policy)).remaining).toBe(1)
        expect(await store.refund('fresh', policy)).toMatchObject({ remaining: 2 })
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()))
    }
  }, 30_000)
})

describe('shared limits through Redis', () => {
  it('two instances share one bucket per client', async () => {
    const prefix = `test:${randomBytes(4).toString('hex')}:`
    const stores = [0, 1].map(() => createRedisBucketStore({ url: REDIS_URL, prefix }))
    const instances = await Promise.all(
      stores.map((store) =>
        serveApp(
          preflightApp(devnet.rpcUrl, {
            operations: {
              rateLimits: limits({
                store,
                free: { name: 'free', capacity: 4, perMinute: 6 },
                clientHeader: 'x-forwarded-for',
              }),
            },
          }),
        ),
      ),
    )
    try {
      const statuses = []
      for (let i = 0; i < 6; i++) {
        const instance = instances[i % 2]
        if (!instance) throw new Error('unreachable')
        const res = await post(instance.baseUrl, PREFLIGHT, TX, {
          'x-forwarded-for': '198.51.100.4',
        })
        statuses.push(res.status)
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
      // Another client on either instance has its own bucket.
      const other = await post(instances[1]?.baseUrl ?? '', PREFLIGHT, TX, {
        'x-forwarded-for': '198.51.100.5',
      })
      expect(other.status).toBe(200)
    } finally {
      await Promise.all(instances.map((i) => i.close()))
      await Promise.all(stores.map((s) => s.close()))
    }
  }, 30_000)

  it('lets requests through when Redis is unreachable, and counts the failures', async () => {
    const { createServiceMetrics } = await import('../../src/adapters/metrics/service-metrics.js')
    const metrics = createServiceMetrics({ processMetrics: false })
    const store = createRedisBucketStore({ url: `redis://127.0.0.1:${await freePort()}` })
    const served = await serveApp(
      preflightApp(devnet.rpcUrl, {
        operations: {
          metrics,
          rateLimits: limits({ store, free: { name: 'free', capacity: 1, perMinute: 1 } }),
        },
      }),
    )
    try {
      const started = performance.now()
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push((await post(served.baseUrl, PREFLIGHT, TX)).status)
      expect(statuses).toEqual([200, 200, 200])
      // Failing fast: no offline queue, no retries.
      expect(performance.now() - started).toBeLessThan(10_000)
      const text = await metrics.registry.metrics()
      expect(text).toMatch(/^rate_limit_store_errors_total 3$/m)
    } finally {
      await served.close()
      await store.close()
    }
  }, 30_000)
})
