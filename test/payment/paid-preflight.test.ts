import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { FacilitatorTimeoutError } from '@x402/core/server'
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server'
import {
  createTestClient,
  createWalletClient,
  erc20Abi,
  http,
  type PublicClient,
  parseAbi,
  verifyTypedData,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Devnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import {
  createFacilitator,
  type Facilitator,
} from '../../src/adapters/facilitator/facilitator-client.js'
import { createViemSettlementChain } from '../../src/adapters/facilitator/settlement-chain.js'
import type { Storage } from '../../src/adapters/storage/open-storage.js'
import type { PaymentRail } from '../../src/domain/payment/payment-rail.js'
import { reconcileSettlements } from '../../src/domain/payment/reconcile-settlements.js'
import { canonicalJsonHash } from '../../src/domain/receipt/canonical-json.js'
import { freePort } from '../support/net.js'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js'
import {
  BUYER,
  beforeSettle,
  builtinFacilitator,
  buyer,
  EXAMPLE_BODY,
  fundedPayer,
  nonceOf,
  PAY_TO,
  type PaidApp,
  paidApp,
  payerOf,
  postPaid,
  RECEIPT_SIGNER,
  sendPayment,
  settlementsOf,
  unpaidOffer,
  usdcBalances,
  withRequirements,
} from './paid-stack.js'
import { type PaidSuite, startPaidSuite } from './paid-suite.js'

let suite: PaidSuite
let devnet: Devnet
let proxy: TcpProxy
let storage: Storage
let chain: PublicClient
let stack: PaidApp
let payToAtStart: bigint

beforeAll(async () => {
  suite = await startPaidSuite({
    // The preflight reads the chain through a proxy the suite can take down; the facilitator
    // talks to anvil directly, so "RPC down after verify" is exactly that.
    preflightRpcUrl: async (rpcUrl) => {
      proxy = await startTcpProxy(Number(new URL(rpcUrl).port))
      return proxy.url
    },
  })
  ;({ devnet, storage, chain, stack, payToAtStart } = suite)
}, 60_000)

afterAll(async () => {
  await proxy?.close()
  await suite?.close()
})

describe('the unpaid challenge', () => {
  it('answers 402 with the x402 v2 offer in PAYMENT-REQUIRED and the spec body', async () => {
    const res = await postPaid(stack.app, EXAMPLE_BODY, { origin: 'https://agent.example' })
    expect(res.status).toBe(402)
    expect(res.headers.get('access-control-expose-headers')).toMatch(/PAYMENT-REQUIRED/)
    const offer = await unpaidOffer(stack.app)
    expect(offer).toEqual({
      x402Version: 2,
      error: 'payment_missing',
      resource: {
        url: 'http://localhost/simulate/transaction-preflight',
        description: expect.stringMatching(/preflight/i),
        mimeType: 'application/json',
      },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          asset: USDC_ADDRESS,
          amount: '10000',
          payTo: PAY_TO,
          maxTimeoutSeconds: 300,
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
      // Informational only (test/agents/bazaar.test.ts checks it): nothing in it is signed.
      extensions: {
        bazaar: expect.objectContaining({ info: expect.any(Object) }),
        'payment-identifier': expect.objectContaining({ info: { required: false } }),
      },
    })
    // Our offer is exactly what @x402/evm derives from "$0.01" on Base.
    const derived = await new ExactEvmServerScheme().parsePrice('$0.01', 'eip155:8453')
    expect(derived).toEqual({
      amount: offer.accepts[0]?.amount,
      asset: offer.accepts[0]?.asset,
      extra: offer.accepts[0]?.extra,
    })
    expect(await res.json()).toEqual({
      error: 'payment_required',
      product: 'evm-transaction-preflight',
      price: '$0.01',
      network: 'eip155:8453',
      firstCheckUrl: 'http://localhost/first-unpaid-402',
      quickstartUrl: 'http://localhost/quickstart',
      browserDemoUrl: 'http://localhost/first-unpaid-402#browser-demo',
      settlement: {
        railReadiness: {
          ready: true,
          network: 'eip155:8453',
          asset: USDC_ADDRESS,
          payTo: PAY_TO,
          facilitator: {
            kind: 'builtin',
            supportsExactBase: true,
            checkedAt: expect.any(String),
          },
          receiptSigner: { configured: true, address: RECEIPT_SIGNER.address },
        },
      },
      reason: 'payment_missing',
      message: expect.any(String),
      issues: [],
      requestId: expect.any(String),
    })
  })

  it('uses PUBLIC_BASE_URL for every absolute URL when configured', async () => {
    const behindProxy = await paidApp({
      preflightRpcUrl: proxy.url,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
      publicBaseUrl: 'https://guard.example.com/',
    })
    const res = await postPaid(behindProxy.app, EXAMPLE_BODY)
    const body = (await res.json()) as Record<string, string>
    expect(body.quickstartUrl).toBe('https://guard.example.com/quickstart')
    expect(body.browserDemoUrl).toBe('https://guard.example.com/first-unpaid-402#browser-demo')
    const offer = await unpaidOffer(behindProxy.app)
    expect(offer.resource.url).toBe('https://guard.example.com/simulate/transaction-preflight')
  })

  it('checks the body before looking at payment: a bad body is 422 even without payment', async () => {
    const res = await postPaid(stack.app, { ...EXAMPLE_BODY, value: 'ten' })
    expect(res.status).toBe(422)
    expect(res.headers.get('PAYMENT-REQUIRED')).toBeNull()
  })
})

describe('the OpenAPI document', () => {
  it('describes the paid route with its 402 challenge and the receipt route', async () => {
    const doc = (await (await stack.app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    const paid = doc.paths['/simulate/transaction-preflight']?.post
    expect(Object.keys(paid?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '402', '422', '502', '503']),
    )
    expect(doc.paths['/receipts/{id}']?.get?.responses).toHaveProperty('404')
  })
})

describe('a paid call with @x402/fetch and the demo buyer', () => {
  it('answers 200 once, settles once on chain, moves exactly 10000 and signs a receipt', async () => {
    const [buyerBefore, payToBefore] = await usdcBalances(chain, BUYER.address, PAY_TO)
    const client = buyer(stack.app, devnet.rpcUrl, BUYER)
    const res = await client.fetch('http://localhost/simulate/transaction-preflight', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(EXAMPLE_BODY),
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { result: Record<string, any>; receipt: Record<string, any> }
    expect(body.result.verdict).toBe('sign')
    // The paid answer carries the same execution effects as the read-only one.
    expect(body.result.effects).toMatchObject({ available: true, source: 'eth_simulateV1' })
    expect(body.result.effects.senderNet).toEqual({ changes: [], summary: 'no change' })

    const settlement = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE') ?? '')
    expect(settlement).toMatchObject({
      success: true,
      network: 'eip155:8453',
      payer: BUYER.address,
    })
    const header = client.sent.at(-1)?.headers.get('PAYMENT-SIGNATURE') ?? ''
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([
      settlement.transaction,
    ])
    const mined = await chain.getTransactionReceipt({
      hash: settlement.transaction as `0x${string}`,
    })
    expect(mined.status).toBe('success')

    const [buyerAfter, payToAfter] = await usdcBalances(chain, BUYER.address, PAY_TO)
    expect(buyerBefore! - buyerAfter!).toBe(10_000n)
    expect(payToAfter! - payToBefore!).toBe(10_000n)

    const { receipt, result } = body
    expect(receipt).toMatchObject({
      type: 'PRE_SEND_PROOF_RECEIPT',
      id: expect.stringMatching(/^rcpt_[0-9a-f]{32}$/),
      requestHash: canonicalJsonHash(EXAMPLE_BODY),
      responseHash: canonicalJsonHash(result),
      verdict: 'sign',
      chainId: '8453',
      blockNumber: result.block.number,
      blockHash: result.block.hash,
      settlementTx: settlement.transaction,
      payer: BUYER.address,
      payTo: PAY_TO,
      asset: USDC_ADDRESS,
      amount: '10000',
      network: 'eip155:8453',
      signer: RECEIPT_SIGNER.address,
    })
    const valid = await verifyTypedData({
      address: RECEIPT_SIGNER.address,
      domain: receipt.eip712.domain,
      types: receipt.eip712.types,
      primaryType: receipt.eip712.primaryType,
      message: receipt,
      signature: receipt.signature,
    })
    expect(valid).toBe(true)
    // A tampered verdict no longer verifies.
    expect(
      await verifyTypedData({
        address: RECEIPT_SIGNER.address,
        domain: receipt.eip712.domain,
        types: receipt.eip712.types,
        primaryType: receipt.eip712.primaryType,
        message: { ...receipt, verdict: 'block' },
        signature: receipt.signature,
      }),
    ).toBe(false)

    const stored = await stack.app.request(`/receipts/${receipt.id}`)
    expect(stored.status).toBe(200)
    expect(await stored.json()).toEqual(receipt)
  })

  it('answers 404 in the error shape for an unknown receipt', async () => {
    const res = await stack.app.request('/receipts/rcpt_00000000000000000000000000000000')
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: 'not_found', issues: [] })
  })
})

/** Sends one payment header and returns status, body and headers. */
const pay = (header: string, body: unknown = EXAMPLE_BODY, app = stack.app) =>
  sendPayment(app, header, body)

describe('replays and concurrent copies', () => {
  it('replays the same PAYMENT-SIGNATURE: same receipt, same result, nothing charged again', async () => {
    const client = buyer(stack.app, devnet.rpcUrl, BUYER)
    const header = await client.paymentHeader(await unpaidOffer(stack.app))
    const first = await pay(header)
    expect(first.status).toBe(200)
    const balances = await usdcBalances(chain, BUYER.address, PAY_TO)

    const again = await pay(header)
    expect(again.status).toBe(200)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('PAYMENT-RESPONSE')).toBe(first.headers.get('PAYMENT-RESPONSE'))
    expect(await usdcBalances(chain, BUYER.address, PAY_TO)).toEqual(balances)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toHaveLength(1)

    // Another payload under the same authorization nonce (a re-signed copy) gets nothing.
    const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8'))
    const v = payload.payload.signature.slice(-2) === '1b' ? '1c' : '1b'
    payload.payload.signature = `${payload.payload.signature.slice(0, -2)}${v}`
    const copy = await pay(Buffer.from(JSON.stringify(payload)).toString('base64'))
    expect(copy.status).toBe(402)
    expect(copy.body).toMatchObject({ reason: 'authorization_used' })

    // The same payment cannot buy a different request.
    const other = await pay(header, { ...EXAMPLE_BODY, value: '0x1' })
    expect(other.status).toBe(402)
    expect(other.body).toMatchObject({ error: 'payment_required', reason: 'payment_reused' })
    expect(await usdcBalances(chain, BUYER.address, PAY_TO)).toEqual(balances)
  })

  it('runs ten concurrent copies of one payment once: one settlement, ten identical answers', async () => {
    const client = buyer(stack.app, devnet.rpcUrl, BUYER)
    const header = await client.paymentHeader(await unpaidOffer(stack.app))
    const [buyerBefore, payToBefore] = await usdcBalances(chain, BUYER.address, PAY_TO)
    const answers = await Promise.all(Array.from({ length: 10 }, () => pay(header)))
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    const receiptIds = new Set(answers.map((a) => a.body.receipt.id))
    expect(receiptIds.size).toBe(1)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toHaveLength(1)
    const [buyerAfter, payToAfter] = await usdcBalances(chain, BUYER.address, PAY_TO)
    expect(buyerBefore! - buyerAfter!).toBe(10_000n)
    expect(payToAfter! - payToBefore!).toBe(10_000n)
  })

  it('settles distinct concurrent payments each once (the settlement key never reuses a nonce)', async () => {
    const client = buyer(stack.app, devnet.rpcUrl, BUYER)
    const offer = await unpaidOffer(stack.app)
    const headers = await Promise.all(Array.from({ length: 5 }, () => client.paymentHeader(offer)))
    const [payToBefore] = await usdcBalances(chain, PAY_TO)
    const answers = await Promise.all(headers.map((header) => pay(header)))
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200))
    expect(new Set(answers.map((a) => a.body.receipt.settlementTx)).size).toBe(5)
    const [payToAfter] = await usdcBalances(chain, PAY_TO)
    expect(payToAfter! - payToBefore!).toBe(50_000n)
  })
})

