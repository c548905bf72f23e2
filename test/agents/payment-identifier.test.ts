import { x402Client } from '@x402/core/client'
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import {
  type EIP712SignedReceipt,
  extractReceiptFromResponse,
  verifyReceiptSignatureEIP712,
} from '@x402/extensions/offer-receipt'
import {
  appendPaymentIdentifierToExtensions,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BAZAAR_INPUT_EXAMPLE } from '../../src/routes/paid-route-bazaar.js'
import {
  builtinFacilitator,
  fundedPayer,
  nonceOf,
  PAY_TO,
  paidApp,
  RECEIPT_SIGNER,
  settlementsOf,
  usdcBalances,
} from '../payment/paid-stack.js'
import { type ServedGuard, serveApp, startServedGuard } from '../support/served-guard.js'

/**
 * x402's payment-identifier extension on the paid route, over real HTTP on a real devnet with
 * the built-in facilitator: declared on the 402, the same id and payment answered from the
 * ledger, the same id with another payment or body refused with 409, nothing charged twice.
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

const bodyFrom = (account: PrivateKeyAccount, value = '0x0') => ({
  ...BAZAAR_INPUT_EXAMPLE,
  from: account.address,
  value,
})

function x402For(account: PrivateKeyAccount) {
  return new x402Client().register(
    'eip155:8453',
    new ExactEvmScheme(
      toClientEvmSigner(account, createPublicClient({ transport: http(guard.devnet.rpcUrl) })),
    ),
  )
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { res, json: (await res.json()) as Record<string, any> }
}

async function offerAt(url: string): Promise<PaymentRequired> {
  const { res } = await post(url, BAZAAR_INPUT_EXAMPLE)
  expect(res.status).toBe(402)
  return decodePaymentRequiredHeader(res.headers.get('PAYMENT-REQUIRED') ?? '')
}

/** A fresh PAYMENT-SIGNATURE from `account` for `offer`, carrying payment-identifier `id`. */
async function signWithId(
  account: PrivateKeyAccount,
  offer: PaymentRequired,
  id: string | undefined,
): Promise<string> {
  const payload: PaymentPayload = await x402For(account).createPaymentPayload(offer)
  const extensions = structuredClone(payload.extensions ?? {})
  if (id !== undefined) appendPaymentIdentifierToExtensions(extensions, id)
  return encodePaymentSignatureHeader({ ...payload, extensions })
}

