/**
 * The unpaid 402's lean path (issue 10, item 4) over real HTTP: the cached PAYMENT-REQUIRED
 * header is byte for byte the rail's offer for that base URL and reason, the body is parsed
 * once, and the body limits hold on both read paths (a declared length, read without a web
 * stream; a chunked body, counted as it streams).
 */
import http from 'node:http'
import net from 'node:net'
import { serve } from '@hono/node-server'
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { paidChallengeBody } from '../../src/domain/payment/challenge.js'
import { paidResource } from '../../src/domain/payment/offer.js'
import { paidTransactionPreflightExtensions } from '../../src/routes/paid-transaction-preflight.js'
import {
  builtinFacilitator,
  EXAMPLE_BODY,
  type PaidApp,
  paidApp,
  RECEIPT_SIGNER,
} from './paid-stack.js'

const PATH = '/simulate/transaction-preflight'
const MAX_BODY = 64 * 1024
let devnet: Devnet
let storage: Storage
let stack: PaidApp
let server: ReturnType<typeof serve>
let port: number

beforeAll(async () => {
  devnet = await startDevnet()
  storage = await openStorage({ kind: 'pglite', dataDir: undefined })
  stack = await paidApp({
    preflightRpcUrl: devnet.rpcUrl,
    facilitator: builtinFacilitator(devnet.rpcUrl),
    ledger: storage.ledger,
  })
  server = serve({ fetch: stack.app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => server.once('listening', resolve))
  port = (server.address() as net.AddressInfo).port
}, 60_000)

afterAll(async () => {
  server?.close()
  await storage?.close()
  await devnet?.stop()
})

interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** One POST over real HTTP; `chunked` sends the body without a Content-Length. */
function post(
  body: string,
  options: { headers?: Record<string, string>; chunked?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: PATH,
        method: 'POST',
        // A connection per request: one refused mid-body is closed by the server, and a reused
        // keep-alive socket would race that close.
        agent: false,
        headers: {
          'content-type': 'application/json',
          ...(options.chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          ...options.headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        )
      },
    )
    req.on('error', reject)
    if (options.chunked) {
      // Several writes: Node sends them as chunks (Transfer-Encoding: chunked).
      for (let i = 0; i < body.length; i += 4096) req.write(body.slice(i, i + 4096))
      req.end()
    } else req.end(body)
  })
}

const BODY = JSON.stringify(EXAMPLE_BODY)
const expectedHeader = async (
  baseUrl: string,
  reason: 'payment_missing' | 'unsupported_x402_version',
) =>
  encodePaymentRequiredHeader(
    await stack.rail.paymentRequired(
      paidResource(baseUrl),
      reason,
      paidTransactionPreflightExtensions({}),
    ),
  )

/** The whole answer to one request written on a fresh socket to `at`, as the bytes arrived. */
function rawExchange(at: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(at, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.end(request)
  })
}

