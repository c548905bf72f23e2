import { createPublicClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkChallenge } from '../../packages/client/src/client/check-challenge.js'
import {
  createGuardClient,
  type TransactionRequest,
} from '../../packages/client/src/client/guard-client.js'
import { GuardError } from '../../packages/client/src/client/guard-error.js'
import type { Discovery } from '../../packages/client/src/client/guard-responses.js'
import {
  canonicalJsonHash,
  verifyReceipt,
} from '../../packages/client/src/client/verify-receipt.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { canonicalJsonHash as serviceCanonicalJsonHash } from '../../src/domain/receipt/canonical-json.js'
import { readerFor } from '../evidence/evidence-app.js'
import { usdcBalances } from '../payment/paid-stack.js'
import { type FakeReader, startFakeReader } from '../support/fake-reader.js'
import { preflightApp } from '../support/preflight-app.js'
import {
  DEAD_URL,
  type ServedGuard,
  serveApp,
  startServedGuard,
  transactionsSince,
} from '../support/served-guard.js'

/**
 * The buyer kit's HTTP client against the real app over real HTTP on loopback, a real devnet,
 * a real PGlite ledger and the built-in facilitator settling on chain.
 */
let guard: ServedGuard
const buyer = privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey)
const payTo = DEVNET_ACCOUNTS.payTo.address

const benign: TransactionRequest = {
  chainId: '0x2105',
  from: buyer.address,
  to: payTo,
  data: '0x',
  value: '0x0',
}

beforeAll(async () => {
  guard = await startServedGuard()
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

function payingClient(options: { maxPayment?: bigint; fetch?: typeof fetch } = {}) {
  return createGuardClient({
    baseUrl: guard.baseUrl,
    payer: {
      account: buyer,
      publicClient: createPublicClient({ transport: http(guard.devnet.rpcUrl) }),
    },
    ...options,
  })
}

/** A fetch that records what it sent (to prove no payment left). */
function recordingFetch() {
  const sent: Request[] = []
  const fetchFn = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    sent.push(request.clone())
    return fetch(request)
  }) as typeof fetch
  return { sent, fetch: fetchFn }
}

describe('free routes', () => {
  it('reads discovery and runs the read-only preflight', async () => {
    const client = createGuardClient({ baseUrl: `${guard.baseUrl}/` })
    const discovery = await client.discovery()
    expect(discovery).toMatchObject({
      route: '/simulate/transaction-preflight',
      price: '$0.01',
      network: 'eip155:8453',
      payTo,
      asset: USDC_ADDRESS,
      amount: '10000',
      environment: 'devnet',
      devnet: { rpcUrl: guard.devnet.rpcUrl },
    })
    expect(discovery.receipts?.signer).toBe(DEVNET_ACCOUNTS.receiptSigner.address)

    const result = await client.preflight(benign)
    expect(result).toMatchObject({ verdict: 'sign', findings: [], environment: 'devnet' })
    expect(BigInt(result.fees.maxFeePerGas)).toBeGreaterThan(0n)
  })

  it('turns a 422 into a GuardError with the service code and issues', async () => {
    const client = createGuardClient({ baseUrl: guard.baseUrl })
    const error = await client
      .preflight({ ...benign, to: '0x1234' as TransactionRequest['to'] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GuardError)
    expect(error).toMatchObject({ code: 'invalid_request', status: 422, unavailable: false })
    expect((error as GuardError).issues.map((i) => i.path)).toEqual(['to'])
    expect((error as GuardError).requestId).toBeTypeOf('string')
  })

  it('reports a guard that is down as guard_unreachable', async () => {
    const error = await createGuardClient({ baseUrl: DEAD_URL })
      .preflight(benign)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'guard_unreachable', status: undefined, unavailable: true })
  })

  it('carries Retry-After on 503 rpc_unavailable', async () => {
    const broken = await serveApp(preflightApp(DEAD_URL, { timeoutMs: 500 }))
    try {
      const error = await createGuardClient({ baseUrl: broken.baseUrl })
        .preflight(benign)
        .catch((e: unknown) => e)
      expect(error).toMatchObject({
        code: 'rpc_unavailable',
        status: 503,
        retryAfter: 5,
        unavailable: true,
      })
    } finally {
      await broken.close()
    }
  })

  describe('public-page evidence', () => {
    let reader: FakeReader
    let served: Awaited<ReturnType<typeof serveApp>>
    beforeAll(async () => {
      reader = await startFakeReader()
      served = await serveApp(preflightApp(DEAD_URL, { reader: readerFor(reader) }))
    })
    afterAll(async () => {
      await served?.close()
      await reader?.close()
    })

    it('returns bounded, hashed markdown', async () => {
      const page = await createGuardClient({ baseUrl: served.baseUrl }).evidence(
        'https://example.com/',
        500,
      )
      expect(page).toMatchObject({ sourceUrl: 'https://example.com/', truncated: false })
      expect(page.markdown).toContain('Fake page')
      expect(page.sha256).toMatch(/^[0-9a-f]{64}$/)
      expect(reader.received.at(-1)?.url).toBe('https://example.com/')
    })

    it('carries Retry-After on 502 reader_unavailable', async () => {
      reader.replies.set('https://busy.example.com/', {
        kind: 'error',
        status: 429,
        headers: { 'retry-after': '7' },
      })
      const error = await createGuardClient({ baseUrl: served.baseUrl })
        .evidence('https://busy.example.com/')
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'reader_unavailable', status: 502, retryAfter: 7 })
    })

    it('turns an unsafe URL into 422 unsafe_url', async () => {
      const error = await createGuardClient({ baseUrl: served.baseUrl })
        .evidence('http://169.254.169.254/')
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'unsafe_url', status: 422 })
    })
  })
})