describe('payments that are not taken', () => {
  const cases: [string, () => Promise<string>, string][] = [
    [
      'a forged signature',
      async () => {
        // Signed by another key, claiming to come from the buyer.
        const forger = buyer(
          stack.app,
          devnet.rpcUrl,
          privateKeyToAccount(DEVNET_ACCOUNTS.usdcMinter.privateKey),
        )
        return forger.paymentHeader(await unpaidOffer(stack.app), (p) => ({
          ...p,
          payload: {
            ...p.payload,
            authorization: { ...(p.payload.authorization as object), from: BUYER.address },
          },
        }))
      },
      'invalid_signature',
    ],
    [
      'a wrong amount in the offer it accepted',
      async () =>
        buyer(stack.app, devnet.rpcUrl, BUYER).paymentHeader(
          withRequirements(await unpaidOffer(stack.app), { amount: '5000' }),
        ),
      'amount_mismatch',
    ],
    [
      'a signed amount below the price behind our offer',
      async () => {
        const offer = await unpaidOffer(stack.app)
        return buyer(stack.app, devnet.rpcUrl, BUYER).paymentHeader(
          withRequirements(offer, { amount: '5000' }),
          (p) => ({ ...p, accepted: offer.accepts[0]! }),
        )
      },
      'amount_mismatch',
    ],
    [
      'a wrong payTo',
      async () =>
        buyer(stack.app, devnet.rpcUrl, BUYER).paymentHeader(
          withRequirements(await unpaidOffer(stack.app), {
            payTo: DEVNET_ACCOUNTS.usdcMinter.address,
          }),
        ),
      'pay_to_mismatch',
    ],
    [
      'a signed payTo other than ours behind our offer',
      async () => {
        const offer = await unpaidOffer(stack.app)
        return buyer(stack.app, devnet.rpcUrl, BUYER).paymentHeader(
          withRequirements(offer, { payTo: DEVNET_ACCOUNTS.usdcMinter.address }),
          (p) => ({ ...p, accepted: offer.accepts[0]! }),
        )
      },
      'pay_to_mismatch',
    ],
    [
      'a wrong network',
      async () =>
        buyer(stack.app, devnet.rpcUrl, BUYER).paymentHeader(await unpaidOffer(stack.app), (p) => ({
          ...p,
          accepted: { ...p.accepted, network: 'eip155:84532' },
        })),
      'network_mismatch',
    ],
    [
      'an expired authorization',
      async () => {
        const offer = await unpaidOffer(stack.app)
        // A 1-second validity window: already too short for the facilitator to accept.
        return buyer(stack.app, devnet.rpcUrl, BUYER).paymentHeader(
          withRequirements(offer, { maxTimeoutSeconds: 1 }),
          (p) => ({ ...p, accepted: offer.accepts[0]! }),
        )
      },
      'authorization_expired',
    ],
    [
      'a buyer without USDC',
      async () =>
        buyer(
          stack.app,
          devnet.rpcUrl,
          privateKeyToAccount(DEVNET_ACCOUNTS.usdcMinter.privateKey),
        ).paymentHeader(await unpaidOffer(stack.app)),
      'insufficient_funds',
    ],
    ['a garbage header', async () => 'not base64 at all!', 'payment_undecodable'],
    [
      'base64 JSON that is not a payment',
      async () =>
        Buffer.from(JSON.stringify({ x402Version: 2, hello: 'world' })).toString('base64'),
      'payment_malformed',
    ],
    [
      'an x402 v1 payment',
      async () =>
        Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact' })).toString('base64'),
      'unsupported_x402_version',
    ],
  ]

  it.each(cases)(
    'refuses %s with 402, the spec body and a reason, and settles nothing',
    async (_, make, reason) => {
      const header = await make()
      const balances = await usdcBalances(chain, BUYER.address, PAY_TO)
      const { status, headers, body } = await pay(header)
      expect(status).toBe(402)
      expect(body).toMatchObject({
        error: 'payment_required',
        product: 'evm-transaction-preflight',
        price: '$0.01',
        network: 'eip155:8453',
        quickstartUrl: 'http://localhost/quickstart',
        settlement: { railReadiness: { ready: true } },
        reason,
      })
      expect(body.result).toBeUndefined()
      const offer = decodePaymentRequiredHeader(headers.get('PAYMENT-REQUIRED') ?? '')
      expect(offer.error).toBe(reason)
      expect(offer.accepts[0]?.amount).toBe('10000')
      expect(await usdcBalances(chain, BUYER.address, PAY_TO)).toEqual(balances)
      const authorization = (() => {
        try {
          return { payer: payerOf(header), nonce: nonceOf(header) }
        } catch {
          return undefined // not a payment at all: nothing to look for on chain
        }
      })()
      // Looked up under the payer that signed it (the minter for "a buyer without USDC").
      if (authorization) {
        expect(await settlementsOf(chain, authorization.payer, authorization.nonce)).toEqual([])
      }
    },
  )

  it('refuses an X-PAYMENT (x402 v1) header with the v2 challenge', async () => {
    const res = await postPaid(stack.app, EXAMPLE_BODY, { 'X-PAYMENT': 'e30=' })
    expect(res.status).toBe(402)
    expect(await res.json()).toMatchObject({ reason: 'unsupported_x402_version' })
  })

  it('rejects an invalid body with a valid payment as 422 and takes nothing', async () => {
    const header = await suite.paymentHeader(stack)
    const balances = await usdcBalances(chain, BUYER.address, PAY_TO)
    const res = await postPaid(
      stack.app,
      { ...EXAMPLE_BODY, extra: 1 },
      { 'PAYMENT-SIGNATURE': header },
    )
    expect(res.status).toBe(422)
    expect(await usdcBalances(chain, BUYER.address, PAY_TO)).toEqual(balances)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
    // The payment is still good for a valid request.
    expect((await pay(header)).status).toBe(200)
  })
})