describe('the unpaid 402 over real HTTP', () => {
  it('answers these bytes: status line, every header in this order, the body', async () => {
    // Served as in production: the contract check reads every answer's headers, which changes
    // how @hono/node-server writes them (through a `Headers`).
    const { app, rail } = await paidApp({
      contractChecked: false,
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
    })
    const served = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => served.once('listening', resolve))
    const at = (served.address() as net.AddressInfo).port
    try {
      await answersPinnedBytes(at, rail)
    } finally {
      served.close()
    }
  })

  /** The 402's exact bytes on `at`, the served app's port (its rail: `rail`). */
  async function answersPinnedBytes(at: number, rail: PaidApp['rail']) {
    const base = `http://127.0.0.1:${at}`
    const cases = [
      { extra: '', reason: 'payment_missing' },
      { extra: 'X-Payment: v1\r\n', reason: 'unsupported_x402_version' },
    ] as const
    for (const { extra, reason } of cases) {
      const answer = await rawExchange(
        at,
        `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1:${at}\r\nX-Request-Id: pinned-id-1\r\n${extra}` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n` +
          `Connection: close\r\n\r\n${BODY}`,
      )
      const body = JSON.stringify(
        paidChallengeBody(
          { rail, receiptSigner: RECEIPT_SIGNER },
          { baseUrl: base, reason, requestId: 'pinned-id-1' },
        ),
      )
      const [head, ...rest] = answer.split('\r\n\r\n')
      expect(head?.replace(/^Date: .*$/m, 'Date: <now>').split('\r\n'), reason).toEqual([
        'HTTP/1.1 402 Payment Required',
        'access-control-allow-origin: *',
        'access-control-expose-headers: PAYMENT-REQUIRED,PAYMENT-RESPONSE,X-Request-Id,Retry-After,RateLimit,RateLimit-Policy',
        'cache-control: no-store',
        'content-type: application/json',
        `payment-required: ${await expectedHeader(base, reason)}`,
        'x-content-type-options: nosniff',
        'x-request-id: pinned-id-1',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Date: <now>',
        'Connection: close',
      ])
      expect(rest.join('\r\n\r\n'), reason).toBe(body)
    }
  }

  it("sends the rail's offer for the request's base URL and reason, byte for byte, every time", async () => {
    const local = `http://127.0.0.1:${port}`
    const other = 'http://guard.example:8402'
    const cases = [
      { headers: {}, base: local, reason: 'payment_missing' },
      { headers: { host: 'guard.example:8402' }, base: other, reason: 'payment_missing' },
      { headers: { 'x-payment': 'v1' }, base: local, reason: 'unsupported_x402_version' },
    ] as const
    // Twice over, interleaved: a cached header never leaks into another base URL or reason.
    for (const round of [1, 2]) {
      for (const { headers, base, reason } of cases) {
        const res = await post(BODY, { headers })
        expect(res.status, `${reason} ${base} round ${round}`).toBe(402)
        expect(res.headers['payment-required']).toBe(await expectedHeader(base, reason))
        const offer = decodePaymentRequiredHeader(String(res.headers['payment-required']))
        expect(offer).toMatchObject({ error: reason, resource: { url: `${base}${PATH}` } })
        expect(JSON.parse(res.body)).toMatchObject({
          error: 'payment_required',
          reason,
          firstCheckUrl: `${base}/first-unpaid-402`,
          issues: [],
        })
      }
    }
  })

  it('parses the body once', async () => {
    const parse = vi.spyOn(JSON, 'parse')
    try {
      const res = await post(BODY)
      expect(res.status).toBe(402)
      expect(parse.mock.calls.filter(([text]) => text === BODY)).toHaveLength(1)
    } finally {
      parse.mockRestore()
    }
  })

  it('holds the body limit with a declared length and with a chunked body', async () => {
    const big = JSON.stringify({ ...EXAMPLE_BODY, data: `0x${'ab'.repeat(MAX_BODY)}` })
    for (const chunked of [false, true]) {
      const res = await post(big, { chunked }).catch((error: Error) => {
        throw new Error(`chunked: ${chunked}: ${error.message}`)
      })
      expect(res.status, `chunked: ${chunked}`).toBe(422)
      expect(JSON.parse(res.body)).toMatchObject({ error: 'body_too_large' })
    }
    // Under the limit, a chunked body reads as well as a declared one.
    const small = await post(BODY, { chunked: true })
    expect(small.status).toBe(402)
  })

  it('keeps the content-type rules on the fast path', async () => {
    const loose = await post(BODY, {
      headers: { 'content-type': 'application/json ; charset=utf-8' },
    })
    expect(loose.status).toBe(402)
    const wrong = await post(BODY, { headers: { 'content-type': 'text/plain' } })
    expect(wrong.status).toBe(422)
    expect(JSON.parse(wrong.body)).toMatchObject({ error: 'unsupported_content_type' })
    const broken = await post('{"from":', {})
    expect(broken.status).toBe(422)
    expect(JSON.parse(broken.body)).toMatchObject({ error: 'invalid_json' })
    const invalid = await post(JSON.stringify({ ...EXAMPLE_BODY, to: 'nope' }))
    expect(invalid.status).toBe(422)
    expect(JSON.parse(invalid.body)).toMatchObject({ error: 'invalid_request' })
  })
})
