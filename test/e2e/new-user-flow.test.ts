import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http, verifyTypedData } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Devnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { PAGE_PATHS } from '../../src/routes/pages.js'
import { EXAMPLE_BODY, usdcBalances } from '../payment/paid-stack.js'
import { contractFetch } from '../support/openapi-contract.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * The recommended new-user flow (the one /start-here lists) over real HTTP: discovery -> an unpaid 402 that
 * matches it -> exactly one paid call with a stock x402 buyer -> one settlement, one wallet
 * debit, one PRE_SEND_PROOF_RECEIPT that verifies against the signer discovery publishes.
 */
let guard: ServedGuard
let devnet: Devnet
let baseUrl: string

beforeAll(async () => {
  guard = await startServedGuard()
  devnet = guard.devnet
  baseUrl = guard.baseUrl
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

describe('the recommended new-user flow', () => {
  it('discovery -> matching unpaid 402 -> one paid call -> one settlement, one debit, one receipt', async () => {
    // 1. Discovery.
    const discoveryRes = await contractFetch(`${baseUrl}/.well-known/x402`)
    expect(discoveryRes.status).toBe(200)
    const discovery = (await discoveryRes.json()) as Record<string, any>
    expect(discovery).toMatchObject({
      primaryPersona: 'programmatic EVM agent builders',
      route: '/simulate/transaction-preflight',
      price: '$0.01',
      network: 'eip155:8453',
      payTo: DEVNET_ACCOUNTS.payTo.address,
      quickstartUrl: `${baseUrl}/quickstart`,
      browserDemoUrl: `${baseUrl}/first-unpaid-402#browser-demo`,
      version: 1,
      resources: [`${baseUrl}/simulate/transaction-preflight`],
      environment: 'devnet',
    })
    expect(typeof discovery.title).toBe('string')
    expect(discovery.devnet.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(discovery.receipts.signer).toBe(DEVNET_ACCOUNTS.receiptSigner.address)
    expect(discovery.freeRoutes.map((r: { path: string }) => r.path)).toContain(
      '/payanagent/v1/base-bundle-preflight',
    )

    // 2. The unpaid challenge, no wallet; it must match discovery before any money moves.
    const unpaid = await contractFetch(`${baseUrl}${discovery.route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(EXAMPLE_BODY),
    })
    expect(unpaid.status).toBe(402)
    const challenge = (await unpaid.json()) as Record<string, any>
    expect(challenge).toMatchObject({
      error: 'payment_required',
      product: 'evm-transaction-preflight',
      price: discovery.price,
      network: discovery.network,
      quickstartUrl: discovery.quickstartUrl,
      browserDemoUrl: discovery.browserDemoUrl,
    })
    expect(challenge.settlement.railReadiness.ready).toBe(true)
    const offer = decodePaymentRequiredHeader(unpaid.headers.get('PAYMENT-REQUIRED') ?? '')
    expect(offer.x402Version).toBe(2)
    expect(offer.accepts).toEqual(discovery.accepts)
    expect(new URL(offer.resource.url).pathname).toBe(discovery.route)

    // 3. Exactly one paid call with a stock x402 buyer over real HTTP.
    const rpc = createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 })
    const buyerAccount = privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey)
    const client = new x402Client().register(
      'eip155:8453',
      new ExactEvmScheme(toClientEvmSigner(buyerAccount, rpc)),
    )
    const [buyerBefore, payToBefore] = await usdcBalances(
      rpc,
      buyerAccount.address,
      discovery.payTo,
    )
    const blockBefore = await rpc.getBlockNumber()

    const paid = await wrapFetchWithPayment(contractFetch, client)(`${baseUrl}${discovery.route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(EXAMPLE_BODY),
    })
    expect(paid.status).toBe(200)
    const settlement = decodePaymentResponseHeader(paid.headers.get('PAYMENT-RESPONSE') ?? '')
    expect(settlement).toMatchObject({ success: true, network: 'eip155:8453' })
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    const { result, receipt } = (await paid.json()) as Record<string, any>
    expect(result.verdict).toBe('sign')

    // One settlement transaction on chain, one matching debit and credit.
    const txReceipt = await rpc.getTransactionReceipt({
      hash: settlement.transaction as `0x${string}`,
    })
    expect(txReceipt.status).toBe('success')
    let transactions = 0
    for (let n = blockBefore + 1n; n <= (await rpc.getBlockNumber()); n++) {
      transactions += (await rpc.getBlock({ blockNumber: n })).transactions.length
    }
    expect(transactions, `blocks ${blockBefore}..${txReceipt.blockNumber}`).toBe(1)
    const [buyerAfter, payToAfter] = await usdcBalances(rpc, buyerAccount.address, discovery.payTo)
    expect(buyerBefore! - buyerAfter!).toBe(10_000n)
    expect(payToAfter! - payToBefore!).toBe(10_000n)

    // One PRE_SEND_PROOF_RECEIPT, verifiable by anyone from discovery alone.
    expect(receipt.type).toBe('PRE_SEND_PROOF_RECEIPT')
    expect(receipt.settlementTx).toBe(settlement.transaction)
    expect(receipt.verdict).toBe('sign')
    const { types, domain, primaryType } = discovery.receipts.eip712
    const valid = await verifyTypedData({
      address: discovery.receipts.signer,
      domain,
      types,
      primaryType,
      message: receipt,
      signature: receipt.signature,
    })
    expect(valid).toBe(true)
    const stored = await contractFetch(discovery.receipts.url.replace('{id}', receipt.id))
    expect(stored.status).toBe(200)
    expect(await stored.json()).toEqual(receipt)
  })

  it('serves every informational page, marked as devnet', async () => {
    for (const path of PAGE_PATHS) {
      const res = await contractFetch(`${baseUrl}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/text\/html/)
      const page = await res.text()
      expect(page, path).toContain('DEVNET')
    }
    const demo = await (await contractFetch(`${baseUrl}/first-unpaid-402?autorun=1`)).text()
    expect(demo).toContain('id="browser-demo"')
    expect(demo).toContain('/simulate/transaction-preflight')
  })

  it('lets a browser read the challenge (CORS)', async () => {
    const preflight = await contractFetch(`${baseUrl}/simulate/transaction-preflight`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,payment-signature',
      },
    })
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'payment-signature',
    )
    const unpaid = await contractFetch(`${baseUrl}/simulate/transaction-preflight`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://agent.example' },
      body: JSON.stringify(EXAMPLE_BODY),
    })
    expect(unpaid.status).toBe(402)
    const exposed = unpaid.headers.get('access-control-expose-headers')?.toUpperCase() ?? ''
    expect(exposed).toContain('PAYMENT-REQUIRED')
    expect(exposed).toContain('PAYMENT-RESPONSE')
  })
})
