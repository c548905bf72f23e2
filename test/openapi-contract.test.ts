import { createConfig, lintFromString } from '@redocly/openapi-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../src/errors.js'
import { statusForCode } from '../src/http/error-status.js'
import { operationErrorCodes } from '../src/routes/route-error-codes.js'
import { contractChecker } from './support/openapi-contract.js'
import { type ServedGuard, startServedGuard } from './support/served-guard.js'

let guard: ServedGuard

beforeAll(async () => {
  guard = await startServedGuard()
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

async function servedDocument(): Promise<Record<string, any>> {
  const res = await fetch(`${guard.baseUrl}/openapi.json`)
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, any>
}

describe('the served OpenAPI document', () => {
  it('passes redocly lint (recommended rules) with no errors and no warnings', async () => {
    const doc = await servedDocument()
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    })
    const listed = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`,
    )
    expect(listed).toEqual([])
  })

  it('names every operation, says where it is served and lists the error codes', async () => {
    const doc = await servedDocument()
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('1.2.0')
    expect(doc.servers).toEqual([{ url: guard.baseUrl, description: 'This instance.' }])
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(
      ([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })),
    )
    const ids = operations.map((o) => o.op.operationId)
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    for (const path of ['/.well-known/x402', '/healthz', '/readyz', '/metrics', '/openapi.json']) {
      expect(doc.paths[path]?.get?.operationId, path).toBeTypeOf('string')
    }
    expect(doc.components.schemas.ErrorCode.enum).toEqual(
      expect.arrayContaining(['invalid_request', 'payment_required', 'rate_limited', 'not_ready']),
    )
  })

  it('documents the API headers on the responses that carry them', async () => {
    const doc = await servedDocument()
    const paid = doc.paths['/simulate/transaction-preflight'].post.responses
    expect(Object.keys(paid['402'].headers)).toEqual(
      expect.arrayContaining(['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-Request-Id']),
    )
    expect(Object.keys(paid['200'].headers)).toContain('PAYMENT-RESPONSE')
    const free = doc.paths['/payanagent/v1/base-transaction-preflight'].post.responses
    expect(Object.keys(free['429'].headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id']),
    )
    expect(doc.components.headers.PaymentRequired.required).toBe(true)
  })

  it("narrows each error response's `error` to the codes its operation answers with its status", async () => {
    const doc = await servedDocument()
    const statusRefs = new Set<string>()
    const narrowed: string[] = []
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        const operationCodes = operationErrorCodes(path)
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          const schema = response.content?.['application/json']?.schema
          if (Number(status) < 400 || schema === undefined) continue
          const where = `${method} ${path} ${status}`
          // No error response is left with the shared body and its every code.
          expect(schema.$ref, where).not.toBe('#/components/schemas/Error')
          // Bodies of their own (the 402's challenge, /readyz's NotReady) are not error bodies.
          const errorBody =
            /^#\/components\/schemas\/Error\d{3}$/.test(schema.$ref ?? '') ||
            schema.allOf?.[0]?.$ref === '#/components/schemas/Error'
          if (!errorBody) continue
          expect(operationCodes, where).toBeDefined()
          // Exactly the operation's codes that carry this status, in ERROR_CODES order.
          const expected = ERROR_CODES.filter(
            (code) => statusForCode(code) === Number(status) && operationCodes?.has(code),
          )
          expect(expected.length, where).toBeGreaterThan(0)
          const body = schema.$ref
            ? doc.components.schemas[schema.$ref.slice('#/components/schemas/'.length)]
            : schema
          if (schema.$ref) {
            // The status's own body, shared by the operations that meet all its codes.
            expect(schema.$ref, where).toBe(`#/components/schemas/Error${status}`)
            expect(expected, where).toEqual(
              ERROR_CODES.filter((code) => statusForCode(code) === Number(status)),
            )
            statusRefs.add(status)
          } else {
            narrowed.push(where)
          }
          expect(body.allOf[0], where).toEqual({ $ref: '#/components/schemas/Error' })
          expect(body.allOf[1].properties.error.enum, where).toEqual(expected)
        }
      }
    }
    expect([...statusRefs]).toEqual(expect.arrayContaining(['408', '431', '429']))
    // The free routes no longer advertise the payment codes, nor the evidence route the chain's.
    expect(narrowed).toEqual(
      expect.arrayContaining([
        'post /payanagent/v1/base-transaction-preflight 422',
        'post /payanagent/v1/base-transaction-preflight 503',
        'post /payanagent/v1/public-page-evidence 422',
        'post /simulate/transaction-preflight 503',
        'get /receipts/{id} 503',
      ]),
    )
    const free = doc.paths['/payanagent/v1/base-transaction-preflight'].post.responses
    expect(free['503'].content['application/json'].schema.allOf[1].properties.error.enum).toEqual([
      'rpc_unavailable',
      'service_starting',
      'overloaded',
    ])
    const paid = doc.paths['/simulate/transaction-preflight'].post.responses
    expect(paid['503'].content['application/json'].schema.allOf[1].properties.error.enum).toEqual([
      'rpc_unavailable',
      'settlement_pending',
      'payment_in_progress',
      'ledger_unavailable',
      'service_starting',
      'overloaded',
    ])
    // /readyz's 503 has its own body, and not_ready is its one code.
    expect(doc.paths['/readyz'].get.responses['503'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/NotReady',
    })
    expect(doc.components.schemas.NotReady.properties.error).toEqual({
      type: 'string',
      enum: ['not_ready'],
    })
    // The served document holds a body to its status's codes, not to any code.
    const checker = contractChecker(doc)
    const answer = (error: string, status: number) =>
      checker.check(
        'POST',
        'http://localhost/payanagent/v1/base-transaction-preflight',
        new Response(JSON.stringify({ error, message: 'x', issues: [] }), {
          status,
          headers: {
            'content-type': 'application/json',
            ...(status >= 500 ? { 'retry-after': '5' } : {}),
          },
        }),
      )
    expect(await answer('invalid_request', 422)).toEqual([])
    expect(await answer('rpc_unavailable', 503)).toEqual([])
    expect(await answer('service_starting', 503)).toEqual([])
    expect(await answer('rpc_unavailable', 422)).toEqual([
      expect.stringContaining('body leaves the schema'),
    ])
    expect(await answer('invalid_request', 503)).toEqual([
      expect.stringContaining('body leaves the schema'),
    ])
  })
})