describe('checkChallenge', () => {
  it('passes every check for the real challenge against the real discovery', async () => {
    const client = createGuardClient({ baseUrl: guard.baseUrl })
    const discovery = await client.discovery()
    const unpaid = await client.unpaidChallenge(benign, { discovery })
    const result = checkChallenge(discovery, unpaid.status, unpaid.body, unpaid.paymentRequired, {
      requestUrl: unpaid.url,
    })
    expect(result.checks.filter((c) => !c.ok)).toEqual([])
    expect(result.ok).toBe(true)
    expect(result.checks.map((c) => c.name)).toEqual([
      'status_402',
      'error_payment_required',
      'payment_required_header',
      'route',
      'network',
      'price',
      'pay_to',
      'asset',
      'amount',
      'scheme',
      'transfer_method',
      'extensions',
      'bazaar',
      'max_timeout',
      'onboarding_url',
      'price_matches_amount',
      'within_spend_cap',
    ])
  })

  const tampered: [string, (d: Discovery) => Discovery, string[]][] = [
    ['a wrong price', (d) => ({ ...d, price: '$0.02' }), ['price', 'price_matches_amount']],
    ['a wrong network', (d) => ({ ...d, network: 'eip155:1' }), ['network']],
    ['a wrong payTo', (d) => ({ ...d, payTo: DEVNET_ACCOUNTS.facilitator.address }), ['pay_to']],
    ['a wrong route', (d) => ({ ...d, route: '/paid' }), ['route']],
    ['a wrong amount', (d) => ({ ...d, amount: '1000000' }), ['amount', 'price_matches_amount']],
  ]

  it.each(tampered)('names what fails for a discovery with %s', async (_, tamper, failing) => {
    const client = createGuardClient({ baseUrl: guard.baseUrl })
    const discovery = tamper(await client.discovery())
    const unpaid = await client.unpaidChallenge(benign)
    const result = checkChallenge(discovery, unpaid.status, unpaid.body, unpaid.paymentRequired)
    expect(result.ok).toBe(false)
    expect(result.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(failing)
  })

  it('names what fails for a bad status, body or header', async () => {
    const client = createGuardClient({ baseUrl: guard.baseUrl })
    const discovery = await client.discovery()
    const { body, paymentRequired } = await client.unpaidChallenge(benign)
    const failing = (status: number, b: unknown, header: unknown, maxPayment?: bigint) =>
      checkChallenge(discovery, status, b, header, maxPayment ? { maxPayment } : {})
        .checks.filter((c) => !c.ok)
        .map((c) => c.name)
    const challenge = body as Record<string, unknown>
    expect(failing(200, body, paymentRequired)).toEqual(['status_402'])
    expect(failing(402, { ...challenge, error: 'nope' }, paymentRequired)).toEqual([
      'error_payment_required',
    ])
    const { quickstartUrl: _q, browserDemoUrl: _b, ...withoutUrls } = challenge
    expect(failing(402, withoutUrls, paymentRequired)).toEqual(['onboarding_url'])
    expect(failing(402, { ...challenge, quickstartUrl: undefined }, paymentRequired)).toEqual([])
    expect(failing(402, body, undefined)).toEqual([
      'payment_required_header',
      'route',
      'network',
      'pay_to',
      'asset',
      'amount',
      'scheme',
      'transfer_method',
      'extensions',
      'bazaar',
      'max_timeout',
      'within_spend_cap',
    ])
    expect(failing(402, body, paymentRequired, 9_999n)).toEqual(['within_spend_cap'])
  })
})

describe('paid preflight', () => {
  it('refuses to pay when the challenge does not match discovery: nothing moves', async () => {
    for (const tamper of [
      (d: Discovery) => ({ ...d, price: '$0.001' }),
      (d: Discovery) => ({ ...d, network: 'eip155:84532' }),
      (d: Discovery) => ({ ...d, payTo: DEVNET_ACCOUNTS.usdcMinter.address }),
    ]) {
      const recorder = recordingFetch()
      const client = payingClient({ fetch: recorder.fetch })
      const discovery = tamper(await client.discovery())
      const before = await usdcBalances(guard.rpc, buyer.address, payTo)
      const block = await guard.rpc.getBlockNumber()

      const error = await client.paidPreflight(benign, { discovery }).catch((e: unknown) => e)

      expect(error).toBeInstanceOf(GuardError)
      expect(error).toMatchObject({ code: 'challenge_mismatch', status: 402 })
      expect((error as GuardError).checks?.some((c) => !c.ok)).toBe(true)
      // Nothing signed, nothing sent with a payment, nothing on chain.
      expect(recorder.sent.some((r) => r.headers.has('PAYMENT-SIGNATURE'))).toBe(false)
      expect(await usdcBalances(guard.rpc, buyer.address, payTo)).toEqual(before)
      expect(await transactionsSince(guard.rpc, block)).toBe(0)
    }
  })

  it('refuses to pay above the spending cap', async () => {
    const before = await usdcBalances(guard.rpc, buyer.address)
    const error = await payingClient({ maxPayment: 9_999n })
      .paidPreflight(benign)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'challenge_mismatch' })
    expect((error as GuardError).checks?.filter((c) => !c.ok).map((c) => c.name)).toEqual([
      'within_spend_cap',
    ])
    expect(await usdcBalances(guard.rpc, buyer.address)).toEqual(before)
  })

  it('needs a payer', async () => {
    await expect(
      createGuardClient({ baseUrl: guard.baseUrl }).paidPreflight(benign),
    ).rejects.toMatchObject({ code: 'payer_missing' })
  })

  it('pays once, returns result, receipt and settlement, and the receipt verifies', async () => {
    const client = payingClient()
    const discovery = await client.discovery()
    const [buyerBefore, payToBefore] = await usdcBalances(guard.rpc, buyer.address, payTo)
    const block = await guard.rpc.getBlockNumber()

    const paid = await client.paidPreflight(benign, { discovery })

    expect(paid.challenge?.ok).toBe(true)
    expect(paid.result.verdict).toBe('sign')
    expect(paid.settlement).toMatchObject({ success: true, network: 'eip155:8453' })
    expect(paid.receipt).toMatchObject({
      type: 'PRE_SEND_PROOF_RECEIPT',
      settlementTx: paid.settlement.transaction,
      payer: buyer.address,
      verdict: 'sign',
    })
    expect(await transactionsSince(guard.rpc, block)).toBe(1)
    const [buyerAfter, payToAfter] = await usdcBalances(guard.rpc, buyer.address, payTo)
    expect(buyerBefore! - buyerAfter!).toBe(10_000n)
    expect(payToAfter! - payToBefore!).toBe(10_000n)

    // Our canonical JSON is the service's: anyone can recompute the hashes.
    expect(canonicalJsonHash(paid.request)).toBe(serviceCanonicalJsonHash(paid.request))
    const verification = await client.verifyReceipt(paid.receipt, discovery, {
      request: paid.request,
      result: paid.result,
      settlementTx: paid.settlement.transaction,
    })
    expect(verification.checks.filter((c) => !c.ok)).toEqual([])
    expect(verification).toMatchObject({
      valid: true,
      signer: DEVNET_ACCOUNTS.receiptSigner.address,
    })

    // The stored copy is the same receipt, by its id and by the authorization that paid.
    expect(await client.receipt(paid.receipt.id)).toEqual(paid.receipt)
    const signed = JSON.parse(Buffer.from(paid.paymentSignature, 'base64').toString('utf8'))
    expect(
      await client.receiptByAuthorization(buyer.address, signed.payload.authorization.nonce),
    ).toEqual(paid.receipt)

    // Resuming with the same payment returns the stored answer and never charges again.
    const block2 = await guard.rpc.getBlockNumber()
    const resumed = await client.paidPreflight(benign, {
      discovery,
      paymentSignature: paid.paymentSignature,
    })
    expect(resumed.receipt).toEqual(paid.receipt)
    expect(await transactionsSince(guard.rpc, block2)).toBe(0)
    expect(await usdcBalances(guard.rpc, buyer.address)).toEqual([buyerAfter])

    // Bound to another request or result, the receipt does not verify.
    const mismatched = await verifyReceipt(paid.receipt, discovery, {
      request: { ...paid.request, value: '0x1' },
      result: { ...paid.result, verdict: 'block' },
    })
    expect(mismatched.valid).toBe(false)
    expect(mismatched.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([
      'request_hash',
      'response_hash',
      'verdict',
    ])
  })

  it('never trusts the receipt`s own signer field', async () => {
    const client = payingClient()
    const discovery = await client.discovery()
    const { receipt } = await client.paidPreflight(benign, { discovery })

    // A receipt forged by another key that names itself as signer.
    const forger = privateKeyToAccount(DEVNET_ACCOUNTS.usdcMinter.privateKey)
    const eip712 = discovery.receipts!.eip712
    const fields = Object.fromEntries(
      eip712.types[eip712.primaryType]!.map((f) => [f.name, (receipt as any)[f.name]]),
    )
    const forged = {
      ...receipt,
      verdict: 'sign',
      signer: forger.address,
      signature: await forger.signTypedData({
        domain: eip712.domain as any,
        types: eip712.types as any,
        primaryType: eip712.primaryType,
        message: { ...fields, verdict: 'sign' } as any,
      }),
    }
    const forgedCheck = await verifyReceipt(forged, discovery)
    expect(forgedCheck.valid).toBe(false)
    expect(forgedCheck.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([
      'signer_matches_discovery',
      'signature',
    ])

    // An edited field breaks the signature.
    const edited = await verifyReceipt({ ...receipt, amount: '1' }, discovery)
    expect(edited.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['signature', 'amount'])

    // A discovery that publishes another signer rejects the genuine receipt.
    const otherSigner = await verifyReceipt(receipt, {
      ...discovery,
      receipts: { ...discovery.receipts!, signer: forger.address },
    })
    expect(otherSigner.valid).toBe(false)
    expect(otherSigner.signer).toBe(forger.address)

    // Without a published signer nothing verifies.
    const { receipts: _r, ...unsigned } = discovery
    expect(await verifyReceipt(receipt, unsigned)).toMatchObject({ valid: false })
    // Nor does something that is not a receipt.
    expect(await verifyReceipt({ id: 'x' }, discovery)).toMatchObject({ valid: false })
  })
})
