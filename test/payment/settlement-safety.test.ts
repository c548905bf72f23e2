import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import { pino } from 'pino'
import {
  createTestClient,
  createWalletClient,
  type Hex,
  type PublicClient,
  toHex,
  http as viemHttp,
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
import { authorizationId } from '../../src/domain/payment/authorization-id.js'
import { createInFlightTracker } from '../../src/domain/payment/in-flight.js'
import {
  DEFAULT_PAYMENT_LEASE_MS,
  type PaymentLedger,
} from '../../src/domain/payment/payment-ledger.js'
import type { PaymentRail } from '../../src/domain/payment/payment-rail.js'
import { reconcileSettlements } from '../../src/domain/payment/reconcile-settlements.js'
import type { SettlementChain } from '../../src/domain/payment/settlement-chain.js'
import type { PreflightResult } from '../../src/domain/preflight/run-preflight.js'
import { DEFAULT_REDACTOR } from '../../src/secrets.js'
import { startPaymentServices } from '../../src/service/payment-services.js'
import { broadcastRelay } from './broadcast-relay.js'
import {
  authorizationOf,
  BUYER,
  beforeSettle,
  builtinFacilitator,
  buyer,
  EIP3009_ABI,
  EXAMPLE_BODY,
  fundedPayer,
  newPaymentOf,
  nonceOf,
  PAY_TO,
  type PaidApp,
  RECEIPT_SIGNER,
  sendPayment,
  settlementsOf,
  signCancelAuthorization,
  signTransferAuthorization,
  submitAuthorization,
  unpaidOffer,
  usdcBalances,
} from './paid-stack.js'
import { type PaidSuite, startPaidSuite } from './paid-suite.js'

// Money is never taken without a result and a receipt, never taken twice, never lost track
// of: each test here is a way the settlement can go wrong after the payment was verified.

let suite: PaidSuite
let devnet: Devnet
let storage: Storage
let chain: PublicClient
let stack: PaidApp
let payToAtStart: bigint
const OTHER = DEVNET_ACCOUNTS.usdcMinter.address

beforeAll(async () => {
  suite = await startPaidSuite()
  ;({ devnet, storage, chain, stack, payToAtStart } = suite)
}, 60_000)

afterAll(async () => {
  await suite?.close()
})

const settlementChain = (options: Partial<Parameters<typeof createViemSettlementChain>[0]> = {}) =>
  createViemSettlementChain({ rpcUrl: devnet.rpcUrl, timeoutMs: 2_000, ...options })

const reconcile = (
  rail: PaymentRail,
  extra: { chain?: SettlementChain; staleAfterMs?: number } = {},
) => suite.reconcile(rail, extra)

const pay = (header: string, app = stack.app, body: unknown = EXAMPLE_BODY) =>
  sendPayment(app, header, body)

/** The ledger row of the payment in `header`. */
async function rowOf(header: string) {
  const { from, nonce } = authorizationOf(header)
  const id = authorizationId('eip155:8453', USDC_ADDRESS, {
    payer: from,
    nonce: nonce.toLowerCase() as Hex,
  } as never)
  return storage.ledger.get(id)
}

/** The built-in facilitator, running `before` on chain just before each settle. */
function interfering(before: () => Promise<void>): Facilitator {
  return beforeSettle(builtinFacilitator(devnet.rpcUrl), before)
}

/** A JSON-RPC relay to the devnet that holds back the answer to eth_sendRawTransaction. */
async function slowBroadcastRpc(holdMs: number) {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const upstream = await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    const text = await upstream.text()
    // The node has the transaction (automine: it is already mined); only the answer is late.
    if (body.includes('eth_sendRawTransaction')) await new Promise((r) => setTimeout(r, holdMs))
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('a settlement whose broadcast answer is lost', () => {
  it('is pending, never "nothing charged", and settles from the chain with its receipt', async () => {
    const rpc = await slowBroadcastRpc(2_500)
    try {
      const facilitator = createFacilitator({
        kind: 'builtin',
        settlementPrivateKey: DEVNET_ACCOUNTS.facilitator.privateKey,
        rpcUrl: rpc.url,
        rpcTimeoutMs: 1_000,
        confirmationTimeoutMs: 5_000,
        pollingIntervalMs: 50,
      })
      const app = await suite.appWith({
        facilitator,
      })
      const header = await suite.paymentHeader(app)
      const [payToBefore] = await usdcBalances(chain, PAY_TO)
      const first = await pay(header, app.app)
      // The facilitator's answer is lost, but the chain is read before answering: the
      // transfer happened, so this call is paid, with its receipt, at once.
      const [onChain] = await settlementsOf(chain, BUYER.address, nonceOf(header))
      expect(onChain).toBeDefined()
      expect(first.status).toBe(200)
      expect(first.body.receipt.settlementTx).toBe(onChain)
      expect((await usdcBalances(chain, PAY_TO))[0]! - payToBefore!).toBe(10_000n)
      expect(await rowOf(header)).toMatchObject({ status: 'settled', settlementTx: onChain })

      expect((await reconcile(app.rail)).settled).toHaveLength(0)
      const retry = await pay(header, app.app)
      expect(retry.status).toBe(200)
      expect(retry.body.receipt.id).toBe(first.body.receipt.id)
      expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([onChain])
    } finally {
      await rpc.close()
    }
  }, 30_000)
})

describe('a receipt that cannot be stored after the payment settled', () => {
  it('answers 503 settlement_pending (not 500) and the reconciler issues the receipt', async () => {
    let failures = 1
    const flaky: PaymentLedger = {
      ...storage.ledger,
      transition: async (id, from, update) => {
        if (update.status === 'settled' && failures > 0) {
          failures--
          throw new Error('connection terminated unexpectedly')
        }
        return storage.ledger.transition(id, from, update)
      },
    }
    const app = await suite.appWith({
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: flaky,
    })
    const header = await suite.paymentHeader(app)
    const first = await pay(header, app.app)
    expect(first.status).toBe(503)
    expect(first.body).toMatchObject({ error: 'settlement_pending' })
    const [onChain] = await settlementsOf(chain, BUYER.address, nonceOf(header))
    expect(await rowOf(header)).toMatchObject({ status: 'settle_pending', settlementTx: onChain })

    expect((await reconcile(app.rail)).settled).toHaveLength(1)
    const retry = await pay(header, app.app)
    expect(retry.status).toBe(200)
    expect(retry.body.receipt.settlementTx).toBe(onChain)
  })
})

describe('payloads that are not what they claim', () => {
  it('refuses a Permit2 authorization smuggled beside a fake EIP-3009 one, before any claim', async () => {
    const offer = await unpaidOffer(stack.app)
    const victim = '0x000000000000000000000000000000000000dEaD'
    const fakeNonce = `0x${'22'.repeat(32)}` as Hex
    const header = await buyer(stack.app, devnet.rpcUrl, BUYER).paymentHeader(offer, (p) => ({
      ...p,
      payload: {
        signature: `0x${'11'.repeat(65)}`,
        // What the ledger identity and the receipt would have been built from, unverified:
        authorization: {
          from: victim,
          to: PAY_TO,
          value: '10000',
          validAfter: '0',
          validBefore: String(Math.floor(Date.now() / 1000) + 300),
          nonce: fakeNonce,
        },
        permit2Authorization: {
          from: BUYER.address,
          spender: '0x4020615294c913F045dc10f0a5cdEbd86c280001',
          nonce: '1',
          deadline: '99999999999',
          permitted: { token: USDC_ADDRESS, amount: '10000' },
          witness: { to: PAY_TO, validAfter: '0' },
        },
      },
    }))
    const { status, body } = await pay(header)
    expect(status).toBe(402)
    expect(body).toMatchObject({ reason: 'payment_malformed' })
    const id = authorizationId('eip155:8453', USDC_ADDRESS, {
      payer: victim,
      nonce: fakeNonce,
    } as never)
    expect(await storage.ledger.get(id)).toBeUndefined()
  })

  it('refuses a payment the facilitator verified for another payer than authorization.from', async () => {
    const inner = builtinFacilitator(devnet.rpcUrl)
    const lying: Facilitator = {
      ...inner,
      client: {
        getSupported: inner.client.getSupported.bind(inner.client),
        settle: inner.client.settle.bind(inner.client),
        verify: async (...args: Parameters<Facilitator['client']['verify']>) => ({
          ...(await inner.client.verify(...args)),
          payer: OTHER,
        }),
      },
    }
    const app = await suite.appWith({
      facilitator: lying,
    })
    const header = await suite.paymentHeader(app)
    const { status, body } = await pay(header, app.app)
    expect(status).toBe(402)
    expect(body).toMatchObject({ reason: 'verification_failed' })
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])
  })

  it('refuses an authorization that is not valid yet, and one valid for too long', async () => {
    const offer = await unpaidOffer(stack.app)
    const now = BigInt(Math.floor(Date.now() / 1000))
    const signed = async (validAfter: bigint, validBefore: bigint) => {
      const message = {
        to: PAY_TO,
        value: 10_000n,
        validAfter,
        validBefore,
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
      }
      return encodePaymentSignatureHeader({
        x402Version: 2,
        accepted: offer.accepts[0]!,
        payload: {
          signature: await signTransferAuthorization(BUYER, message),
          authorization: {
            from: BUYER.address,
            to: message.to,
            value: message.value.toString(),
            validAfter: message.validAfter.toString(),
            validBefore: message.validBefore.toString(),
            nonce: message.nonce,
          },
        },
      })
    }
    const early = await pay(await signed(now + 120n, now + 300n))
    expect(early.status).toBe(402)
    expect(early.body).toMatchObject({ reason: 'authorization_not_yet_valid' })
    const forever = await pay(await signed(0n, now + 365n * 86_400n))
    expect(forever.status).toBe(402)
    expect(forever.body).toMatchObject({ reason: 'authorization_validity_too_long' })
  })
})

