/**
 * Complete answers (`completeAnswer`, `jsonAnswer` in src/http/security-headers.ts) over real
 * HTTP: a free preflight's 200 and the unpaid 402 are written from one plain header record,
 * with no `Headers` built; their bytes are those of `c.json` under `answerHeaders` (every field
 * lower-case and sorted, then `Content-Length`, `Date`, `Connection`), the rate limit's fields
 * included, which it adds after the route has answered.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { createMemoryBucketStore } from '../../src/adapters/rate-limit/memory-bucket-store.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import type { RateLimitSettings } from '../../src/http/create-app.js'
import { builtinFacilitator, EXAMPLE_BODY, paidApp } from '../payment/paid-stack.js'
import { preflightApp } from '../support/preflight-app.js'
import { serveApp } from '../support/served-guard.js'

const PREFLIGHT = '/payanagent/v1/base-transaction-preflight'
const PAID = '/simulate/transaction-preflight'
const TX = JSON.stringify({
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  data: '0x',
})
const CORS_FIELDS = [
  'access-control-allow-origin: *',
  'access-control-expose-headers: PAYMENT-REQUIRED,PAYMENT-RESPONSE,X-Request-Id,Retry-After,RateLimit,RateLimit-Policy',
]

let devnet: Devnet
let storage: Storage
beforeAll(async () => {
  devnet = await startDevnet()
  storage = await openStorage({ kind: 'pglite', dataDir: undefined })
}, 60_000)
afterAll(async () => {
  await storage?.close()
  await devnet?.stop()
})

/** Loopback clients judged too, so that every answer here carries the rate limit's fields. */
const limits = (): RateLimitSettings => ({
  store: createMemoryBucketStore(),
  free: { name: 'free', capacity: 50, perMinute: 60 },
  exemptLoopback: false,
})

/**
 * The answer to one POST on a fresh socket, as the bytes arrived: its head as lines (`Date`'s
 * value masked) and its body. The socket stays open for writing until the server closes it.
 */
function rawPost(
  baseUrl: string,
  path: string,
  body: string,
): Promise<{ head: string[]; body: string }> {
  const { port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const [head = '', ...rest] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n')
      resolve({
        head: head.replace(/^Date: .*$/m, 'Date: <now>').split('\r\n'),
        body: rest.join('\r\n\r\n'),
      })
    })
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Request-Id: pinned-id-2\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    )
  })
}

const tail = (body: string) => [
  'x-content-type-options: nosniff',
  'x-request-id: pinned-id-2',
  `Content-Length: ${Buffer.byteLength(body)}`,
  'Date: <now>',
  'Connection: close',
]

describe('complete answers over real HTTP', () => {
  it("writes a free preflight's 200 as c.json would: the fields sorted, then Content-Length", async () => {
    const served = await serveApp(preflightApp(devnet.rpcUrl, { contractChecked: false }))
    try {
      const { head, body } = await rawPost(served.baseUrl, PREFLIGHT, TX)
      expect(JSON.parse(body)).toMatchObject({ verdict: 'sign', findings: [] })
      expect(head).toEqual([
        'HTTP/1.1 200 OK',
        ...CORS_FIELDS,
        'content-type: application/json',
        ...tail(body),
      ])
    } finally {
      await served.close()
    }
  })

  it("puts the rate limit's fields, added after the route answered, in their sorted place", async () => {
    const app = preflightApp(devnet.rpcUrl, {
      contractChecked: false,
      operations: { rateLimits: limits() },
    })
    const served = await serveApp(app)
    try {
      for (const left of [49, 48]) {
        const { head, body } = await rawPost(served.baseUrl, PREFLIGHT, TX)
        expect(JSON.parse(body)).toMatchObject({ verdict: 'sign' })
        expect(head).toEqual([
          'HTTP/1.1 200 OK',
          ...CORS_FIELDS,
          'content-type: application/json',
          expect.stringMatching(new RegExp(`^ratelimit: "free";r=${left};t=\\d+$`)),
          'ratelimit-policy: "free";q=50;w=50',
          ...tail(body),
        ])
      }
    } finally {
      await served.close()
    }
  })

  it('keeps Content-Length after the fields of a rate-limited unpaid 402', async () => {
    const { app } = await paidApp({
      contractChecked: false,
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
      operations: { rateLimits: limits() },
    })
    const served = await serveApp(app)
    try {
      const { head, body } = await rawPost(served.baseUrl, PAID, JSON.stringify(EXAMPLE_BODY))
      expect(head[0]).toBe('HTTP/1.1 402 Payment Required')
      expect(head.map((line) => line.split(':')[0])).toEqual([
        'HTTP/1.1 402 Payment Required',
        'access-control-allow-origin',
        'access-control-expose-headers',
        'cache-control',
        'content-type',
        'payment-required',
        'ratelimit',
        'ratelimit-policy',
        'x-content-type-options',
        'x-request-id',
        'Content-Length',
        'Date',
        'Connection',
      ])
      expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`)
    } finally {
      await served.close()
    }
  })
})
