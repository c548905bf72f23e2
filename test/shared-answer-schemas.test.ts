import { OpenAPIHono } from '@hono/zod-openapi'
import {
  DiscoverySchema,
  ErrorBodySchema,
  PaidPreflightResponseSchema,
  PaymentChallengeSchema,
  PreflightResultSchema,
  ReceiptSchema,
} from '@pre-send-guard/client/schemas'
import { describe, expect, it } from 'vitest'
import { registerDiscovery } from '../src/routes/discovery.js'
import { paidTransactionPreflightRoute } from '../src/routes/paid-transaction-preflight.js'
import { receiptByAuthorizationRoute, receiptRoute } from '../src/routes/receipts.js'
import { preflightApp } from './support/preflight-app.js'
import { DEAD_URL } from './support/served-guard.js'
import { responseSchemas, sharedComponents } from './support/shared-schemas.js'

/**
 * The answer shapes are declared once, in `@pre-send-guard/client/schemas`: the service's routes
 * answer with those very schema objects (identity, not a copy that happens to match), and the
 * client parses with them. The served document's components are compared with what the shared
 * schemas generate in test/openapi.test.ts.
 */
describe('the shared answer schemas', () => {
  const shared = sharedComponents()

  it('name the components of every answer', () => {
    expect([...shared.keys()].sort()).toEqual(
      expect.arrayContaining([
        'BundlePreflightResult',
        'DecodedCall',
        'DecodedRevert',
        'Discovery',
        'Error',
        'ErrorCode',
        'ExecutionEffects',
        'FeeContext',
        'Finding',
        'PageEvidence',
        'PaidPreflightResponse',
        'PaymentChallenge',
        'PreSendProofReceipt',
        'PreflightResult',
        'RailReadiness',
        'Revert',
        'TypedDataPreflightResult',
      ]),
    )
  })

  it('are the very objects every route answers with', () => {
    const app = preflightApp(DEAD_URL)
    const paid = new OpenAPIHono()
    // Registration only reads the route definition; the handler (and so these deps) never runs.
    registerDiscovery(paid, {} as Parameters<typeof registerDiscovery>[1])
    const routes = [
      ...app.openAPIRegistry.definitions,
      ...paid.openAPIRegistry.definitions,
      paidTransactionPreflightRoute(1024),
      receiptRoute,
      receiptByAuthorizationRoute,
    ].flatMap((d) => ('route' in d ? [d.route] : 'responses' in d ? [d] : []))
    const answers = responseSchemas(routes as { responses?: Record<string, unknown> }[])
    const named = answers.filter(({ schema }) => typeof schema.meta()?.id === 'string')
    const notShared = named
      .filter(({ schema }) => shared.get(schema.meta()?.id as string) !== schema)
      .map(({ where, schema }) => `${where}: ${String(schema.meta()?.id)}`)
    expect(notShared).toEqual([])
    const served = new Set(named.map(({ schema }) => schema))
    for (const schema of [
      PreflightResultSchema,
      PaidPreflightResponseSchema,
      PaymentChallengeSchema,
      ReceiptSchema,
      DiscoverySchema,
      ErrorBodySchema,
    ]) {
      expect(served.has(schema), String(schema.meta()?.id)).toBe(true)
    }
    // Every JSON answer but the service's own operational ones (health, readiness) is shared.
    const local = answers
      .filter(({ schema }) => ![...shared.values()].includes(schema))
      .map(({ where }) => where)
    expect(local.sort()).toEqual(['/healthz 200', '/readyz 200', '/readyz 503'])
  })

  it('are what the client parses answers with (the published build)', async () => {
    // The module the package's client parses with, resolved like the service resolves the
    // schemas: from the installed package's build.
    const responses = (await import(
      new URL('./guard-responses.js', import.meta.resolve('@pre-send-guard/client')).href
    )) as Record<string, unknown>
    expect(responses.PreflightResultSchema).toBe(PreflightResultSchema)
    expect(responses.PaidResponseSchema).toBe(PaidPreflightResponseSchema)
    expect(responses.ReceiptSchema).toBe(ReceiptSchema)
  })
})