describe('an authorization spent elsewhere between verify and settle', () => {
  it('is failed authorization_canceled when the payer canceled it: nothing charged, no receipt', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    let header = ''
    const app = await suite.appWith({
      facilitator: interfering(async () => {
        const nonce = nonceOf(header)
        const wallet = createWalletClient({ account: payer, transport: viemHttp(devnet.rpcUrl) })
        const hash = await wallet.writeContract({
          chain: null,
          address: USDC_ADDRESS,
          abi: EIP3009_ABI,
          functionName: 'cancelAuthorization',
          args: [payer.address, nonce, await signCancelAuthorization(payer, nonce)],
        })
        await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 })
      }),
    })
    header = await suite.paymentHeader(app, payer)
    const [payToBefore] = await usdcBalances(chain, PAY_TO)
    // The chain is read before answering: canceled, never to be paid, so 402 at once.
    // (Before: "used" at authorizationState, no AuthorizationUsed event -> pending for ever.)
    const refused = await pay(header, app.app)
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({ reason: 'authorization_canceled' })
    expect(refused.body.receipt).toBeUndefined()
    expect((await reconcile(app.rail)).failed).toHaveLength(0)
    expect(await rowOf(header)).toMatchObject({
      status: 'failed',
      failure: { code: 'authorization_canceled', final: true },
    })
    const retry = await pay(header, app.app)
    expect(retry.status).toBe(402)
    expect(retry.body).toMatchObject({ reason: 'authorization_canceled' })
    expect(retry.body.result).toBeUndefined()
    expect(await usdcBalances(chain, PAY_TO)).toEqual([payToBefore])
    expect(await usdcBalances(chain, payer.address)).toEqual([10_000n])
  })

  it('is failed authorization_used when the same nonce paid someone else first', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    let header = ''
    let elsewhere: Hex | undefined
    // The payer signs a second authorization under the same nonce, to another recipient,
    // and submits it before our settlement: the nonce is "used", but not to pay us.
    const app = await suite.appWith({
      facilitator: interfering(async () => {
        const { nonce, validAfter, validBefore } = authorizationOf(header)
        const message = {
          to: OTHER,
          value: 10_000n,
          validAfter: BigInt(validAfter),
          validBefore: BigInt(validBefore),
          nonce,
        }
        const wallet = createWalletClient({ account: payer, transport: viemHttp(devnet.rpcUrl) })
        elsewhere = await wallet.writeContract({
          chain: null,
          address: USDC_ADDRESS,
          abi: EIP3009_ABI,
          functionName: 'transferWithAuthorization',
          args: [
            payer.address,
            message.to,
            message.value,
            message.validAfter,
            message.validBefore,
            nonce,
            await signTransferAuthorization(payer, message),
          ],
        })
        await chain.waitForTransactionReceipt({ hash: elsewhere, pollingInterval: 50 })
      }),
    })
    header = await suite.paymentHeader(app, payer)
    const [payToBefore] = await usdcBalances(chain, PAY_TO)
    // Before: "authorization used" was taken as "payTo was paid" and a receipt issued.
    const refused = await pay(header, app.app)
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({ reason: 'authorization_used' })
    expect(refused.body.receipt).toBeUndefined()
    const report = await reconcile(app.rail)
    expect(report).toMatchObject({ settled: [], failed: [] })
    expect(await rowOf(header)).toMatchObject({
      status: 'failed',
      settlementTx: elsewhere,
      failure: { code: 'authorization_used', final: true },
    })
    const retry = await pay(header, app.app)
    expect(retry.status).toBe(402)
    expect(retry.body).toMatchObject({ reason: 'authorization_used' })
    expect(retry.body.receipt).toBeUndefined()
    expect(await usdcBalances(chain, PAY_TO)).toEqual([payToBefore])
  })
})

