import type { PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Devnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { createFacilitator } from '../../src/adapters/facilitator/facilitator-client.js'
import type { Storage } from '../../src/adapters/storage/open-storage.js'
import { authorizationId } from '../../src/domain/payment/authorization-id.js'
import type { PaymentRail } from '../../src/domain/payment/payment-rail.js'
import { startHttpFacilitator } from './http-facilitator.js'
import {
  BUYER,
  builtinFacilitator,
  EXAMPLE_BODY,
  nonceOf,
  PAY_TO,
  type PaidApp,
  postPaid,
  sendPayment,
  settlementsOf,
  usdcBalances,
} from './paid-stack.js'
import { type PaidSuite, startPaidSuite } from './paid-suite.js'

// Any x402 facilitator URL: @x402/core's HTTPFacilitatorClient against a real facilitator
// HTTP API on loopback (our built-in facilitator behind it), including its failure modes.

let suite: PaidSuite
let devnet: Devnet
let storage: Storage
let chain: PublicClient
let remote: Awaited<ReturnType<typeof startHttpFacilitator>>
let stack: PaidApp

beforeAll(async () => {
  suite = await startPaidSuite({
    facilitator: async (rpcUrl) => {
      remote = await startHttpFacilitator(builtinFacilitator(rpcUrl).client)
      return createFacilitator({ kind: 'url', url: `${remote.url}/`, timeoutMs: 1_000 })
    },
    // Each failure of the facilitator alone, asked again at once; the quiet the service keeps
    // before asking a facilitator at a URL again has its own test ("a settle whose answer
    // never came").
    remoteSettleQuietMs: 0,
  })
  ;({ devnet, storage, chain, stack } = suite)
}, 60_000)

afterAll(async () => {
  await remote?.close()
  await suite?.close()
})

const pay = (header: string) => sendPayment(stack.app, header)

const reconcile = (rail: PaymentRail) => suite.reconcile(rail, { staleAfterMs: 60_000 })

describe('a facilitator at a URL', () => {
  it('reports its /supported answer in railReadiness', async () => {
    const res = await postPaid(stack.app, EXAMPLE_BODY)
    expect(await res.json()).toMatchObject({
      settlement: {
        railReadiness: {
          ready: true,
          facilitator: { kind: 'url', url: remote.url, supportsExactBase: true },
        },
      },
    })
  })

  it('verifies and settles a paid call over HTTP', async () => {
    const header = await suite.paymentHeader(stack)
    const [before] = await usdcBalances(chain, PAY_TO)
    const { status, body } = await pay(header)
    expect(status).toBe(200)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([
      body.receipt.settlementTx,
    ])
    const [after] = await usdcBalances(chain, PAY_TO)
    expect(after! - before!).toBe(10_000n)
  })

  it("passes the facilitator's rejection through as a 402 reason", async () => {
    const poor = privateKeyToAccount(DEVNET_ACCOUNTS.usdcMinter.privateKey)
    const header = await suite.paymentHeader(stack, poor)
    const { status, body } = await pay(header)
    expect(status).toBe(402)
    expect(body).toMatchObject({
      reason: 'insufficient_funds',
      facilitatorReason: 'invalid_exact_evm_insufficient_balance',
    })
  })

  it('answers 502 when the facilitator answers garbage, and settles nothing', async () => {
    const header = await suite.paymentHeader(stack)
    remote.faults.verifyBody = '<html>oops</html>'
    try {
      const { status, body } = await pay(header)
      expect(status).toBe(502)
      expect(body).toMatchObject({ error: 'facilitator_unavailable' })
    } finally {
      delete remote.faults.verifyBody
    }
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
  })

  it('answers a retryable 502 when /verify hangs past the timeout: never a 402, nothing charged, the retry is paid', async () => {
    const header = await suite.paymentHeader(stack)
    remote.faults.verifyStallMs = 2_500
    let first: Awaited<ReturnType<typeof pay>>
    const started = Date.now()
    try {
      first = await pay(header)
    } finally {
      delete remote.faults.verifyStallMs
    }
    // The 1 s facilitator timeout, not the stall, decides when the buyer hears back.
    expect(Date.now() - started).toBeLessThan(2_500)
    expect(first.status).toBe(502)
    expect(first.body).toMatchObject({ error: 'facilitator_unavailable' })
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
    // Let the stalled verify finish on the facilitator's side before the retry.
    await new Promise((resolve) => setTimeout(resolve, 1_600))
    const retry = await pay(header)
    expect(retry.status).toBe(200)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([
      retry.body.receipt.settlementTx,
    ])
  })

  it('answers a retryable 503 when /settle hangs past the timeout, then settles late: charged once, the retry gets the receipt', async () => {
    const header = await suite.paymentHeader(stack)
    remote.faults.settleStallMs = 2_500
    let first: Awaited<ReturnType<typeof pay>>
    const started = Date.now()
    try {
      first = await pay(header)
    } finally {
      delete remote.faults.settleStallMs
    }
    expect(first.status, JSON.stringify(first.body)).toBe(503)
    expect(first.body).toMatchObject({ error: 'settlement_pending' })
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Date.now() - started).toBeLessThan(2_500 + 5_000)
    // The stalled facilitator settles after all; the buyer retries the same header.
    const deadline = Date.now() + 15_000
    let retry = await pay(header)
    while (retry.status !== 200 && Date.now() < deadline) {
      expect(retry.status, JSON.stringify(retry.body)).toBe(503)
      await new Promise((resolve) => setTimeout(resolve, 500))
      retry = await pay(header)
    }
    expect(retry.status).toBe(200)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([
      retry.body.receipt.settlementTx,
    ])
  }, 30_000)

  it('a settle whose answer never came: the facilitator is not asked again until the payment was quiet, so its late settlement is the only one', async () => {
    // The service's default quiet (15 s): a retry within it waits for the chain.
    const quietApp = await suite.appWith({
      facilitator: createFacilitator({ kind: 'url', url: `${remote.url}/`, timeoutMs: 1_000 }),
    })
    const header = await suite.paymentHeader(quietApp)
    remote.faults.settleStallMs = 2_500
    let first: Awaited<ReturnType<typeof pay>>
    const settlesBefore = remote.calls.settle
    try {
      first = await sendPayment(quietApp.app, header)
      expect(first.status, JSON.stringify(first.body)).toBe(503)
      // At once, while the facilitator still holds the first settle: not asked again.
      const retry = await sendPayment(quietApp.app, header)
      expect(retry.status, JSON.stringify(retry.body)).toBe(503)
      expect(retry.body).toMatchObject({ error: 'settlement_pending' })
      expect(remote.calls.settle - settlesBefore).toBe(1)
    } finally {
      delete remote.faults.settleStallMs
    }
    // The stalled settle lands; the next retry finds it on chain: the one settlement.
    const deadline = Date.now() + 15_000
    let paid = await sendPayment(quietApp.app, header)
    while (paid.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      paid = await sendPayment(quietApp.app, header)
    }
    expect(paid.status).toBe(200)
    expect(remote.calls.settle - settlesBefore).toBe(1)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([
      paid.body.receipt.settlementTx,
    ])
  }, 30_000)

  it('confirms a settle whose answer timed out from the chain, before answering', async () => {
    const header = await suite.paymentHeader(stack)
    remote.faults.settleDelayMs = 2_500
    let first: Awaited<ReturnType<typeof pay>>
    try {
      first = await pay(header)
    } finally {
      delete remote.faults.settleDelayMs
    }
    // The facilitator did settle: the chain shows it, so this call is paid at once.
    const txs = await settlementsOf(chain, BUYER.address, nonceOf(header))
    expect(txs).toHaveLength(1)
    expect(first.status).toBe(200)
    expect(first.body.receipt.settlementTx).toBe(txs[0])
    expect((await reconcile(stack.rail)).settled).toHaveLength(0)
    const replay = await pay(header)
    expect(replay.status).toBe(200)
    expect(replay.body.receipt.id).toBe(first.body.receipt.id)
  })

  it('never receipts a settlement the facilitator invented: 502, nothing settled, pending', async () => {
    const header = await suite.paymentHeader(stack)
    const invented = `0x${'5e'.repeat(32)}` as const
    remote.faults.settleLie = invented
    const [before] = await usdcBalances(chain, PAY_TO)
    try {
      const first = await pay(header)
      expect(first.status).toBe(502)
      expect(first.body).toMatchObject({ error: 'facilitator_unavailable' })
      expect(first.body.message).toContain(invented)
      expect(first.body.receipt).toBeUndefined()
      expect(first.body.result).toBeUndefined()
      // A retry takes the payment over, asks again, is lied to again: still no receipt.
      const retry = await pay(header)
      expect(retry.status).toBe(503)
      expect(retry.body).toMatchObject({ error: 'settlement_pending' })
      expect((await reconcile(stack.rail)).settled).toHaveLength(0)
    } finally {
      delete remote.faults.settleLie
    }
    const id = authorizationId('eip155:8453', USDC_ADDRESS, {
      payer: BUYER.address,
      nonce: nonceOf(header),
    })
    // Nothing recorded as settled, and the invented hash is not taken for ours.
    expect(await storage.ledger.get(id)).toMatchObject({
      status: 'settle_pending',
      receiptId: null,
      settlementTx: null,
    })
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
    expect(await usdcBalances(chain, PAY_TO)).toEqual([before])
    // The chain decides: with an honest facilitator again, the next retry is paid, once.
    const paid = await pay(header)
    expect(paid.status).toBe(200)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([
      paid.body.receipt.settlementTx,
    ])
  })

  it('settles later when the facilitator dropped the settle request', async () => {
    const header = await suite.paymentHeader(stack)
    remote.faults.dropSettle = 1
    const { status } = await pay(header)
    expect(status).toBe(503)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
    expect((await reconcile(stack.rail)).settled).toHaveLength(1)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toHaveLength(1)
    expect((await pay(header)).status).toBe(200)
  })

  it('records a non-2xx settle answer that came after the broadcast as pending, never as failed', async () => {
    // A facilitator that sent the transfer, then crashed on its way out: HTTP 500 with
    // `unexpected_settle_error` and no transaction. That is not "nothing was charged".
    const header = await suite.paymentHeader(stack)
    remote.faults.settleThenAnswer = {
      status: 500,
      body: {
        success: false,
        errorReason: 'unexpected_settle_error',
        transaction: '',
        network: 'eip155:8453',
      },
    }
    let first: Awaited<ReturnType<typeof pay>>
    try {
      first = await pay(header)
    } finally {
      delete remote.faults.settleThenAnswer
    }
    // Not "failed": the chain is read, shows the transfer, and this call is paid.
    const [onChain] = await settlementsOf(chain, BUYER.address, nonceOf(header))
    expect(onChain).toBeDefined()
    expect(first.status).toBe(200)
    expect(first.body.receipt.settlementTx).toBe(onChain)
    expect((await reconcile(stack.rail)).settled).toHaveLength(0)
    const replay = await pay(header)
    expect(replay.status).toBe(200)
    expect(replay.body.receipt.id).toBe(first.body.receipt.id)
  })

  it('records a settle whose retry found the facilitator gone as pending with the first transaction', async () => {
    // x402's resource server retries a `settlement_pending` answer once; the facilitator died
    // in between, so the retry is refused (ECONNREFUSED). The first answer had broadcast.
    const dying = await startHttpFacilitator(builtinFacilitator(devnet.rpcUrl).client, {
      pendingThenDown: true,
    })
    const app = await suite.appWith({
      facilitator: createFacilitator({ kind: 'url', url: dying.url, timeoutMs: 2_000 }),
    })
    try {
      const header = await suite.paymentHeader(app)
      const res = await postPaid(app.app, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': header })
      // The first answer had broadcast: the chain shows the transfer, with the facilitator
      // still down, so this call is paid.
      const [onChain] = await settlementsOf(chain, BUYER.address, nonceOf(header))
      expect(onChain).toBeDefined()
      expect(res.status).toBe(200)
      const first = (await res.json()) as any
      expect(first.receipt.settlementTx).toBe(onChain)
      expect((await reconcile(app.rail)).settled).toHaveLength(0)
      const replay = await postPaid(app.app, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': header })
      expect(replay.status).toBe(200)
      expect(((await replay.json()) as any).receipt.id).toBe(first.receipt.id)
    } finally {
      await dying.close()
    }
  })

  it('leaves the ledger equal to what payTo received', async () => {
    // Every payment in this file went to PAY_TO through this ledger; the devnet is fresh.
    const [balance] = await usdcBalances(chain, PAY_TO)
    expect(await storage.ledger.settledTotal(PAY_TO)).toBe(balance)
  })
})
