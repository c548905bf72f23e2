import type { PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Devnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { createFacilitator } from '../../src/adapters/facilitator/facilitator-client.js'
import type { Storage } from '../../src/adapters/storage/open-storage.js'
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

  it('records a settle answer that times out as pending and confirms it from the chain', async () => {
    const header = await suite.paymentHeader(stack)
    remote.faults.settleDelayMs = 2_500
    try {
      const { status, body } = await pay(header)
      expect(status).toBe(503)
      expect(body).toMatchObject({ error: 'settlement_pending' })
    } finally {
      delete remote.faults.settleDelayMs
    }
    // The facilitator did settle: the chain shows it, the reconciler records it.
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toHaveLength(1)
    expect((await reconcile(stack.rail)).settled).toHaveLength(1)
    const replay = await pay(header)
    expect(replay.status).toBe(200)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([
      replay.body.receipt.settlementTx,
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
    try {
      const { status, body } = await pay(header)
      expect(status).toBe(503)
      expect(body).toMatchObject({ error: 'settlement_pending' })
    } finally {
      delete remote.faults.settleThenAnswer
    }
    const [onChain] = await settlementsOf(chain, BUYER.address, nonceOf(header))
    expect(onChain).toBeDefined()
    expect((await reconcile(stack.rail)).settled).toHaveLength(1)
    const replay = await pay(header)
    expect(replay.status).toBe(200)
    expect(replay.body.receipt.settlementTx).toBe(onChain)
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
      expect(res.status).toBe(503)
      expect(await res.json()).toMatchObject({ error: 'settlement_pending' })
      const [onChain] = await settlementsOf(chain, BUYER.address, nonceOf(header))
      expect(onChain).toBeDefined()
      expect(res.headers.get('retry-after')).toBeTruthy()
      // The chain settles it even with the facilitator still down.
      expect((await reconcile(app.rail)).settled).toHaveLength(1)
      const replay = await postPaid(app.app, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': header })
      expect(replay.status).toBe(200)
      expect(((await replay.json()) as any).receipt.settlementTx).toBe(onChain)
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
