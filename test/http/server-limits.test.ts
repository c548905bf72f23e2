import type { AddressInfo } from 'node:net'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_PAYMENT_HEADER_BYTES } from '../../src/http/create-app.js'
import { MAX_HEADER_BYTES, startHttpServer } from '../../src/http/server.js'
import { preflightApp } from '../support/preflight-app.js'
import { DEAD_URL } from '../support/served-guard.js'

// The real app behind the real Node server main.ts starts, over real sockets: every refusal
// the server or the app makes is in the JSON error shape, and slow clients are cut off on
// purpose rather than after Node's defaults.

let server: ReturnType<typeof startHttpServer>
let port: number

beforeAll(async () => {
  // No chain is needed: nothing here reaches a route that reads one.
  const app = preflightApp(DEAD_URL)
  server = startHttpServer({
    fetch: app.fetch,
    port: 0,
    hostname: '127.0.0.1',
    limits: { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500, keepAliveTimeoutMs: 500 },
  })
  await new Promise((resolve) => server.once('listening', resolve))
  port = (server.address() as AddressInfo).port
})

afterAll(async () => {
  await new Promise<void>((resolve) => {
    if ('closeAllConnections' in server) server.closeAllConnections()
    server.close(() => resolve())
  })
})

/** Writes raw bytes on a fresh socket and returns everything the server sent until it closed. */
function raw(
  write: (socket: net.Socket) => void,
  timeoutMs = 10_000,
): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1', () => write(socket))
    let text = ''
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8')
    })
    socket.on('error', () => {}) // a reset after the answer is fine: the answer is read
    socket.on('close', () => resolve({ text, ms: Date.now() - started }))
    setTimeout(() => {
      socket.destroy()
      reject(new Error(`no close within ${timeoutMs} ms; got ${JSON.stringify(text)}`))
    }, timeoutMs).unref()
  })
}

function parse(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n')
  const status = Number(head.split(' ')[1])
  return { status, head, body: JSON.parse(body) as Record<string, unknown> }
}

describe('the HTTP server', () => {
  it('answers a PAYMENT-SIGNATURE over 16 KiB with a JSON 431 headers_too_large', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/simulate/transaction-preflight`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'PAYMENT-SIGNATURE': 'A'.repeat(MAX_PAYMENT_HEADER_BYTES + 1),
      },
      body: '{}',
    })
    expect(res.status).toBe(431)
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({ error: 'headers_too_large', issues: [] })
    expect(String(body.message)).toMatch(/PAYMENT-SIGNATURE is 16385 bytes/)
    expect(body.requestId).toEqual(expect.any(String))
  })

  it('answers headers over the server bound with the same JSON 431, not a bare one', async () => {
    const { text } = await raw((socket) =>
      socket.write(
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(MAX_HEADER_BYTES + 10)}\r\n\r\n`,
      ),
    )
    const { status, head, body } = parse(text)
    expect(status).toBe(431)
    expect(head).toMatch(/content-type: application\/json/i)
    expect(body).toMatchObject({ error: 'headers_too_large', issues: [] })
  })

  it('cuts off a client that trickles its body, with a JSON 408 request_timeout', async () => {
    const { text, ms } = await raw((socket) => {
      socket.write(
        'POST /payanagent/v1/base-transaction-preflight HTTP/1.1\r\nHost: x\r\n' +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"from":',
      )
      // ...and never the rest.
    })
    const { status, body } = parse(text)
    expect(status).toBe(408)
    expect(body).toMatchObject({ error: 'request_timeout', issues: [] })
    // requestTimeout 1.5 s, checked every second: cut off in seconds, not Node's 300 s.
    expect(ms).toBeLessThan(6_000)
  })

  it('answers malformed HTTP with a JSON 400 malformed_request', async () => {
    const { text } = await raw((socket) => socket.write('NOT HTTP AT ALL\r\n\r\n'))
    const { status, body } = parse(text)
    expect(status).toBe(400)
    expect(body).toMatchObject({ error: 'malformed_request' })
  })

  it('closes idle keep-alive connections after keepAliveTimeout', async () => {
    const { text, ms } = await raw((socket) =>
      socket.write('GET /no-such-route HTTP/1.1\r\nHost: x\r\n\r\n'),
    )
    expect(text).toMatch(/^HTTP\/1\.1 404/)
    expect(text).toMatch(/"error":"not_found"/)
    // Kept alive for 0.5 s after the answer, then closed by the server.
    expect(ms).toBeLessThan(5_000)
  })
})