describe('a payment whose request died while settling (no transaction hash recorded)', () => {
  it('is settled through the facilitator when nothing had been sent', async () => {
    const header = await suite.paymentHeader(stack)
    await diedWhileSettling(header)
    // Its owner's lease ran out: the reconciler takes it over at once, not minutes later.
    expect((await reconcile(stack.rail)).settled).toHaveLength(1)
    const txs = await settlementsOf(chain, BUYER.address, nonceOf(header))
    expect(txs).toHaveLength(1)
    const retry = await pay(header)
    expect(retry.status).toBe(200)
    expect(retry.body.receipt.settlementTx).toBe(txs[0])
  })

  it('is settled from the transaction that was sent, found before the preflight block, once', async () => {
    const header = await suite.paymentHeader(stack)
    // The request's transfer reached the chain, but its hash was never recorded...
    const sent = await submitAuthorization(
      devnet.rpcUrl,
      header,
      privateKeyToAccount(DEVNET_ACCOUNTS.facilitator.privateKey),
    )
    await createTestClient({ mode: 'anvil', transport: viemHttp(devnet.rpcUrl) }).mine({
      blocks: 5,
    })
    // ...and the simulation it paid for was pinned to a later block.
    const result = await diedWhileSettling(header)
    expect(BigInt(result.block.number)).toBeGreaterThan(
      (await chain.getTransactionReceipt({ hash: sent })).blockNumber,
    )
    // Small log chunks: the search walks several getLogs ranges.
    const report = await reconcile(stack.rail, {
      staleAfterMs: 0,
      chain: settlementChain({ logChunkBlocks: 2n }),
    })
    expect(report.settled).toHaveLength(1)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([sent])
    const retry = await pay(header)
    expect(retry.status).toBe(200)
    expect(retry.body.receipt.settlementTx).toBe(sent)
  })
})

