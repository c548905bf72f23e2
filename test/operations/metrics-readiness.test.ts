import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { createFacilitator } from '../../src/adapters/facilitator/facilitator-client.js'
import { createServiceMetrics } from '../../src/adapters/metrics/service-metrics.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { presentsToken } from '../../src/routes/operations.js'
import { readerFor } from '../evidence/evidence-app.js'
import {
  BUYER,
  builtinFacilitator,
  buyer,
  EXAMPLE_BODY,
  PAID_URL,
  paidApp,
} from '../payment/paid-stack.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { startFakeReader } from '../support/fake-reader.js'
import { postJson, preflightApp } from '../support/preflight-app.js'
import { DEAD_URL } from '../support/served-guard.js'

const PREFLIGHT = '/payanagent/v1/base-transaction-preflight'

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

/** One sample of the Prometheus text, by metric name and exact label set. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const have = (match[2] ?? '').split(',').filter(Boolean).sort()
    if (JSON.stringify(have) === JSON.stringify(wanted)) return Number(match[3])
  }
  return undefined
}

describe('/metrics', () => {
  it('counts requests by route pattern, RPC requests by method, payments by outcome, settlement latency and unresolved payments', async () => {
    const metrics = createServiceMetrics({ unresolvedPayments: storage.ledger.unresolvedCount })
    const { app } = await paidApp({
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
      operations: { metrics },
      observeRpc: metrics.rpcCalls.observe,
    })
    const tx = { from: BUYER.address, to: EXAMPLE_BODY.to, data: '0x' }
    expect((await postJson(app, PREFLIGHT, tx)).status).toBe(200)
    expect((await postJson(app, PREFLIGHT, { ...tx, from: 'nope' })).status).toBe(422)
    expect((await app.request('/receipts/does-not-exist')).status).toBe(404)
    expect((await app.request('/no/such/path')).status).toBe(404)
    const paid = await buyer(app, devnet.rpcUrl, BUYER).fetch(PAID_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(EXAMPLE_BODY),
    })
    expect(paid.status).toBe(200)

    const res = await app.request('/metrics')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    const http = (route: string, method: string, status: string) =>
      sample(text, 'http_requests_total', { route, method, status })
    expect(http(PREFLIGHT, 'POST', '200')).toBe(1)
    expect(http(PREFLIGHT, 'POST', '422')).toBe(1)
    // Route patterns, never raw paths: label values stay a bounded set.
    expect(http('/receipts/:id', 'GET', '404')).toBe(1)
    expect(http('unmatched', 'GET', '404')).toBe(1)
    expect(http('/simulate/transaction-preflight', 'POST', '402')).toBe(1)
    expect(http('/simulate/transaction-preflight', 'POST', '200')).toBe(1)
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        route: PREFLIGHT,
        method: 'POST',
        status: '200',
      }),
    ).toBe(1)
    expect(
      sample(text, 'payments_total', { outcome: 'payment_required', reason: 'payment_missing' }),
    ).toBe(1)
    expect(sample(text, 'payments_total', { outcome: 'paid', reason: '' })).toBe(1)
    expect(sample(text, 'payment_settlement_duration_seconds_count')).toBe(1)
    expect(sample(text, 'payments_unresolved')).toBe(0)
    // Two preflights (read-only, paid) each made one eth_call and one eth_estimateGas.
    expect(
      sample(text, 'rpc_requests_total', { method: 'eth_call', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(2)
    expect(
      sample(text, 'rpc_requests_total', { method: 'eth_estimateGas', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(2)
    expect(
      sample(text, 'rpc_request_duration_seconds_count', { method: 'eth_call' }),
    ).toBeGreaterThanOrEqual(2)
    // Process metrics (memory) come with it.
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0)
  }, 60_000)

  it('counts reader outcomes, and RPC failures by outcome', async () => {
    const fake = await startFakeReader()
    try {
      fake.replies.set('https://example.com/down', { kind: 'error', status: 503 })
      const metrics = createServiceMetrics({ processMetrics: false })
      const app = preflightApp(DEAD_URL, { reader: readerFor(fake), operations: { metrics } })
      const evidence = (url: string) =>
        postJson(app, '/payanagent/v1/public-page-evidence', { url })
      expect((await evidence('https://example.com/')).status).toBe(200)
      expect((await evidence('https://example.com/down')).status).toBe(502)
      expect((await evidence('http://127.0.0.1/')).status).toBe(422) // refused before the reader
      const text = await metrics.registry.metrics()
      expect(sample(text, 'reader_requests_total', { outcome: 'ok' })).toBe(1)
      expect(sample(text, 'reader_requests_total', { outcome: 'reader_unavailable' })).toBe(1)
      expect(text).not.toMatch(/reader_requests_total\{outcome="unsafe_url"\}/)
    } finally {
      await fake.close()
    }
  })

  it('needs the bearer token when one is configured', async () => {
    const { app } = await paidApp({
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
      operations: { metricsToken: 'a-long-metrics-token-0123' },
    })
    const refused = await app.request('/metrics')
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toBe('Bearer')
    expect(await refused.json()).toMatchObject({ error: 'unauthorized', issues: [] })
    const wrong = await app.request('/metrics', { headers: { authorization: 'Bearer nope' } })
    expect(wrong.status).toBe(401)
    const ok = await app.request('/metrics', {
      headers: { authorization: 'Bearer a-long-metrics-token-0123' },
    })
    expect(ok.status).toBe(200)
    expect(await ok.text()).toMatch(/^# HELP http_requests_total/m)
  }, 30_000)
})

describe('/readyz', () => {
  it('is ready when the RPC, the ledger and the payment rail are', async () => {
    const { app } = await paidApp({
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
    })
    const res = await app.request('/readyz')
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, any>
    expect(body).toMatchObject({
      status: 'ready',
      environment: 'devnet',
      checks: {
        rpc: { ok: true },
        ledger: { ok: true, unresolvedPayments: 0 },
        paymentRail: { ok: true },
      },
    })
    expect(BigInt(body.checks.rpc.blockNumber)).toBeGreaterThan(0n)
    // Liveness stays what it was: no dependency is read.
    expect(await (await app.request('/healthz')).json()).toEqual({
      status: 'ok',
      environment: 'devnet',
      chainId: 8453,
    })
  }, 30_000)

  it('answers 503 not_ready naming each failed check: RPC down, a stale head, the ledger down', async () => {
    const down = preflightApp(DEAD_URL)
    const rpcDown = await down.request('/readyz')
    expect(rpcDown.status).toBe(503)
    expect(rpcDown.headers.get('retry-after')).toBe('5')
    const rpcBody = (await rpcDown.json()) as Record<string, any>
    expect(rpcBody).toMatchObject({
      error: 'not_ready',
      status: 'not_ready',
      issues: [{ path: 'rpc', message: 'RPC failed: rpc_unavailable' }],
      checks: { rpc: { ok: false } },
    })

    // Anvil mines only on demand: its head ages while the test waits.
    const stale = preflightApp(devnet.rpcUrl, { operations: { readyMaxBlockAgeSeconds: 1 } })
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    const staleRes = await stale.request('/readyz')
    expect(staleRes.status).toBe(503)
    const staleBody = (await staleRes.json()) as Record<string, any>
    expect(staleBody.checks.rpc.ok).toBe(false)
    expect(staleBody.checks.rpc.problem).toMatch(/latest block is \d+ s old \(limit 1 s\)/)

    const closed = await openStorage({ kind: 'pglite', dataDir: undefined })
    const { app } = await paidApp({
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: closed.ledger,
    })
    await closed.close()
    const ledgerDown = await app.request('/readyz')
    expect(ledgerDown.status).toBe(503)
    const ledgerBody = (await ledgerDown.json()) as Record<string, any>
    expect(ledgerBody.checks).toMatchObject({
      rpc: { ok: true },
      ledger: { ok: false, problem: 'ledger failed: ledger_unavailable' },
      paymentRail: { ok: true },
    })
  }, 30_000)
})

describe('/readyz under load and to strangers (issue 37)', () => {
  it('answers 100 calls, 50 of them at once, with at most 10 RPC requests', async () => {
    const counting = await startCountingRpc(devnet.rpcUrl, { holdMs: 20 })
    try {
      const app = preflightApp(counting.url)
      counting.reset()
      const together = await Promise.all(Array.from({ length: 50 }, () => app.request('/readyz')))
      for (const res of together) expect(res.status).toBe(200)
      for (let i = 0; i < 50; i++) expect((await app.request('/readyz')).status).toBe(200)
      expect(counting.methods.length).toBeGreaterThan(0)
      expect(counting.methods.length).toBeLessThanOrEqual(10)
    } finally {
      await counting.close()
    }
  }, 60_000)

  it('shows strangers ok and its own words only; the token bearer sees the figures and the facilitator', async () => {
    // A facilitator whose /supported fails with words that must not reach a stranger.
    const upstream = http.createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' })
      res.end('internal error at http://10.0.0.7:9000/admin?key=UPSTREAM-SECRET-42')
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const facilitatorUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    try {
      const token = 'a-long-metrics-token-0123'
      const { app } = await paidApp({
        preflightRpcUrl: devnet.rpcUrl,
        facilitator: createFacilitator({ kind: 'url', url: facilitatorUrl, timeoutMs: 2_000 }),
        ledger: storage.ledger,
        operations: { metricsToken: token },
      })
      const stranger = await app.request('/readyz')
      expect(stranger.status).toBe(503)
      const text = await stranger.text()
      const body = JSON.parse(text) as Record<string, any>
      expect(body.checks).toEqual({
        rpc: { ok: true },
        ledger: { ok: true },
        paymentRail: {
          ok: false,
          problem:
            'the facilitator does not list exact on eip155:8453 (x402 v2), or its last /supported check failed',
        },
      })
      for (const leak of ['UPSTREAM-SECRET-42', '10.0.0.7', facilitatorUrl, 'blockNumber']) {
        expect(text).not.toContain(leak)
      }
      const wrong = await app.request('/readyz', { headers: { authorization: 'Bearer nope' } })
      expect(await wrong.text()).not.toContain('blockNumber')
      const operator = await app.request('/readyz', {
        headers: { authorization: `Bearer ${token}` },
      })
      const full = (await operator.json()) as Record<string, any>
      expect(BigInt(full.checks.rpc.blockNumber)).toBeGreaterThan(0n)
      expect(full.checks.ledger.unresolvedPayments).toBe(0)
      expect(full.checks.paymentRail.detail).toMatch(/facilitator \/supported failed/)
    } finally {
      await new Promise((resolve) => upstream.close(resolve))
    }
  }, 30_000)
})

describe('the metrics token', () => {
  it('is compared whole, in constant time, whatever the length presented', () => {
    const token = 'a-long-metrics-token-0123'
    expect(presentsToken(`Bearer ${token}`, token)).toBe(true)
    for (const wrong of [
      undefined,
      '',
      'Bearer',
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}0`,
      `bearer ${token}`,
      `Bearer ${'x'.repeat(10_000)}`,
      token,
    ]) {
      expect(presentsToken(wrong, token), String(wrong).slice(0, 40)).toBe(false)
    }
  })
})
