import { createHash } from 'node:crypto'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lazyMetaMaskPhishingList } from '../../src/adapters/phishing/metamask-phishing-list.js'
import { createJinaReader } from '../../src/adapters/reader/jina-reader.js'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import { openStorage } from '../../src/adapters/storage/open-storage.js'
import { DEFAULT_SCREEN_CONFIG } from '../../src/domain/screen/screen-transaction.js'
import { type AppDeps, createApp } from '../../src/http/create-app.js'
import { mcpOriginAllowed } from '../../src/http/mcp-origins.js'
import { builtinFacilitator, paidApp } from '../payment/paid-stack.js'
import { DEAD_URL, type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * The HTTP hardening of issue 37 (item 4), over real HTTP on the real paid app on a devnet:
 * security headers on pages and answers, CORS only where a browser needs it, the MCP endpoint's
 * Origin check, receipt ids checked before the ledger; and a mainnet app that cannot be built
 * to reflect Host.
 */

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,*/*;q=0.8'
const MCP_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

let guard: ServedGuard
beforeAll(async () => {
  guard = await startServedGuard()
}, 60_000)
afterAll(async () => {
  await guard?.stop()
})

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${guard.baseUrl}${path}`, { headers })

/** The `'sha256-…'` CSP source of an inline element's text. */
const hashOf = (text: string) =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`

describe('security headers', () => {
  it('every page: a CSP naming its inline script and style by hash, no framing, no referrer, nosniff', async () => {
    for (const path of [
      '/start-here',
      '/first-unpaid-402',
      '/playground',
      '/rules',
      '/quickstart',
      '/no-such-page',
    ]) {
      const res = await get(path, { accept: BROWSER_ACCEPT })
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/)
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp, path).toContain("default-src 'none'")
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(csp, path).toContain("base-uri 'none'")
      expect(csp, path).not.toContain('unsafe-inline')
      expect(res.headers.get('x-frame-options'), path).toBe('DENY')
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer')
      // Every inline script and style of the page is one the policy names: the page still runs.
      const html = await res.text()
      const inline = [
        ...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g),
        ...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g),
      ].map((m) => m[1] ?? '')
      expect(inline.length, path).toBeGreaterThan(0)
      for (const text of inline) expect(csp, path).toContain(hashOf(text))
      expect(html, path).not.toMatch(/\sstyle="|\son[a-z]+="/)
    }
  })

  it('JSON answers, errors included, are never sniffed; they carry no page policy', async () => {
    for (const path of ['/openapi.json', '/.well-known/x402', '/healthz', '/no-such-route']) {
      const res = await get(path)
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/)
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(res.headers.get('content-security-policy'), path).toBeNull()
    }
  })
})

describe('CORS', () => {
  it('answers browsers on the API, the paid route, discovery, OpenAPI and receipts', async () => {
    for (const path of ['/.well-known/x402', '/openapi.json', '/receipts/rcpt_x']) {
      expect((await get(path)).headers.get('access-control-allow-origin'), path).toBe('*')
    }
    const preflight = await fetch(`${guard.baseUrl}/simulate/transaction-preflight`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,payment-signature',
      },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'payment-signature',
    )
    const free = await fetch(`${guard.baseUrl}/payanagent/v1/base-transaction-preflight`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(free.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('says nothing to browsers on the operator routes, MCP and the pages', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/start-here']) {
      expect((await get(path)).headers.get('access-control-allow-origin'), path).toBeNull()
    }
    const mcp = await fetch(`${guard.baseUrl}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: MCP_LIST,
    })
    expect(mcp.status).toBe(200)
    expect(mcp.headers.get('access-control-allow-origin')).toBeNull()
    const preflight = await fetch(`${guard.baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('POST /mcp and Origin', () => {
  const mcp = (origin?: string) =>
    fetch(`${guard.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...(origin === undefined ? {} : { origin }) },
      body: MCP_LIST,
    })

  it('refuses a foreign Origin with 403 origin_not_allowed, before reading the body', async () => {
    for (const origin of ['https://evil.example', 'http://evil.example:8402', 'null']) {
      const res = await mcp(origin)
      expect(res.status, origin).toBe(403)
      const body = (await res.json()) as { error: string; message: string }
      expect(body.error).toBe('origin_not_allowed')
      expect(body.message).not.toContain('evil.example')
    }
  })

  it('serves clients that send no Origin, and (devnet) pages on this machine', async () => {
    expect((await mcp()).status).toBe(200)
    expect((await mcp(new URL(guard.baseUrl).origin)).status).toBe(200)
    expect((await mcp('http://localhost:5173')).status).toBe(200)
  })

  it('on mainnet, only the public origin and the configured ones: never the Host, nor loopback', () => {
    const allowed = mcpOriginAllowed({
      environment: 'mainnet',
      publicBaseUrl: 'https://guard.example/api',
      allowed: ['https://app.example'],
    })
    expect(allowed('https://guard.example')).toBe(true)
    expect(allowed('https://app.example')).toBe(true)
    for (const origin of [
      'http://127.0.0.1:8402',
      'http://localhost',
      'https://guard.example.evil.example',
      'https://guard.example:444',
      'http://guard.example',
      'https://app.example/',
      'null',
      '',
    ]) {
      expect(allowed(origin), origin).toBe(false)
    }
    const devnet = mcpOriginAllowed({ environment: 'devnet' })
    for (const origin of ['http://127.0.0.1:8402', 'http://[::1]:3000', 'http://a.localhost']) {
      expect(devnet(origin), origin).toBe(true)
    }
    for (const origin of ['http://127.0.0.1.evil.example', 'file://', 'http://127.0.0.1:8402/x']) {
      expect(devnet(origin), origin).toBe(false)
    }
  })
})