describe('when a dependency is down', () => {
  it('answers 503 when the RPC goes down after verify, settles nothing, and takes the retry later', async () => {
    const header = await suite.paymentHeader(stack)
    const balances = await usdcBalances(chain, BUYER.address, PAY_TO)
    await proxy.down()
    try {
      const down = await pay(header)
      expect(down.status).toBe(503)
      expect(down.body).toMatchObject({ error: 'rpc_unavailable' })
      expect(down.headers.get('retry-after')).toBeTruthy()
    } finally {
      await proxy.up()
    }
    expect(await usdcBalances(chain, BUYER.address, PAY_TO)).toEqual(balances)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
    // Nothing was charged, so the same payment buys the answer once the RPC is back.
    const back = await pay(header)
    expect(back.status).toBe(200)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toHaveLength(1)
  })

  it('answers 502 when the facilitator is unreachable, reports the rail not ready, settles nothing', async () => {
    const dead = await suite.appWith({
      facilitator: createFacilitator({
        kind: 'url',
        // A loopback port nothing listens on (bound, then released).
        url: `http://127.0.0.1:${await freePort()}`,
        timeoutMs: 2_000,
      }),
    })
    const unpaid = await postPaid(dead.app, EXAMPLE_BODY)
    expect(unpaid.status).toBe(402)
    expect(await unpaid.json()).toMatchObject({
      settlement: {
        railReadiness: {
          ready: false,
          facilitator: { kind: 'url', supportsExactBase: false, error: expect.any(String) },
        },
      },
    })
    const header = await buyer(dead.app, devnet.rpcUrl, BUYER).paymentHeader(
      await unpaidOffer(stack.app),
    )
    const balances = await usdcBalances(chain, BUYER.address, PAY_TO)
    const res = await pay(header, EXAMPLE_BODY, dead.app)
    expect(res.status).toBe(502)
    expect(res.body).toMatchObject({ error: 'facilitator_unavailable' })
    expect(await usdcBalances(chain, BUYER.address, PAY_TO)).toEqual(balances)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
  })
})