/** Leaves `header`'s payment in `settling` with a real result, as a request dying there would. */
async function diedWhileSettling(header: string): Promise<PreflightResult> {
  const payment = newPaymentOf(header, stack.rail.requirements)
  const { id } = payment
  // A real result to receipt: an earlier paid call's.
  const paid = await suite.paymentHeader(stack)
  const { result } = (await pay(paid)).body as { result: PreflightResult }
  await storage.ledger.claim(payment, 0) // the owner never renews its lease: it died
  await storage.ledger.transition(id, ['verifying'], { status: 'verified' })
  await storage.ledger.transition(id, ['verified'], { status: 'settling', result })
  return result
}

describe('a settlement announced before it is sent (write-ahead)', () => {
  const settler = DEVNET_ACCOUNTS.facilitator.address
  const testClient = () => createTestClient({ mode: 'anvil', transport: viemHttp(devnet.rpcUrl) })
  /** Every transaction the settlement account ever sent, the mempool's included. */
  const settlerNonce = () => chain.getTransactionCount({ address: settler, blockTag: 'pending' })

  it('is waited for, never sent twice, when the answer to its broadcast was lost while it waits to be mined', async () => {
    const relay = await broadcastRelay(devnet.rpcUrl)
    try {
      const facilitator = createFacilitator({
        kind: 'builtin',
        settlementPrivateKey: DEVNET_ACCOUNTS.facilitator.privateKey,
        rpcUrl: relay.url,
        rpcTimeoutMs: 2_000,
        confirmationTimeoutMs: 2_000,
        pollingIntervalMs: 50,
      })
      const app = await suite.appWith({ facilitator })
      const header = await suite.paymentHeader(app)
      const before = await settlerNonce()
      relay.setMode('lose-answer')
      await testClient().setAutomine(false)
      let sent: Hex | null | undefined
      try {
        const first = await pay(header, app.app)
        expect(first.status, JSON.stringify(first.body)).toBe(503)
        expect(first.body).toMatchObject({ error: 'settlement_pending' })
        // The node holds the settlement; the ledger knew its hash before the node did.
        expect(relay.forwarded()).toBe(1)
        expect(await settlerNonce()).toBe(before + 1)
        sent = (await rowOf(header))?.settlementTx
        expect(sent).toMatch(/^0x[0-9a-f]{64}$/)
        expect(await chain.getTransaction({ hash: sent as Hex })).toMatchObject({
          blockNumber: null,
        })
        // A reconciler pass meanwhile waits for it: nothing sent again (before the write-ahead
        // it read the authorization unused, knew no transaction, and sent a second settlement,
        // which reverted once the first was mined).
        const report = await reconcile(app.rail, { staleAfterMs: 0 })
        expect(report.settled).toHaveLength(0)
        expect(relay.forwarded()).toBe(1)
        expect(await settlerNonce()).toBe(before + 1)
        await testClient().mine({ blocks: 1 })
      } finally {
        await testClient().setAutomine(true)
      }
      expect((await reconcile(app.rail, { staleAfterMs: 0 })).settled).toHaveLength(1)
      expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([sent])
      const receipt = await chain.getTransactionReceipt({ hash: sent as Hex })
      expect(receipt.status).toBe('success')
      const retry = await pay(header, app.app)
      expect(retry.status).toBe(200)
      expect(retry.body.receipt.settlementTx).toBe(sent)
      expect(await settlerNonce()).toBe(before + 1)
    } finally {
      await relay.close()
    }
  }, 60_000)

  it('is waited for by whoever takes over when its owner died after announcing it', async () => {
    const header = await suite.paymentHeader(stack)
    await diedWhileSettling(header)
    const row = await rowOf(header)
    await testClient().setAutomine(false)
    let sent: Hex
    try {
      // The owner announced its settlement and handed it to the node, then died.
      sent = await submitAuthorization(
        devnet.rpcUrl,
        header,
        privateKeyToAccount(DEVNET_ACCOUNTS.facilitator.privateKey),
        { waitForReceipt: false },
      )
      expect(await storage.ledger.announceSettlement(row!.id, null, sent)).toBe(true)
      const before = await settlerNonce()
      // A retry takes it over (its owner's lease ran out) and finds the transaction pending.
      const retry = await pay(header)
      expect(retry.status, JSON.stringify(retry.body)).toBe(503)
      expect(retry.body).toMatchObject({ error: 'settlement_pending' })
      expect(await settlerNonce()).toBe(before)
      await testClient().mine({ blocks: 1 })
    } finally {
      await testClient().setAutomine(true)
    }
    const answered = await pay(header)
    expect(answered.status, JSON.stringify(answered.body)).toBe(200)
    expect(answered.body.receipt.settlementTx).toBe(sent)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([sent])
  }, 60_000)
})

