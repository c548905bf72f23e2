import { guardTools, PaidTransactionRequestSchema } from '@pre-send-guard/client/mcp'
import { OPENAPI_REQUEST_BODIES, TransactionRequestSchema } from '@pre-send-guard/client/schemas'
import { ROUTES } from '@pre-send-guard/client/types'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { paidTransactionPreflightRoute } from '../src/routes/paid-transaction-preflight.js'
import { postJson, preflightApp } from './support/preflight-app.js'
import { DEAD_URL } from './support/served-guard.js'

/** The JSON request body schema of a route definition, when it has one. */
function bodySchema(route: unknown): z.ZodType | undefined {
  const r = route as {
    request?: { body?: { content?: Record<string, { schema?: z.ZodType }> } }
  }
  return r.request?.body?.content?.['application/json']?.schema
}

/** The definition object of a zod schema: `.meta()` clones share it with their schema. */
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: object } })._zod.def

/**
 * The request shapes are declared once, in `@pre-send-guard/client/schemas`: each route
 * validates with the very schema an MCP tool takes as input (or a `.meta({ id })` clone of it,
 * which only adds the OpenAPI component name and shares the definition), so the OpenAPI
 * document, the route's validation, the tools and the client's types cannot disagree.
 */
describe('the shared request schemas', () => {
  const app = preflightApp(DEAD_URL)
  const routes = [
    ...app.openAPIRegistry.definitions.flatMap((d) => ('route' in d ? [d.route] : [])),
    paidTransactionPreflightRoute(1024),
  ]
  const bodyAt = (path: string) => {
    const route = routes.find((r) => r.path === path && r.method === 'post')
    expect(route, path).toBeDefined()
    return bodySchema(route)
  }

  it('are what every route validates with and every MCP tool takes', () => {
    const tools = guardTools('x402-meta').filter((t) => t.path !== undefined)
    expect(tools.map((t) => t.path).sort()).toEqual(
      [
        ROUTES.transactionPreflight,
        ROUTES.bundlePreflight,
        ROUTES.typedDataPreflight,
        ROUTES.authorizationPreflight,
        ROUTES.userOperationPreflight,
        ROUTES.evidence,
        ROUTES.paidTransactionPreflight,
      ].sort(),
    )
    for (const tool of tools) {
      const body = bodyAt(tool.path as string)
      expect(body, tool.name).toBeDefined()
      if (tool.path === ROUTES.paidTransactionPreflight) {
        // The paid tool adds `fresh` (how its server pays) to the route's own fields.
        expect(tool.inputSchema).toBe(PaidTransactionRequestSchema)
        const shape = PaidTransactionRequestSchema.shape as Record<string, unknown>
        for (const [name, field] of Object.entries(TransactionRequestSchema.shape)) {
          expect(shape[name], name).toBe(field)
        }
        expect(defOf(body as z.ZodType)).toBe(defOf(TransactionRequestSchema))
        continue
      }
      expect(defOf(body as z.ZodType), tool.name).toBe(defOf(tool.inputSchema))
    }
  })

  it('name the OpenAPI components on clones that check exactly what the schema checks', () => {
    const named = Object.values(OPENAPI_REQUEST_BODIES).filter((s) => s.meta()?.id !== undefined)
    expect(named.map((s) => s.meta()?.id).sort()).toEqual([
      'BundlePreflightRequest',
      'PublicPageEvidenceRequest',
      'TransactionPreflightRequest',
      'TypedDataRequest',
    ])
    expect(bodyAt(ROUTES.transactionPreflight)).toBe(OPENAPI_REQUEST_BODIES.transaction)
    expect(bodyAt(ROUTES.paidTransactionPreflight)).toBe(OPENAPI_REQUEST_BODIES.transaction)
  })

  it('answer a state override that is not hex with 422, never a 500', async () => {
    // Before the override quantities shared the guarded hex rule, BigInt('zz') threw inside
    // validation and the route answered 500.
    const tx = {
      from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      data: '0x',
    }
    const res = await postJson(app, ROUTES.bundlePreflight, {
      transactions: [tx],
      stateOverrides: { [tx.from]: { balance: 'zz', nonce: '0x' } },
    })
    expect(res.status).toBe(422)
    const body = (await res.json()) as {
      error: string
      issues: { path: string; message: string }[]
    }
    expect(body.error).toBe('invalid_request')
    expect(body.issues).toEqual([
      { path: `stateOverrides.${tx.from}.balance`, message: 'must be 0x-prefixed hex' },
      { path: `stateOverrides.${tx.from}.nonce`, message: 'must be 0x-prefixed hex' },
    ])
  })

  it('take a value of at most 256 bits and refuse one bit more', () => {
    const body = {
      from: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      data: '0x',
    }
    const max = `0x${'f'.repeat(64)}`
    const over = `0x1${'0'.repeat(64)}`
    expect(TransactionRequestSchema.safeParse({ ...body, value: max }).success).toBe(true)
    const refused = TransactionRequestSchema.safeParse({ ...body, value: over })
    expect(refused.success).toBe(false)
    expect(refused.error?.issues.map((issue) => issue.message)).toEqual(['must fit in 256 bits'])
  })

  it('mount every API path of ROUTES, and only those, under the free prefix or beside it', () => {
    const served = new Set(routes.map((r) => r.path))
    for (const path of [
      ROUTES.transactionPreflight,
      ROUTES.bundlePreflight,
      ROUTES.typedDataPreflight,
      ROUTES.authorizationPreflight,
      ROUTES.userOperationPreflight,
      ROUTES.evidence,
      ROUTES.paidTransactionPreflight,
    ]) {
      expect(served.has(path), path).toBe(true)
    }
    // The published paths, spelled out: a rename is a contract change.
    expect(ROUTES).toMatchObject({
      transactionPreflight: '/payanagent/v1/base-transaction-preflight',
      paidTransactionPreflight: '/simulate/transaction-preflight',
      discovery: '/.well-known/x402',
      receipt: '/receipts/{id}',
    })
  })
})
