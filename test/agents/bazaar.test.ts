import { x402Client } from '@x402/core/client'
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
} from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import {
  type DiscoveryExtension,
  extractDiscoveryInfo,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGuardClient } from '../../packages/client/src/client/guard-client.js'
import { verifyReceipt } from '../../packages/client/src/client/verify-receipt.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { BAZAAR_INPUT_EXAMPLE } from '../../src/routes/paid-route-bazaar.js'
import { BUYER, fundedPayer, PAY_TO, settlementsOf, usdcBalances } from '../payment/paid-stack.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * The paid route's `extensions.bazaar` over real HTTP on a real devnet: what an indexer or an
 * agent reads from the 402, and that both a stock `@x402/fetch` client and the buyer kit still
 * pay (one settlement each) with the extension present.
 */
let guard: ServedGuard
let paidUrl: string

beforeAll(async () => {
  guard = await startServedGuard()
  paidUrl = `${guard.baseUrl}/simulate/transaction-preflight`
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

async function unpaid(): Promise<{ header: string; offer: PaymentRequired }> {
  const res = await fetch(paidUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BAZAAR_INPUT_EXAMPLE),
  })
  expect(res.status).toBe(402)
  const header = res.headers.get('PAYMENT-REQUIRED') ?? ''
  return { header, offer: decodePaymentRequiredHeader(header) }
}

describe('extensions.bazaar on the 402', () => {
  it('says how to call the route: POST, a JSON body example and its JSON Schema, an output', async () => {
    const { header, offer } = await unpaid()
    const bazaar = offer.extensions?.bazaar as Record<string, any>
    expect(bazaar.info.input).toEqual({
      type: 'http',
      method: 'POST',
      bodyType: 'json',
      body: BAZAAR_INPUT_EXAMPLE,
    })
    expect(bazaar.info.output).toMatchObject({ type: 'json' })
    expect(bazaar.info.output.example.result.verdict).toBe('sign')
    expect(bazaar.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
    const body = bazaar.schema.properties.input.properties.body
    expect(body.required).toEqual(['from', 'to', 'data'])
    expect(body.additionalProperties).toBe(false)
    expect(body.properties.from.pattern).toBe('^0x[0-9a-fA-F]{40}$')
    expect(body.properties.from.description).toMatch(/Sender/)
    // What a facilitator checks before cataloguing: info valid against the schema, and the spec.
    expect(validateDiscoveryExtension(bazaar as DiscoveryExtension)).toEqual({ valid: true })
    expect(validateDiscoveryExtensionSpec(bazaar)).toEqual({ valid: true })
    // Every offer is unchanged by the extension, and the header stays far below the 16 KB
    // that breaks undici clients.
    expect(offer.accepts).toHaveLength(1)
    expect(header.length).toBeLessThan(8 * 1024)
  })

  it('gives an example body the route really takes (the free preflight answers it)', async () => {
    const { offer } = await unpaid()
    const example = (offer.extensions as Record<string, any>).bazaar.info.input.body
    const res = await fetch(`${guard.baseUrl}/payanagent/v1/base-transaction-preflight`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(example),
    })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { verdict: string }).verdict).toBe('sign')
  })
})

describe('paying a route that declares bazaar', () => {
  it('a stock @x402/fetch client pays once: one settlement, the echo carries bazaar', async () => {
    const account = await fundedPayer(guard.devnet.rpcUrl)
    const publicClient = createPublicClient({ transport: http(guard.devnet.rpcUrl) })
    const client = new x402Client().register(
      'eip155:8453',
      new ExactEvmScheme(toClientEvmSigner(account, publicClient)),
    )
    const signatures: string[] = []
    const recording = (async (input: Request | string | URL, init?: RequestInit) => {
      const request = new Request(input, init)
      const signature = request.headers.get('PAYMENT-SIGNATURE')
      if (signature) signatures.push(signature)
      return fetch(request)
    }) as typeof fetch
    const [before] = await usdcBalances(guard.rpc, PAY_TO)
    const res = await wrapFetchWithPayment(recording, client)(paidUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...BAZAAR_INPUT_EXAMPLE, from: account.address }),
    })
    expect(res.status).toBe(200)
    const settlement = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE') ?? '')
    expect(settlement.success).toBe(true)
    expect(signatures).toHaveLength(1)
    const payload = decodePaymentSignatureHeader(signatures[0]!)
    expect(Object.keys(payload.extensions ?? {}).sort()).toEqual(['bazaar', 'payment-identifier'])
    // A facilitator settling this payment catalogues the route from the echo.
    const discovered = extractDiscoveryInfo(payload, payload.accepted)
    expect(discovered).toMatchObject({ resourceUrl: paidUrl, method: 'POST', x402Version: 2 })
    const nonce = (payload.payload as { authorization: { nonce: `0x${string}` } }).authorization
      .nonce
    expect(await settlementsOf(guard.rpc, account.address, nonce)).toHaveLength(1)
    const [after] = await usdcBalances(guard.rpc, PAY_TO)
    expect(after! - before!).toBe(10_000n)
  })

  it('the buyer kit passes all 17 challenge checks (bazaar among them) and pays once', async () => {
    const client = createGuardClient({
      baseUrl: guard.baseUrl,
      payer: {
        account: BUYER,
        publicClient: createPublicClient({ transport: http(guard.devnet.rpcUrl) }),
      },
    })
    const [before] = await usdcBalances(guard.rpc, PAY_TO)
    const paid = await client.paidPreflight({ ...BAZAAR_INPUT_EXAMPLE, from: BUYER.address })
    expect(paid.challenge?.ok).toBe(true)
    expect(paid.challenge?.checks).toHaveLength(17)
    expect(paid.challenge?.checks.find((c) => c.name === 'bazaar')).toMatchObject({
      ok: true,
      detail: 'bazaar describes a JSON POST with a body example and a JSON Schema',
    })
    const discovery = await client.discovery()
    const verification = await verifyReceipt(paid.receipt, discovery, {
      request: paid.request,
      result: paid.result,
      settlementTx: paid.settlement.transaction,
    })
    expect(verification.valid).toBe(true)
    const [after] = await usdcBalances(guard.rpc, PAY_TO)
    expect(after! - before!).toBe(10_000n)
    expect(paid.payer).toBe(DEVNET_ACCOUNTS.buyer.address)
  })
})