describe('settlements that fail', () => {
  /** A facilitator that runs `before` on chain just before each settle. */
  const interfering = (before: () => Promise<void>): Facilitator =>
    beforeSettle(builtinFacilitator(devnet.rpcUrl), before)

  it('answers 402 with the reason and no result when settlement fails, and charges nothing', async () => {
    const poorer = await fundedPayer(devnet.rpcUrl)
    // Between verify and settle the buyer moves its USDC away: the transfer must then fail.
    const app = await suite.appWith({
      facilitator: interfering(async () => {
        const wallet = createWalletClient({ account: poorer, transport: http(devnet.rpcUrl) })
        const hash = await wallet.writeContract({
          chain: null,
          address: USDC_ADDRESS,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [DEVNET_ACCOUNTS.usdcMinter.address, 10_000n],
        })
        await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 })
      }),
    })
    const header = await suite.paymentHeader(app, poorer)
    const [payToBefore] = await usdcBalances(chain, PAY_TO)
    const { status, headers, body } = await pay(header, EXAMPLE_BODY, app.app)
    expect(status).toBe(402)
    expect(body).toMatchObject({
      error: 'payment_required',
      reason: 'insufficient_funds',
      facilitatorReason: 'invalid_exact_evm_insufficient_balance',
      settlement: { railReadiness: { ready: true } },
    })
    expect(body.result).toBeUndefined()
    expect(body.receipt).toBeUndefined()
    expect(headers.get('PAYMENT-REQUIRED')).toBeTruthy()
    expect(decodePaymentResponseHeader(headers.get('PAYMENT-RESPONSE') ?? '')).toMatchObject({
      success: false,
    })
    // The phases that ran, timed, on the 402 as on a 200.
    expect(headers.get('Server-Timing')).toMatch(
      /^verify;dur=\d+\.\d, preflight;dur=\d+\.\d, settle;dur=\d+\.\d$/,
    )
    expect(await settlementsOf(chain, poorer.address, nonceOf(header))).toEqual([])
    expect(await usdcBalances(chain, PAY_TO)).toEqual([payToBefore])
  })

  it('treats an authorization someone else submitted first (to our payTo) as this call paid', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    let header = ''
    // A third party front-runs the settlement with the buyer's own authorization.
    const app = await suite.appWith({
      facilitator: interfering(async () => {
        const { payload } = JSON.parse(Buffer.from(header, 'base64').toString('utf8'))
        const { from, to, value, validAfter, validBefore, nonce } = payload.authorization
        const wallet = createWalletClient({
          account: privateKeyToAccount(DEVNET_ACCOUNTS.usdcMinter.privateKey),
          transport: http(devnet.rpcUrl),
        })
        const hash = await wallet.writeContract({
          chain: null,
          address: USDC_ADDRESS,
          abi: parseAbi([
            'function transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)',
          ]),
          functionName: 'transferWithAuthorization',
          args: [
            from,
            to,
            BigInt(value),
            BigInt(validAfter),
            BigInt(validBefore),
            nonce,
            payload.signature,
          ],
        })
        await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 })
      }),
    })
    header = await suite.paymentHeader(app, payer)
    // The settle attempt finds the nonce used; the chain shows the transaction that used it
    // paying our payTo with this very authorization: that is this call's payment.
    const paid = await pay(header, EXAMPLE_BODY, app.app)
    const [frontRun] = await settlementsOf(chain, payer.address, nonceOf(header))
    expect(frontRun).toBeDefined()
    expect(paid.status).toBe(200)
    expect(paid.body.result).toBeDefined()
    expect((await suite.reconcile(app.rail)).settled).toHaveLength(0)
    expect(paid.body.receipt.settlementTx).toBe(frontRun)
  })
})