describe('the reconciler', () => {
  it('reads the authorization state at the block it read first', async () => {
    const inner = settlementChain()
    const reads: { head?: bigint; at?: bigint }[] = []
    const recording: SettlementChain = {
      ...inner,
      latestBlock: async () => {
        const head = await inner.latestBlock()
        reads.push({ head: head.number })
        return head
      },
      authorizationUsed: async (asset, authorizer, nonce, blockNumber) => {
        reads.push({ at: blockNumber })
        return inner.authorizationUsed(asset, authorizer, nonce, blockNumber)
      },
    }
    const flaky = failingOnce(builtinFacilitator(devnet.rpcUrl))
    const app = await suite.appWith({
      facilitator: flaky,
    })
    const header = await suite.paymentHeader(app)
    expect((await pay(header, app.app)).status).toBe(503)
    expect((await reconcile(app.rail, { chain: recording })).settled).toHaveLength(1)
    expect(reads[0]?.head).toBeDefined()
    expect(reads[1]).toEqual({ at: reads[0]?.head })
  })

  it('lets concurrent reconcilers (instances) each take a payment once', async () => {
    const flaky = failingOnce(builtinFacilitator(devnet.rpcUrl), 3)
    const app = await suite.appWith({
      facilitator: flaky,
    })
    const client = buyer(app.app, devnet.rpcUrl, BUYER)
    const offer = await unpaidOffer(app.app)
    const headers = [
      await client.paymentHeader(offer),
      await client.paymentHeader(offer),
      await client.paymentHeader(offer),
    ]
    for (const header of headers) expect((await pay(header, app.app)).status).toBe(503)
    const [a, b] = await Promise.all([reconcile(app.rail), reconcile(app.rail)])
    const settled = [...(a?.settled ?? []), ...(b?.settled ?? [])]
    expect(settled).toHaveLength(3)
    expect(new Set(settled).size).toBe(3)
    for (const header of headers) {
      expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toHaveLength(1)
    }
  })
})