describe('receipt ids', () => {
  it('answers a malformed id 404 without reading the ledger: no database text, never 503', async () => {
    for (const id of [
      'rcpt_x%00',
      '%00',
      'rcpt_%00%00%00',
      `rcpt_${'A'.repeat(32)}`,
      `rcpt_${'0'.repeat(31)}`,
      `rcpt_${'0'.repeat(33)}`,
      `x_${'0'.repeat(32)}`,
      'rcpt_%E2%80%AE0000',
    ]) {
      const res = await get(`/receipts/${id}`)
      expect(res.status, id).toBe(404)
      const text = await res.text()
      expect(JSON.parse(text).error, id).toBe('not_found')
      expect(text, id).not.toMatch(/byte sequence|UTF8|0x00|ledger|postgres|pglite/i)
    }
  })

  it('asks the ledger only for an id of the shape it issues', async () => {
    // A closed ledger: any read would be 503 ledger_unavailable.
    const closed = await openStorage({ kind: 'pglite', dataDir: undefined })
    const { app } = await paidApp({
      preflightRpcUrl: guard.devnet.rpcUrl,
      facilitator: builtinFacilitator(guard.devnet.rpcUrl),
      ledger: closed.ledger,
    })
    await closed.close()
    expect((await app.request('/receipts/rcpt_x%00')).status).toBe(404)
    expect((await app.request(`/receipts/rcpt_${'f'.repeat(32)}`)).status).toBe(503)
  }, 30_000)
})

describe('a mainnet app', () => {
  const mainnet = (extra: Partial<AppDeps> = {}) =>
    createApp({
      logger: pino({ level: 'silent' }),
      environment: 'mainnet',
      maxBodyBytes: 64 * 1024,
      preflight: {
        chain: createJsonRpcChainReader({ rpcUrl: DEAD_URL, timeoutMs: 1000 }),
        chainId: 8453,
        environment: 'mainnet',
        screen: DEFAULT_SCREEN_CONFIG,
      },
      reader: createJinaReader({ baseUrl: DEAD_URL, timeoutMs: 1000 }),
      phishingList: lazyMetaMaskPhishingList(),
      ...extra,
    })

  it('cannot be built without its public base URL, so it never reflects a forged Host', async () => {
    expect(() => mainnet()).toThrow(/publicBaseUrl/)
    const app = mainnet({ publicBaseUrl: 'https://guard.example' })
    const page = await app.request('http://attacker.example/quickstart', {
      headers: { host: 'attacker.example', accept: BROWSER_ACCEPT },
    })
    const text = await page.text()
    expect(text).toContain('https://guard.example/.well-known/x402')
    expect(text).not.toContain('attacker.example')
  })

  it('refuses a page of a foreign origin on /mcp, even one naming the request Host', async () => {
    const app = mainnet({ publicBaseUrl: 'https://guard.example' })
    const res = await app.request('http://attacker.example/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, host: 'attacker.example', origin: 'http://attacker.example' },
      body: MCP_LIST,
    })
    expect(res.status).toBe(403)
  })
})
