import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServedGuard, startServedGuard } from './support/served-guard.js'
import { componentsOfSharedSchemas } from './support/shared-schemas.js'

let guard: ServedGuard
let doc: Record<string, any>

beforeAll(async () => {
  guard = await startServedGuard()
  const res = await fetch(`${guard.baseUrl}/openapi.json`)
  expect(res.status).toBe(200)
  doc = (await res.json()) as Record<string, any>
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1.0 with document version 1.2.0', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('1.2.0')
  })

  it('marks the paid operation, and only it, with x-payment-info for x402 indexers', async () => {
    const paid = doc.paths['/simulate/transaction-preflight'].post
    expect(paid['x-payment-info']).toEqual({
      price: { mode: 'fixed', currency: 'USD', amount: '0.01' },
      protocols: [{ x402: { network: 'eip155:8453', x402Version: 2 } }],
    })
    const marked = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(
      ([path, item]) =>
        Object.entries(item)
          .filter(([, operation]) => operation?.['x-payment-info'])
          .map(([method]) => `${method.toUpperCase()} ${path}`),
    )
    expect(marked).toEqual(['POST /simulate/transaction-preflight'])
    // Discovery lists the same resource by absolute URL (x402scan reads `version`, `resources`).
    const discovery = (await (await fetch(`${guard.baseUrl}/.well-known/x402`)).json()) as Record<
      string,
      unknown
    >
    expect(discovery.version).toBe(1)
    expect(discovery.resources).toEqual([`${guard.baseUrl}/simulate/transaction-preflight`])
  })

  it('describes the three POST routes with their documented statuses', () => {
    const statuses = (path: string) => Object.keys(doc.paths[path]?.post?.responses ?? {}).sort()
    expect(statuses('/simulate/transaction-preflight')).toEqual(
      expect.arrayContaining(['200', '402', '422', '429', '503']),
    )
    // 408 and 431 on every route: the server's timeouts and the header bound come first.
    expect(statuses('/payanagent/v1/base-transaction-preflight')).toEqual([
      '200',
      '408',
      '422',
      '429',
      '431',
      '503',
    ])
    expect(statuses('/payanagent/v1/public-page-evidence')).toEqual([
      '200',
      '408',
      '422',
      '429',
      '431',
      '502',
    ])
    expect(statuses('/payanagent/v1/base-bundle-preflight')).toEqual([
      '200',
      '408',
      '422',
      '429',
      '431',
      '502',
      '503',
    ])
  })

  it('describes effects on the preflight answer and the bundle route', () => {
    const { PreflightResult, BundlePreflightResult, BundlePreflightRequest } =
      doc.components.schemas
    expect(PreflightResult.properties.effects.$ref).toBe('#/components/schemas/ExecutionEffects')
    expect(PreflightResult.required).toContain('effects')
    expect(BundlePreflightResult.required).toEqual(
      expect.arrayContaining(['verdict', 'hypothetical', 'transactions', 'netEffects']),
    )
    expect(BundlePreflightRequest.properties.transactions.maxItems).toBe(8)
    expect(BundlePreflightRequest.additionalProperties).toBe(false)
  })

  it('uses one request schema for both preflight routes, strict, with the spec patterns', () => {
    const ref = (path: string) =>
      doc.paths[path].post.requestBody.content['application/json'].schema.$ref as string
    expect(ref('/payanagent/v1/base-transaction-preflight')).toBe(
      ref('/simulate/transaction-preflight'),
    )
    const schema = doc.components.schemas[ref('/simulate/transaction-preflight').split('/').pop()!]
    expect(schema.additionalProperties).toBe(false)
    expect(schema.required.sort()).toEqual(['data', 'from', 'to'])
    expect(schema.properties.from.pattern).toBe('^0x[0-9a-fA-F]{40}$')
    expect(schema.properties.data.pattern).toBe('^0x(?:[0-9a-fA-F]{2})*$')
  })

  it("serves the shared answer schemas' components exactly as they generate on their own", () => {
    // One declaration (@pre-send-guard/client/schemas): every component it names is served
    // byte for byte as the shared schema generates it, under the same name.
    const expected = componentsOfSharedSchemas()
    const names = Object.keys(expected)
    expect(names.length).toBeGreaterThanOrEqual(20)
    for (const name of names) {
      expect(doc.components.schemas[name], name).toEqual(expected[name])
    }
  })

  it('describes findings and decoded calldata', () => {
    const { Finding, DecodedCall, PreflightResult } = doc.components.schemas
    expect(Finding.properties.severity.enum).toEqual(['critical', 'warning', 'info'])
    expect(PreflightResult.properties.decoded.$ref).toBe('#/components/schemas/DecodedCall')
    expect(JSON.stringify(DecodedCall)).toContain('"calls"')
    expect(PreflightResult.properties.verdict.enum).toEqual(['sign', 'review', 'block'])
  })
})