describe('a reconciliation pass whose instance dies', () => {
  /** Two payments left `settle_pending` (the facilitator failed their settles). */
  async function twoPending(leaseMs?: number) {
    const app = await suite.appWith({
      facilitator: failingOnce(builtinFacilitator(devnet.rpcUrl), 2),
      ...(leaseMs ? { payments: { leaseMs } } : {}),
    })
    const client = buyer(app.app, devnet.rpcUrl, BUYER)
    const offer = await unpaidOffer(app.app)
    const headers = [await client.paymentHeader(offer), await client.paymentHeader(offer)]
    for (const header of headers) expect((await pay(header, app.app)).status).toBe(503)
    return { app, headers }
  }

  /**
   * Starts a pass that stops on the first payment it takes, as in an instance that died there:
   * the chain never answers and the lease is never renewed. Resolves once it holds one.
   */
  async function deadPass(rail: PaymentRail, headers: string[], leaseMs?: number) {
    const hanging: SettlementChain = {
      ...settlementChain(),
      latestBlock: () => new Promise(() => {}),
    }
    void reconcileSettlements({
      ledger: { ...storage.ledger, renewLease: async () => false },
      rail,
      chain: hanging,
      receiptSigner: RECEIPT_SIGNER,
      backoff: { initialMs: 0, maxMs: 0 },
      ...(leaseMs ? { leaseMs } : {}),
    })
    for (let i = 0; i < 200; i++) {
      const rows = await Promise.all(headers.map(rowOf))
      const held = rows.findIndex((r) => (r?.leaseUntil.getTime() ?? 0) > Date.now())
      if (held >= 0) return { held, rows }
      await new Promise((r) => setTimeout(r, 10))
    }
    throw new Error('the pass took no payment')
  }

  it('holds only the payment it was on, for one lease; then a retry gets it, and the other at once', async () => {
    const { app, headers } = await twoPending(800)
    const { held, rows } = await deadPass(app.rail, headers, 800)
    const heldHeader = headers[held] as string
    const otherHeader = headers[1 - held] as string
    // Leased one at a time: the payment it had not reached is nobody's.
    expect(rows[1 - held]?.leaseUntil.getTime()).toBeLessThanOrEqual(Date.now())
    const other = await pay(otherHeader, app.app)
    expect(other.status).toBe(200)
    // The held one: within one lease of the pass's death a retry takes it over and settles it.
    const leaseEnd = rows[held]?.leaseUntil.getTime() ?? 0
    expect(leaseEnd - Date.now()).toBeLessThanOrEqual(800)
    await new Promise((r) => setTimeout(r, Math.max(0, leaseEnd - Date.now()) + 50))
    const retry = await pay(heldHeader, app.app)
    expect(retry.status).toBe(200)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(heldHeader))).toHaveLength(1)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(otherHeader))).toHaveLength(1)
  }, 30_000)

  it('leases for the payment lease by default (15 s), not a minute', async () => {
    const { app, headers } = await twoPending()
    const started = Date.now()
    const { held, rows } = await deadPass(app.rail, headers)
    const leaseMs = (rows[held]?.leaseUntil.getTime() ?? 0) - started
    expect(leaseMs).toBeGreaterThan(0)
    expect(leaseMs).toBeLessThanOrEqual(DEFAULT_PAYMENT_LEASE_MS + 2_000)
    // Let the pass's lease run out so the rest of the file never meets it.
    for (const header of headers) {
      const row = await rowOf(header)
      if (row) await storage.ledger.postpone(row.id, 0)
    }
  }, 30_000)
})

