import { TypedDataResultSchema } from '@pre-send-guard/client/schemas'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { testAccount } from '../support/contracts.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'
import { PERMIT_TYPES, USDC_DOMAIN } from '../support/usdc-typed-data.js'

/** The typed-data route as published: OpenAPI, discovery, and answers that match the schema. */

const PATH = '/payanagent/v1/base-typed-data-preflight'
let guard: ServedGuard

beforeAll(async () => {
  guard = await startServedGuard()
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

describe('the typed-data route as published', () => {
  it('is in the OpenAPI document with its statuses, a strict body and the result schema', async () => {
    const doc = (await (await fetch(`${guard.baseUrl}/openapi.json`)).json()) as Record<string, any>
    const post = doc.paths[PATH]?.post
    expect(Object.keys(post?.responses ?? {}).sort()).toEqual([
      '200',
      '408',
      '422',
      '429',
      '431',
      '503',
    ])
    const request = doc.components.schemas.TypedDataRequest
    expect(request.additionalProperties).toBe(false)
    expect(request.required.sort()).toEqual(['signer', 'typedData'])
    const result = doc.components.schemas.TypedDataPreflightResult
    expect(result.properties.verdict.enum).toEqual(['sign', 'review', 'block'])
    expect(result.properties.kind.enum).toContain('permit2-permit-single')
  })

  it("is listed among discovery's free routes", async () => {
    const discovery = (await (await fetch(`${guard.baseUrl}/.well-known/x402`)).json()) as {
      freeRoutes: { method: string; path: string }[]
    }
    expect(discovery.freeRoutes).toContainEqual(
      expect.objectContaining({ method: 'POST', path: PATH }),
    )
  })

  it('answers over real HTTP with a body the published schema accepts, field for field', async () => {
    const owner = testAccount(7).address
    const res = await fetch(`${guard.baseUrl}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        chainId: '0x2105',
        signer: owner,
        typedData: {
          domain: USDC_DOMAIN,
          types: PERMIT_TYPES,
          primaryType: 'Permit',
          message: { owner, spender: USDC_ADDRESS, value: '1', nonce: 0, deadline: '1' },
        },
      }),
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    const parsed = TypedDataResultSchema.strict().parse(body)
    expect(Object.keys(parsed).sort()).toEqual(Object.keys(body).sort())
    expect(parsed.kind).toBe('eip2612-permit')
  })
})