describe('the contract check itself', () => {
  it('catches a drifted body, an undocumented status, header and route', async () => {
    const checker = contractChecker(await servedDocument())
    const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
      new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      })
    const url = 'http://localhost/payanagent/v1/base-transaction-preflight'
    expect(
      await checker.check(
        'POST',
        url,
        json({ error: 'no_such_code', message: 'x', issues: [] }, 422),
      ),
    ).toEqual([expect.stringContaining('body leaves the schema')])
    expect(
      await checker.check(
        'POST',
        url,
        json({ error: 'invalid_request', message: 'x', issues: [] }, 418),
      ),
    ).toEqual([expect.stringContaining('status 418 is not documented')])
    expect(
      await checker.check(
        'POST',
        url,
        json({ error: 'invalid_request', message: 'x', issues: [] }, 422, {
          'PAYMENT-REQUIRED': 'e30=',
        }),
      ),
    ).toEqual([expect.stringContaining('header payment-required is not documented')])
    expect(await checker.check('GET', 'http://localhost/secret-route', json({}, 200))).toEqual([
      expect.stringContaining('no such operation'),
    ])
    // And a real answer keeps it.
    expect(
      await checker.check(
        'POST',
        url,
        await fetch(`${guard.baseUrl}/payanagent/v1/base-transaction-preflight`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      ),
    ).toEqual([])
  })

  it('requires PAYMENT-REQUIRED on the 402', async () => {
    const checker = contractChecker(await servedDocument())
    const res = new Response('{}', { status: 402, headers: { 'content-type': 'application/json' } })
    const problems = await checker.check(
      'POST',
      'http://localhost/simulate/transaction-preflight',
      res,
    )
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('required header payment-required is missing'),
      ]),
    )
  })
})