describe('the declaration', () => {
  it('declares payment-identifier, not required, beside bazaar', async () => {
    const offer = await offerAt(paidUrl)
    expect(Object.keys(offer.extensions ?? {}).sort()).toEqual(['bazaar', PAYMENT_IDENTIFIER])
    expect(offer.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({
      info: { required: false },
      schema: { properties: { id: { minLength: 16, maxLength: 128 } } },
    })
  })
})

describe('a stock @x402/fetch client sending a payment-identifier', () => {
  it('pays once; the same id and payment replays the answer; the same id with another body is 409', async () => {
    const account = await fundedPayer(guard.devnet.rpcUrl)
    const id = `pay_${crypto.randomUUID().replaceAll('-', '')}`
    // The client registers an extension that adds its id to what the server declared.
    const client = x402For(account).registerExtension({
      key: PAYMENT_IDENTIFIER,
      enrichPaymentPayload: async (payload) => ({
        ...payload,
        extensions: appendPaymentIdentifierToExtensions(
          structuredClone(payload.extensions ?? {}),
          id,
        ),
      }),
    })
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
      body: JSON.stringify(bodyFrom(account)),
    })
    expect(res.status).toBe(200)
    const first = (await res.json()) as Record<string, any>
    const settlement = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE') ?? '')
    expect(signatures).toHaveLength(1)
    const signature = signatures[0]!
    // Both extensions rode in the payment the client sent.
    const sent = JSON.parse(Buffer.from(signature, 'base64').toString('utf8')) as PaymentPayload
    expect(sent.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false, id } })
    expect(sent.extensions?.bazaar).toBeDefined()

    // The x402 offer-receipt receipt rides in PAYMENT-RESPONSE, beside PRE_SEND_PROOF_RECEIPT,
    // and verifies with the extension's own code: signed by the published receipt key.
    const offerReceipt = extractReceiptFromResponse(res)
    expect(offerReceipt?.format).toBe('eip712')
    const recovered = await verifyReceiptSignatureEIP712(offerReceipt as EIP712SignedReceipt)
    expect(recovered.signer.toLowerCase()).toBe(first.receipt.signer.toLowerCase())
    expect(recovered.signer.toLowerCase()).toBe(RECEIPT_SIGNER.address.toLowerCase())
    expect(recovered.payload).toEqual({
      version: 1,
      network: 'eip155:8453',
      resourceUrl: paidUrl,
      payer: account.address,
      issuedAt: Number(first.receipt.issuedAt),
      transaction: settlement.transaction,
    })
    // A forged field no longer recovers to the signer.
    const forged = await verifyReceiptSignatureEIP712({
      ...(offerReceipt as EIP712SignedReceipt),
      payload: { ...recovered.payload, payer: PAY_TO },
    })
    expect(forged.signer.toLowerCase()).not.toBe(RECEIPT_SIGNER.address.toLowerCase())

    // Same id, same payment, same body: the stored answer, nothing charged again.
    const replay = await post(paidUrl, bodyFrom(account), { 'PAYMENT-SIGNATURE': signature })
    expect(replay.res.status).toBe(200)
    expect(replay.json.receipt.id).toBe(first.receipt.id)
    expect(replay.json.result).toEqual(first.result)
    // ...with the very same x402 receipt (deterministic, from the stored receipt).
    expect(extractReceiptFromResponse(replay.res)).toEqual(offerReceipt)

    // Same id, the same payment, another body: 409.
    const otherBody = await post(paidUrl, bodyFrom(account, '0x1'), {
      'PAYMENT-SIGNATURE': signature,
    })
    expect(otherBody.res.status).toBe(409)
    expect(otherBody.json).toMatchObject({ error: 'payment_identifier_conflict' })
    expect(otherBody.json.message).toMatch(/another request body/)

    // Same id, a new authorization (another payment), another body: 409, nothing settles.
    const offer = await offerAt(paidUrl)
    const second = await signWithId(account, offer, id)
    const conflict = await post(paidUrl, bodyFrom(account, '0x2'), { 'PAYMENT-SIGNATURE': second })
    expect(conflict.res.status).toBe(409)
    expect(conflict.json).toMatchObject({ error: 'payment_identifier_conflict' })
    expect(conflict.json.message).toMatch(/another payment/)
    expect(await settlementsOf(guard.rpc, account.address, nonceOf(second))).toHaveLength(0)

    // One settlement in all, for exactly the price.
    expect(await settlementsOf(guard.rpc, account.address, nonceOf(signature))).toEqual([
      settlement.transaction,
    ])
    const [after] = await usdcBalances(guard.rpc, PAY_TO)
    expect(after! - before!).toBe(10_000n)
  })

  it('settles one of two concurrent payments under one id; the other is 409', async () => {
    const account = await fundedPayer(guard.devnet.rpcUrl)
    const id = `race_${crypto.randomUUID().replaceAll('-', '')}`
    const offer = await offerAt(paidUrl)
    const headers = await Promise.all([
      signWithId(account, offer, id),
      signWithId(account, offer, id),
    ])
    const answers = await Promise.all(
      headers.map((h) => post(paidUrl, bodyFrom(account), { 'PAYMENT-SIGNATURE': h })),
    )
    expect(answers.map((a) => a.res.status).sort()).toEqual([200, 409])
    const settled = await Promise.all(
      headers.map((h) => settlementsOf(guard.rpc, account.address, nonceOf(h))),
    )
    expect(settled.flat()).toHaveLength(1)
  })

  it('refuses a malformed id with 400 and charges nothing', async () => {
    const account = await fundedPayer(guard.devnet.rpcUrl)
    const header = await signWithId(account, await offerAt(paidUrl), undefined)
    const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PaymentPayload
    const bad = encodePaymentSignatureHeader({
      ...payload,
      extensions: {
        ...payload.extensions,
        [PAYMENT_IDENTIFIER]: { info: { required: false, id: 'short' } },
      },
    })
    const { res, json } = await post(paidUrl, bodyFrom(account), { 'PAYMENT-SIGNATURE': bad })
    expect(res.status).toBe(400)
    expect(json).toMatchObject({ error: 'invalid_payment_identifier' })
    expect(await settlementsOf(guard.rpc, account.address, nonceOf(bad))).toHaveLength(0)
    // Without an id, the same payment still pays (the extension is optional here).
    const ok = await post(paidUrl, bodyFrom(account), { 'PAYMENT-SIGNATURE': header })
    expect(ok.res.status).toBe(200)
  })
})

describe('PAYMENT_IDENTIFIER_REQUIRED', () => {
  it('declares it required, refuses a payment without an id with 400, and pays one with an id', async () => {
    const { app } = await paidApp({
      preflightRpcUrl: guard.devnet.rpcUrl,
      facilitator: builtinFacilitator(guard.devnet.rpcUrl),
      ledger: guard.storage.ledger,
      payments: { paymentIdentifierRequired: true },
    })
    const served = await serveApp(app)
    try {
      const url = `${served.baseUrl}/simulate/transaction-preflight`
      const offer = await offerAt(url)
      expect(offer.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: true } })
      const account = await fundedPayer(guard.devnet.rpcUrl)
      const without = await signWithId(account, offer, undefined)
      const refused = await post(url, bodyFrom(account), { 'PAYMENT-SIGNATURE': without })
      expect(refused.res.status).toBe(400)
      expect(refused.json).toMatchObject({ error: 'payment_identifier_required' })
      expect(await settlementsOf(guard.rpc, account.address, nonceOf(without))).toHaveLength(0)
      const withId = await signWithId(account, offer, `req_${crypto.randomUUID()}`)
      const paid = await post(url, bodyFrom(account), { 'PAYMENT-SIGNATURE': withId })
      expect(paid.res.status).toBe(200)
      expect(await settlementsOf(guard.rpc, account.address, nonceOf(withId))).toHaveLength(1)
    } finally {
      await served.close()
    }
  })
})
