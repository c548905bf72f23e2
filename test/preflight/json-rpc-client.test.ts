import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import {
  createJsonRpcClient,
  JsonRpcError,
  RpcTransportError,
} from '../../src/adapters/rpc/json-rpc-client.js'
import type { ErrorCode } from '../../src/errors.js'
import { statusForCode } from '../../src/http/error-status.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * The lean JSON-RPC transport against real loopback servers misbehaving on purpose: a deadline
 * that covers the reply body, a reply size bound, keep-alive reuse, and the preflight answering
 * 503 `rpc_unavailable` (never 500, never a hang) for each.
 */
type Mode =
  | 'ok'
  | 'stall-body'
  | 'huge-declared'
  | 'huge-streamed'
  | 'rpc-error'
  | 'http-500'
  | 'refuse-batch'
  | 'limit-batch'
  | 'drop-last'
let mode: Mode = 'ok'
let server: http.Server
let url: string
const connections: Socket[] = []
let requests = 0
/** Calls per HTTP request received, in order (1 for a plain request). */
const sizes: number[] = []
type Call = { id: number; method: string }
/** One call's answer in 'ok' mode: `fail_me` is a revert, anything else 0x2105. */
const answerOf = ({ id, method }: Call) =>
  method === 'fail_me'
    ? { jsonrpc: '2.0', id, error: { code: 3, message: 'execution reverted', data: '0x12' } }
    : { jsonrpc: '2.0', id, result: '0x2105' }

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    requests++
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[]
    const batch = Array.isArray(parsed) ? parsed : undefined
    sizes.push(batch ? batch.length : 1)
    const id = batch ? -1 : (parsed as Call).id
    if (batch && mode === 'limit-batch') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32005, message: 'request rate exceeded' },
        }),
      )
      return
    }
    if (batch && (mode === 'ok' || mode === 'drop-last' || mode === 'refuse-batch')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      if (mode === 'refuse-batch') {
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: 'batch requests are not supported' },
          }),
        )
        return
      }
      // Answers in reverse order: a batch answer's order is not the request's.
      const answers = batch.map(answerOf).reverse()
      res.end(JSON.stringify(mode === 'drop-last' ? answers.slice(1) : answers))
      return
    }
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
      JSON.stringify(
        mode === 'rpc-error'
          ? answerOf({ id, method: 'fail_me' })
          : answerOf(batch ? { id, method: 'batch' } : (parsed as Call)),
      ),
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

describe('JSON-RPC batches', () => {
  const wave = (client: ReturnType<typeof createJsonRpcClient>, methods: string[]) =>
    Promise.all(
      methods.map((m) =>
        client.send(m, []).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
      ),
    )

  it('calls sent together share one exchange, and each keeps its own answer', async () => {
    const observed: string[] = []
    const client = createJsonRpcClient({
      url,
      timeoutMs: 2_000,
      observe: (method, outcome) => observed.push(`${method}:${outcome}`),
    })
    try {
      sizes.length = 0
      const answers = await wave(client, ['a', 'b', 'fail_me', 'c', 'd', 'e', 'f', 'g', 'h'])
      expect(sizes).toEqual([9])
      expect(answers.filter((a) => 'result' in a && a.result === '0x2105')).toHaveLength(8)
      const failed = answers[2] as { error: unknown }
      expect(failed.error).toBeInstanceOf(JsonRpcError)
      expect(failed.error).toMatchObject({ code: 3, message: 'execution reverted', data: '0x12' })
      expect(observed.sort()).toEqual(
        ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']
          .map((m) => `${m}:ok`)
          .concat('fail_me:rpc_error')
          .sort(),
      )
      // A lone call is a plain request, not a batch of one.
      sizes.length = 0
      expect(await client.send('eth_chainId', [])).toBe('0x2105')
      expect(sizes).toEqual([1])
    } finally {
      client.close()
    }
  })

  it('holds a batch to maxBatch calls; maxBatch 1 sends every call alone', async () => {
    const client = createJsonRpcClient({ url, timeoutMs: 2_000, maxBatch: 4 })
    const unbatched = createJsonRpcClient({ url, timeoutMs: 2_000, maxBatch: 1 })
    try {
      sizes.length = 0
      const answers = await wave(
        client,
        Array.from({ length: 10 }, (_, i) => `m${i}`),
      )
      expect(answers.every((a) => 'result' in a && a.result === '0x2105')).toBe(true)
      expect(sizes).toEqual([4, 4, 2])
      sizes.length = 0
      await wave(unbatched, ['a', 'b', 'c'])
      expect(sizes).toEqual([1, 1, 1])
    } finally {
      client.close()
      unbatched.close()
    }
  })

  it('a batch answer that lacks a call fails that call only, as garbage', async () => {
    mode = 'drop-last'
    const client = createJsonRpcClient({ url, timeoutMs: 2_000 })
    try {
      const answers = await wave(client, ['a', 'b', 'c'])
      // The answers come reversed and the first is dropped: the last call has none.
      expect(answers.slice(0, 2)).toEqual([{ result: '0x2105' }, { result: '0x2105' }])
      const missing = (answers[2] as { error: unknown }).error
      expect(missing).toBeInstanceOf(RpcTransportError)
      expect((missing as RpcTransportError).kind).toBe('garbage')
    } finally {
      client.close()
    }
  })

  it('a transport failure fails every call of the exchange, each observed', async () => {
    mode = 'http-500'
    const observed: string[] = []
    const client = createJsonRpcClient({
      url,
      timeoutMs: 2_000,
      observe: (method, outcome) => observed.push(`${method}:${outcome}`),
    })
    try {
      const answers = await wave(client, ['a', 'b'])
      for (const a of answers) {
        expect((a as { error: unknown }).error).toMatchObject({ kind: 'http' })
      }
      expect(observed.sort()).toEqual(['a:http_error', 'b:http_error'])
    } finally {
      client.close()
    }
  })

  it("a node's other error for a whole batch (a rate limit) fails its calls, and batching goes on", async () => {
    mode = 'limit-batch'
    const client = createJsonRpcClient({ url, timeoutMs: 2_000 })
    try {
      sizes.length = 0
      const limited = await wave(client, ['a', 'b'])
      for (const a of limited) {
        expect((a as { error: unknown }).error).toMatchObject({ kind: 'garbage' })
      }
      expect(sizes).toEqual([2])
      mode = 'ok'
      sizes.length = 0
      const answers = await wave(client, ['c', 'd'])
      expect(answers).toEqual([{ result: '0x2105' }, { result: '0x2105' }])
      expect(sizes).toEqual([2])
    } finally {
      client.close()
    }
  })

  it('a node that refuses batches gets the calls one by one, then never a batch again', async () => {
    mode = 'refuse-batch'
    const client = createJsonRpcClient({ url, timeoutMs: 2_000 })
    try {
      sizes.length = 0
      const first = await wave(client, ['a', 'fail_me', 'c'])
      expect(first[0]).toEqual({ result: '0x2105' })
      expect((first[1] as { error: unknown }).error).toBeInstanceOf(JsonRpcError)
      expect(first[2]).toEqual({ result: '0x2105' })
      expect(sizes).toEqual([3, 1, 1, 1])
      sizes.length = 0
      await wave(client, ['d', 'e'])
      expect(sizes).toEqual([1, 1])
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
    const reader = createJsonRpcChainReader({ rpcUrl: url, timeoutMs: 300 })
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