describe('settlements whose outcome is unknown', () => {
  const reconcile = (rail: PaymentRail) => suite.reconcile(rail)
  const testClient = () => createTestClient({ mode: 'anvil', transport: http(devnet.rpcUrl) })

  it('records a settle that times out as pending, and resolves it from the chain once mined', async () => {
    const slow = await suite.appWith({ facilitator: builtinFacilitator(devnet.rpcUrl, 1_000) })
    const header = await suite.paymentHeader(slow)
    const [buyerBefore, payToBefore] = await usdcBalances(chain, BUYER.address, PAY_TO)
    // The settlement transaction is broadcast but not mined: the confirmation wait times out.
    await testClient().setAutomine(false)
    let pending: Awaited<ReturnType<typeof pay>>
    try {
      pending = await pay(header, EXAMPLE_BODY, slow.app)
      expect(pending.status).toBe(503)
      expect(pending.body).toMatchObject({ error: 'settlement_pending' })
      expect(pending.body.result).toBeUndefined()
      // A retry while pending is told the same, and nothing is sent twice.
      expect((await pay(header, EXAMPLE_BODY, slow.app)).body).toMatchObject({
        error: 'settlement_pending',
      })
      // Still in the mempool: waited for, and looked at once per pass.
      expect(await reconcile(slow.rail)).toEqual({
        settled: [],
        failed: [],
        stillPending: [expect.any(String)],
      })
    } finally {
      await testClient().setAutomine(true)
    }
    await testClient().mine({ blocks: 1 })
    const report = await reconcile(slow.rail)
    expect(report.settled).toHaveLength(1)

    const settled = await pay(header, EXAMPLE_BODY, slow.app)
    expect(settled.status).toBe(200)
    const txs = await settlementsOf(chain, BUYER.address, nonceOf(header))
    expect(txs).toEqual([settled.body.receipt.settlementTx])
    const [buyerAfter, payToAfter] = await usdcBalances(chain, BUYER.address, PAY_TO)
    expect(buyerBefore! - buyerAfter!).toBe(10_000n)
    expect(payToAfter! - payToBefore!).toBe(10_000n)
    const { receipt } = settled.body
    expect(
      await verifyTypedData({
        address: RECEIPT_SIGNER.address,
        ...receipt.eip712,
        message: receipt,
        signature: receipt.signature,
      }),
    ).toBe(true)
  }, 30_000)

  it('settles later when the facilitator timed out before sending anything', async () => {
    const flaky = flakyFacilitator(builtinFacilitator(devnet.rpcUrl))
    const app = await suite.appWith({ facilitator: flaky })
    const header = await suite.paymentHeader(app)
    flaky.timeouts = 1
    const pending = await pay(header, EXAMPLE_BODY, app.app)
    expect(pending.status).toBe(503)
    expect(pending.body).toMatchObject({ error: 'settlement_pending' })
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])

    // Still spendable and nothing on chain: the reconciler settles it through the facilitator.
    expect((await reconcile(app.rail)).settled).toHaveLength(1)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toHaveLength(1)
    expect((await pay(header, EXAMPLE_BODY, app.app)).status).toBe(200)
  })

  it('fails a pending payment whose authorization expired unused, and never charges it', async () => {
    const flaky = flakyFacilitator(builtinFacilitator(devnet.rpcUrl))
    const app = await suite.appWith({ facilitator: flaky })
    const header = await suite.paymentHeader(app)
    const balances = await usdcBalances(chain, BUYER.address, PAY_TO)
    flaky.timeouts = 100
    expect((await pay(header, EXAMPLE_BODY, app.app)).status).toBe(503)
    // Chain time passes the authorization's validBefore (300 s window).
    await testClient().increaseTime({ seconds: 400 })
    await testClient().mine({ blocks: 1 })
    expect((await reconcile(app.rail)).failed).toHaveLength(1)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
    expect(await usdcBalances(chain, BUYER.address, PAY_TO)).toEqual(balances)
  })

  it('takes over an in-flight payment whose request died before settling', async () => {
    const id = `0x${'ab'.repeat(32)}` as const
    await storage.ledger.claim(
      {
        id,
        network: 'eip155:8453',
        asset: USDC_ADDRESS,
        payer: BUYER.address,
        nonce: `0x${'cd'.repeat(32)}`,
        payTo: PAY_TO,
        amount: 10_000n,
        validBefore: 0n,
        payloadHash: `0x${'00'.repeat(32)}`,
        payload: { x402Version: 2, accepted: stack.rail.requirements, payload: {} },
        requestHash: `0x${'00'.repeat(32)}`,
      },
      0,
    ) // its owner died: the lease is never renewed
    const report = await reconcileSettlements({
      ledger: storage.ledger,
      rail: stack.rail,
      chain: createViemSettlementChain({ rpcUrl: devnet.rpcUrl, timeoutMs: 2_000 }),
      receiptSigner: RECEIPT_SIGNER,
      staleAfterMs: 0,
      now: () => new Date(Date.now() + 1_000),
    })
    expect(report.failed).toContain(id)
    expect((await storage.ledger.get(id))?.status).toBe('failed')
  })
})

describe('the ledger', () => {
  it('holds exactly what payTo received on chain during the suite', async () => {
    const [payToNow] = await usdcBalances(chain, PAY_TO)
    expect(await storage.ledger.settledTotal(PAY_TO)).toBe(payToNow! - payToAtStart)
    expect(payToNow! - payToAtStart).toBeGreaterThan(0n)
  })
})

/** A facilitator whose next `timeouts` settles time out before reaching it. */
function flakyFacilitator(inner: Facilitator): Facilitator & { timeouts: number } {
  const flaky = {
    ...beforeSettle(inner, async () => {
      if (flaky.timeouts > 0) {
        flaky.timeouts--
        throw new FacilitatorTimeoutError('settle', 1)
      }
    }),
    timeouts: 0,
  }
  return flaky
}
