import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  createJsonRpcClient,
  JsonRpcError,
  RpcTransportError,
} from '../../src/adapters/rpc/json-rpc-client.js'
import { createViemChainReader } from '../../src/adapters/rpc/viem-chain-reader.js'
import type { ErrorCode } from '../../src/errors.js'
import { statusForCode } from '../../src/http/error-status.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * The lean JSON-RPC transport against real loopback servers misbehaving on purpose: a deadline
 * that covers the reply body, a reply size bound, keep-alive reuse, and the preflight answering
 * 503 `rpc_unavailable` (never 500, never a hang) for each.
 */
type Mode = 'ok' | 'stall-body' | 'huge-declared' | 'huge-streamed' | 'rpc-error' | 'http-500'
let mode: Mode = 'ok'
let server: http.Server
let url: string
const connections: Socket[] = []
let requests = 0

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    requests++
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number }
    if (mode === 'stall-body') {
      // Headers and part of the body, then nothing: only a deadline over the body ends this.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write('{"jsonrpc":"2.0",')
      return
    }
    if (mode === 'huge-declared') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64e6) })
      res.write('{')
      return
    }
    if (mode === 'huge-streamed') {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(1 << 20, 0x20)
      let sent = 0
      const pump = () => {
        while (sent < 40 && !res.destroyed) {
          sent++
          if (!res.write(chunk)) return res.once('drain', pump)
        }
        res.end()
      }
      res.write(`{"jsonrpc":"2.0","id":${id},"result":"0x`)
      pump()
      return
    }
    if (mode === 'http-500') {
      res.writeHead(500, { 'content-type': 'text/plain' })
      res.end('upstream exploded')
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      mode === 'rpc-error'
        ? JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: { code: 3, message: 'execution reverted', data: '0x12' },
          })
        : JSON.stringify({ jsonrpc: '2.0', id, result: '0x2105' }),
    )
  })
  server.on('connection', (socket) => connections.push(socket))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterEach(() => {
  mode = 'ok'
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('the JSON-RPC client', () => {
  it('reuses keep-alive connections: 200 sequential requests over one socket', async () => {
    const client = createJsonRpcClient({ url, timeoutMs: 2_000 })
    const before = connections.length
    const served = requests
    try {
      for (let i = 0; i < 200; i++) expect(await client.send('eth_chainId', [])).toBe('0x2105')
      expect(requests - served).toBe(200)
      expect(connections.length - before).toBe(1)
      // Concurrent requests open at most maxSockets connections, then reuse them.
      const pooled = createJsonRpcClient({ url, timeoutMs: 2_000, maxSockets: 4 })
      const opened = connections.length
      const answers = await Promise.all(
        Array.from({ length: 64 }, () => pooled.send('eth_chainId', [])),
      )
      expect(answers.every((a) => a === '0x2105')).toBe(true)
      expect(connections.length - opened).toBeLessThanOrEqual(4)
      pooled.close()
    } finally {
      client.close()
    }
  })

  it('bounds the whole exchange: headers then a stalled body is a timeout within the deadline', async () => {
    mode = 'stall-body'
    const observed: string[] = []
    const client = createJsonRpcClient({
      url,
      timeoutMs: 300,
      observe: (method, outcome) => observed.push(`${method}:${outcome}`),
    })
    const started = performance.now()
    const error = await client.send('eth_chainId', []).catch((e: unknown) => e)
    const elapsed = performance.now() - started
    expect(error).toBeInstanceOf(RpcTransportError)
    expect((error as RpcTransportError).kind).toBe('timeout')
    expect(elapsed).toBeGreaterThanOrEqual(290)
    expect(elapsed).toBeLessThan(3_000)
    expect(observed).toEqual(['eth_chainId:timeout'])
    client.close()
  })

  it('refuses a reply over the size bound, declared or streamed', async () => {
    const client = createJsonRpcClient({ url, timeoutMs: 5_000, maxReplyBytes: 1 << 20 })
    try {
      mode = 'huge-declared'
      const declared = await client.send('eth_getCode', []).catch((e: unknown) => e)
      expect((declared as RpcTransportError).kind).toBe('too_large')
      mode = 'huge-streamed'
      const streamed = await client.send('eth_getCode', []).catch((e: unknown) => e)
      expect((streamed as RpcTransportError).kind).toBe('too_large')
    } finally {
      client.close()
    }
  })

  it("keeps the node's JSON-RPC error (code, words, data) apart from HTTP trouble", async () => {
    const client = createJsonRpcClient({ url, timeoutMs: 2_000 })
    try {
      mode = 'rpc-error'
      const rpc = await client.send('eth_call', []).catch((e: unknown) => e)
      expect(rpc).toBeInstanceOf(JsonRpcError)
      expect(rpc).toMatchObject({ code: 3, message: 'execution reverted', data: '0x12' })
      mode = 'http-500'
      const httpError = await client.send('eth_call', []).catch((e: unknown) => e)
      expect(httpError).toMatchObject({ kind: 'http', body: 'upstream exploded' })
    } finally {
      client.close()
    }
  })
})

describe('the preflight over a misbehaving transport', () => {
  const request = {
    from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    data: '0x',
    value: '0x1',
  }
  for (const [name, fault] of [
    ['headers, then a stalled body', 'stall-body'],
    ['a reply over the size bound', 'huge-declared'],
    ['a streamed reply over the size bound', 'huge-streamed'],
  ] as const) {
    it(`${name}: 503 rpc_unavailable within the deadline`, async () => {
      mode = fault
      const started = performance.now()
      const res = await postJson(
        preflightApp(url, { timeoutMs: 400 }),
        '/payanagent/v1/base-transaction-preflight',
        request,
      )
      expect(res.status).toBe(503)
      expect(await res.json()).toMatchObject({ error: 'rpc_unavailable' })
      expect(performance.now() - started).toBeLessThan(4_000)
    })
  }

  it('the chain reader maps a stalled body to RpcUnavailableError', async () => {
    mode = 'stall-body'
    const reader = createViemChainReader({ rpcUrl: url, timeoutMs: 300 })
    const error = await reader.chainId().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: 'rpc_unavailable' })
    // The domain knows no HTTP status: the HTTP layer maps the code.
    expect(statusForCode((error as { code: ErrorCode }).code)).toBe(503)
    reader.close()
  })
})