describe('copies of a payment in progress', () => {
  it('wait a bounded time, then get 503 payment_in_progress with Retry-After; later the answer', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const inFlight = createInFlightTracker()
    const app = await suite.appWith({
      facilitator: interfering(() => gate),
      payments: { waitTimeoutMs: 300, inFlight },
    })
    const header = await suite.paymentHeader(app)
    const first = pay(header, app.app)
    await waitFor(async () => (await rowOf(header))?.status === 'settling')
    expect(inFlight.size).toBe(1)
    const started = Date.now()
    const copy = await pay(header, app.app)
    // Bounded by the 300 ms wait (not the settle it waits on); slack for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(copy.status).toBe(503)
    expect(copy.body).toMatchObject({ error: 'payment_in_progress' })
    // Retry-After says when the owner's lease runs out (15 s at most, renewed while it lives).
    const retryAfter = Number(copy.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(15)
    expect(copy.body.message).toMatch(/lease runs until/)
    release()
    const done = await first
    expect(done.status).toBe(200)
    expect(await inFlight.drain(1_000)).toBe(true)
    const again = await pay(header, app.app)
    expect(again.body.receipt.id).toBe(done.body.receipt.id)
  })
})

describe('shutdown', () => {
  it('waits for paid calls in progress before closing the ledger', async () => {
    const services = await startPaymentServices({
      instanceId: 'shutdown-test',
      facilitator: {
        kind: 'builtin',
        settlementPrivateKey: DEVNET_ACCOUNTS.facilitator.privateKey,
        rpcUrl: devnet.rpcUrl,
        rpcTimeoutMs: 2_000,
        confirmationTimeoutMs: 2_000,
      },
      payTo: PAY_TO,
      receiptPrivateKey: DEVNET_ACCOUNTS.receiptSigner.privateKey,
      storage: { kind: 'pglite', dataDir: undefined },
      rpcUrl: devnet.rpcUrl,
      rpcTimeoutMs: 2_000,
      logger: pino({ level: 'silent' }),
      redactor: DEFAULT_REDACTOR,
      drainTimeoutMs: 5_000,
    })
    const inFlight = services.payments.inFlight
    expect(inFlight).toBeDefined()
    // A call between settle and receipt: it still has to write to the ledger.
    const call = inFlight!.track(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300))
      return services.payments.ledger.getReceipt('rcpt_none')
    })
    await services.close()
    await expect(call).resolves.toBeUndefined()
  })
})

describe('the ledger', () => {
  it('holds exactly what payTo received on chain during this file', async () => {
    const [payToNow] = await usdcBalances(chain, PAY_TO)
    expect(await storage.ledger.settledTotal(PAY_TO)).toBe(payToNow! - payToAtStart)
  })
})

/** A facilitator whose first `times` settles fail before reaching it (a timeout). */
function failingOnce(inner: Facilitator, times = 1): Facilitator {
  let left = times
  return beforeSettle(inner, async () => {
    if (left > 0) {
      left--
      throw new Error('socket hang up')
    }
  })
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
