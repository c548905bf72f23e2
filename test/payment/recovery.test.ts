import { randomBytes } from 'node:crypto'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import { createPublicClient, type Hex, type PublicClient, toHex, http as viemHttp } from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { createViemSettlementChain } from '../../src/adapters/facilitator/settlement-chain.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { authorizationId } from '../../src/domain/payment/authorization-id.js'
import { ABANDONED_CODE } from '../../src/domain/payment/owner-lease.js'
import { reconcileSettlements } from '../../src/domain/payment/reconcile-settlements.js'
import type { PreflightResult } from '../../src/domain/preflight/run-preflight.js'
import { startFaultyRpc } from '../support/faulty-rpc.js'
import { DATABASE_URL, postgresAvailable } from '../support/postgres.js'
import {
  authorizationOf,
  builtinFacilitator,
  EXAMPLE_BODY,
  fundedPayer,
  newPaymentOf,
  nonceOf,
  PAY_TO,
  type PaidApp,
  paidApp,
  RECEIPT_SIGNER,
  sendPayment,
  settlementsOf,
  signTransferAuthorization,
  submitAuthorization,
  unpaidOffer,
  usdcBalances,
  buyer as x402Buyer,
} from './paid-stack.js'

// Money is never taken without a result: a paid buyer gets its answer and receipt back after
// its authorization expired, after the request that held its payment died, and when someone
// else put its authorization on chain first. On PostgreSQL (the shared ledger) when present.

const havePostgres = await postgresAvailable()
const schema = `test_recovery_${randomBytes(6).toString('hex')}`

let devnet: Devnet
let storage: Storage
let chain: PublicClient
let stack: PaidApp
/** The same service with a short wait for copies, to see the in-progress answer. */
let impatient: PaidApp
let payToAtStart: bigint
const SHORT_LEASE_MS = 1_000

beforeAll(async () => {
  devnet = await startDevnet()
  storage = havePostgres
    ? await openStorage({ kind: 'postgres', url: DATABASE_URL, schema })
    : await openStorage({ kind: 'pglite', dataDir: undefined, schema })
  chain = createPublicClient({ transport: viemHttp(devnet.rpcUrl) })
  stack = await paidApp({
    preflightRpcUrl: devnet.rpcUrl,
    facilitator: builtinFacilitator(devnet.rpcUrl),
    ledger: storage.ledger,
    payments: { leaseMs: SHORT_LEASE_MS },
  })
  impatient = await paidApp({
    preflightRpcUrl: devnet.rpcUrl,
    facilitator: builtinFacilitator(devnet.rpcUrl),
    ledger: storage.ledger,
    payments: { leaseMs: SHORT_LEASE_MS, waitTimeoutMs: 300 },
  })
  ;[payToAtStart = 0n] = await usdcBalances(chain, PAY_TO)
}, 60_000)

afterAll(async () => {
  if (storage) {
    await storage.sql.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await storage.close()
  }
  await devnet?.stop()
})

const pay = (header: string, body: unknown = EXAMPLE_BODY) => sendPayment(stack.app, header, body)
const idOf = (header: string) =>
  authorizationId('eip155:8453', USDC_ADDRESS, {
    payer: authorizationOf(header).from,
    nonce: nonceOf(header),
  })

/** A PAYMENT-SIGNATURE whose EIP-3009 authorization expires `seconds` from now. */
async function expiringHeader(account: PrivateKeyAccount, seconds: number): Promise<string> {
  const offer = await unpaidOffer(stack.app)
  const accepted = offer.accepts[0]
  if (!accepted) throw new Error('no offer')
  const message = {
    to: accepted.payTo as Hex,
    value: BigInt(accepted.amount),
    validAfter: 0n,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + seconds),
    nonce: toHex(randomBytes(32)),
  }
  const signature = await signTransferAuthorization(account, message)
  return encodePaymentSignatureHeader({
    x402Version: 2,
    resource: offer.resource,
    accepted,
    payload: {
      signature,
      authorization: {
        from: account.address,
        to: message.to,
        value: message.value.toString(),
        validAfter: '0',
        validBefore: message.validBefore.toString(),
        nonce: message.nonce,
      },
    },
  })
}

/** Submits the buyer's own authorization on chain as a third party would (a front-run). */
function submitOnChain(header: string): Promise<Hex> {
  return submitAuthorization(
    devnet.rpcUrl,
    header,
    privateKeyToAccount(DEVNET_ACCOUNTS.usdcMinter.privateKey),
  )
}

/**
 * Leaves `header`'s payment `settling` with a real result and an owner that died: its lease
 * runs out after `leaseMs` and is never renewed.
 */
async function ownerDiedWhileSettling(header: string, leaseMs: number): Promise<void> {
  const payment = newPaymentOf(header, stack.rail.requirements)
  // A real result to receipt: another paid call's.
  const other = await x402Buyer(stack.app, devnet.rpcUrl, await fundedPayer(devnet.rpcUrl))
  const { result } = (await pay(await other.paymentHeader(await unpaidOffer(stack.app)))).body as {
    result: PreflightResult
  }
  const { id } = payment
  expect(await storage.ledger.claim(payment, leaseMs)).toEqual({ claimed: true })
  await storage.ledger.transition(id, ['verifying'], { status: 'verified' })
  await storage.ledger.transition(id, ['verified'], { status: 'settling', result })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a retry of a settled payment after its authorization expired', () => {
  it('gets 200 with the same answer and receipt, 15 s after a 10 s authorization', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    const header = await expiringHeader(payer, 10)
    const first = await pay(header)
    expect(first.status).toBe(200)
    await sleep(15_000)
    // A payment we do not hold is still judged for validity...
    const expiredNew = await pay(await expiringHeader(payer, -5))
    expect(expiredNew.status).toBe(402)
    expect(expiredNew.body).toMatchObject({ reason: 'authorization_expired' })
    // ...but the one we hold answers with what it bought, whatever the time.
    const retry = await pay(header)
    expect(retry.status).toBe(200)
    expect(retry.body.receipt).toEqual(first.body.receipt)
    expect(retry.body.result).toEqual(first.body.result)
    expect(retry.headers.get('PAYMENT-RESPONSE')).toBeTruthy()
    expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([
      first.body.receipt.settlementTx,
    ])
  }, 40_000)
})

describe('a payment whose owner died while settling', () => {
  it('is in progress while the lease runs, then taken over by a retry and settled once', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
      await unpaidOffer(stack.app),
    )
    await ownerDiedWhileSettling(header, 2_000)
    // The lease still runs: the message says so, and when to come back.
    const early = await sendPayment(impatient.app, header)
    expect(early.status).toBe(503)
    expect(early.body).toMatchObject({ error: 'payment_in_progress' })
    expect(early.body.message).toMatch(/lease runs until/)
    expect(Number(early.headers.get('retry-after'))).toBeLessThanOrEqual(2)
    expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([])
    await sleep(2_100)
    // Owner gone, nothing on chain, still valid: the retry takes it over and settles it.
    const retry = await pay(header)
    expect(retry.status).toBe(200)
    const txs = await settlementsOf(chain, payer.address, nonceOf(header))
    expect(txs).toEqual([retry.body.receipt.settlementTx])
    expect(await storage.ledger.get(idOf(header))).toMatchObject({
      status: 'settled',
      settlementTx: txs[0],
    })
    expect((await pay(header)).body.receipt.id).toBe(retry.body.receipt.id)
  })

  it('is finished from the chain by a retry when the owner had already been paid', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
      await unpaidOffer(stack.app),
    )
    await ownerDiedWhileSettling(header, 0)
    // The dead owner's settlement reached the chain; its hash was never recorded.
    const mined = await submitOnChain(header)
    const retry = await pay(header)
    expect(retry.status).toBe(200)
    expect(retry.body.receipt.settlementTx).toBe(mined)
    // Charged once: no second settlement was sent.
    expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([mined])
    expect(await usdcBalances(chain, payer.address)).toEqual([0n])
  })
})

describe('a payment whose owner died before settling', () => {
  // Found by the soak (issue 28): a retry that arrived while the dead owner's lease still ran
  // waited its whole 10 s for an answer and got 503 payment_in_progress, so the payment was
  // answered up to a wait after the lease, not within it.
  for (const stage of ['verifying', 'verified'] as const) {
    it(`(${stage}) is taken over by the copy waiting on it as soon as the lease runs out`, async () => {
      const payer = await fundedPayer(devnet.rpcUrl)
      const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
        await unpaidOffer(stack.app),
      )
      const leaseMs = 2_000
      const payment = newPaymentOf(header, stack.rail.requirements)
      const { id } = payment
      expect(await storage.ledger.claim(payment, leaseMs)).toEqual({ claimed: true })
      if (stage === 'verified')
        await storage.ledger.transition(id, ['verifying'], { status: stage })
      // The copy arrives while the lease runs (the default 10 s wait is longer than the lease).
      const started = Date.now()
      const copy = await pay(header)
      expect(copy.status).toBe(200)
      expect(Date.now() - started).toBeLessThan(leaseMs + 5_000)
      expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([
        copy.body.receipt.settlementTx,
      ])
      expect(await storage.ledger.get(id)).toMatchObject({ status: 'settled' })
    })
  }
})

describe('a payment the reconciler marked abandoned while a copy waited on it', () => {
  // Found by the soak (issue 28): a copy waiting out a dead owner's lease answered 503
  // payment_in_progress when the reconciler got there first (it marks a payment abandoned
  // before settling as failed, retryable), so the payment waited for the buyer's next retry
  // (Retry-After 5 s) instead of being taken over at once.
  it('is taken over by the waiting copy and settled once', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
      await unpaidOffer(stack.app),
    )
    const newPayment = newPaymentOf(header, stack.rail.requirements)
    const { id } = newPayment
    // An owner that died 1 s into a 3 s lease: the copy arrives and waits.
    expect(await storage.ledger.claim(newPayment, 3_000)).toEqual({ claimed: true })
    const started = Date.now()
    const copy = pay(header)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    // The reconciler's write for an abandoned payment (reconcileOne), landing mid-wait.
    expect(
      await storage.ledger.transition(id, ['verifying'], {
        status: 'failed',
        failure: { kind: 'error', code: ABANDONED_CODE, message: 'abandoned before settling' },
      }),
    ).toBe(true)
    const answer = await copy
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(Date.now() - started).toBeLessThan(3_000 + 5_000)
    expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([
      answer.body.receipt.settlementTx,
    ])
    expect(await storage.ledger.get(id)).toMatchObject({ status: 'settled' })
  })
})

describe('a takeover that cannot read the chain', () => {
  it('answers 503 settlement_pending (never 500), and the next retry finishes it', async () => {
    const blind = await paidApp({
      preflightRpcUrl: devnet.rpcUrl,
      // Nothing listens there: every settlement read fails.
      settlementRpcUrl: 'http://127.0.0.1:9',
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
      payments: { leaseMs: SHORT_LEASE_MS },
    })
    const payer = await fundedPayer(devnet.rpcUrl)
    const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
      await unpaidOffer(stack.app),
    )
    await ownerDiedWhileSettling(header, 0)
    const blinded = await sendPayment(blind.app, header)
    expect(blinded.status).toBe(503)
    expect(blinded.body).toMatchObject({ error: 'settlement_pending' })
    expect(await storage.ledger.get(idOf(header))).toMatchObject({ status: 'settle_pending' })
    const retry = await pay(header)
    expect(retry.status).toBe(200)
    expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([
      retry.body.receipt.settlementTx,
    ])
  })
})

describe('a settlement read the node holds', () => {
  // Seed 3 of the soak (docs/soak.md): a take-over's chain read held for the whole
  // RPC_TIMEOUT_MS in an RPC hang burst pushed its answer past the kill bound. The settlement
  // chain's reads are sent again when unanswered after a moment; the first reply wins.
  const holdingFirstCall = async () => {
    const draws = [0]
    const rpc = await startFaultyRpc(devnet.rpcUrl, { random: () => draws.shift() ?? 0.99 })
    // Of the calls drawn below 0.5, the node answers the headers and then nothing.
    rpc.set('*', { kind: 'stall' }, 0.5)
    return rpc
  }

  it('is sent again and answered long before the timeout', async () => {
    const rpc = await holdingFirstCall()
    try {
      const started = Date.now()
      const head = await createViemSettlementChain({
        rpcUrl: rpc.url,
        timeoutMs: 30_000,
        hedgeAfterMs: 500,
      }).latestBlock()
      expect(head.number).toBe(await chain.getBlockNumber())
      // Without the second request it could not be answered before the 30 s timeout.
      expect(Date.now() - started).toBeLessThan(30_000)
      expect(rpc.seen.map((c) => c.method)).toEqual([
        'eth_getBlockByNumber',
        'eth_getBlockByNumber',
      ])
    } finally {
      await rpc.close()
    }
  })

  it('costs the whole timeout without it (what the take-over met)', async () => {
    const rpc = await holdingFirstCall()
    try {
      const started = Date.now()
      const head = await createViemSettlementChain({
        rpcUrl: rpc.url,
        timeoutMs: 2_000,
        hedgeAfterMs: 0,
      }).latestBlock()
      expect(head.number).toBe(await chain.getBlockNumber())
      // The held request times out, and viem's one retry is answered.
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000)
      expect(rpc.seen).toHaveLength(2)
    } finally {
      await rpc.close()
    }
  })

  it('lets a take-over through a node that holds its first read settle once', async () => {
    const rpc = await holdingFirstCall()
    try {
      const held = await paidApp({
        preflightRpcUrl: devnet.rpcUrl,
        settlementRpcUrl: rpc.url,
        facilitator: builtinFacilitator(devnet.rpcUrl),
        ledger: storage.ledger,
        payments: { leaseMs: SHORT_LEASE_MS },
      })
      const payer = await fundedPayer(devnet.rpcUrl)
      const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
        await unpaidOffer(stack.app),
      )
      await ownerDiedWhileSettling(header, 0)
      const retry = await sendPayment(held.app, header)
      expect(retry.status).toBe(200)
      expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([
        retry.body.receipt.settlementTx,
      ])
      // Its first chain read was held and sent again.
      const [first, second] = rpc.seen
      expect(second).toEqual(first)
    } finally {
      await rpc.close()
    }
  })
})

describe('the reconciler on an idle devnet', () => {
  it('decides an expired, unused payment without waiting for a new block', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    const header = await expiringHeader(payer, 8)
    await ownerDiedWhileSettling(header, 0)
    const validBefore = BigInt(authorizationOf(header).validBefore)
    await sleep(9_000)
    // Anvil made no block meanwhile: its head still says "before validBefore".
    expect((await chain.getBlock()).timestamp).toBeLessThan(validBefore)
    const pass = (idleChainClock: boolean) =>
      reconcileSettlements({
        ledger: storage.ledger,
        rail: stack.rail,
        chain: createViemSettlementChain({
          rpcUrl: devnet.rpcUrl,
          timeoutMs: 2_000,
          idleChainClock,
        }),
        receiptSigner: RECEIPT_SIGNER,
        backoff: { initialMs: 0, maxMs: 0 },
      })
    // Judged by the head alone (mainnet's rule), it is still spendable: undecided.
    expect((await pass(false)).stillPending).toContain(idOf(header))
    // The devnet's rule (the later of head time and wall clock) decides it.
    expect((await pass(true)).failed).toContain(idOf(header))
    expect(await storage.ledger.get(idOf(header))).toMatchObject({
      status: 'failed',
      failure: { code: 'authorization_expired', final: true },
    })
    expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([])
    const retry = await pay(header)
    expect(retry.status).toBe(402)
    expect(retry.body).toMatchObject({ reason: 'authorization_expired' })
  }, 30_000)
})

describe('an authorization someone else put on chain first, paying our payTo', () => {
  it('is this call paid: 200 with the result and a receipt naming that transaction', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
      await unpaidOffer(stack.app),
    )
    // Front-run before the buyer's call arrives: verify finds the nonce used.
    const frontRun = await submitOnChain(header)
    const paid = await pay(header)
    expect(paid.status).toBe(200)
    expect(paid.body.result).toMatchObject({ verdict: expect.any(String) })
    expect(paid.body.receipt).toMatchObject({ settlementTx: frontRun, payer: payer.address })
    expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([frontRun])
    // The same authorization for another request is not a second call.
    const reused = await pay(header, { ...EXAMPLE_BODY, value: '0x1' })
    expect(reused.status).toBe(402)
    expect(reused.body).toMatchObject({ reason: 'payment_reused' })
  })
})

describe('GET /receipts/by-authorization/{payer}/{nonce}', () => {
  it('finds the receipt of a settled payment from the authorization alone', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
      await unpaidOffer(stack.app),
    )
    const paid = await pay(header)
    expect(paid.status).toBe(200)
    // Any case of the address and nonce finds it.
    const res = await stack.app.request(
      `/receipts/by-authorization/${payer.address.toLowerCase()}/${nonceOf(header).toUpperCase().replace('0X', '0x')}`,
    )
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(paid.body.receipt)
  })

  it('says 404 for an unknown or unsettled payment and 422 for a malformed one', async () => {
    const payer = await fundedPayer(devnet.rpcUrl)
    const unknown = await stack.app.request(
      `/receipts/by-authorization/${payer.address}/0x${'ab'.repeat(32)}`,
    )
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: 'not_found' })
    const header = await x402Buyer(stack.app, devnet.rpcUrl, payer).paymentHeader(
      await unpaidOffer(stack.app),
    )
    await ownerDiedWhileSettling(header, 60_000)
    const inFlight = await stack.app.request(
      `/receipts/by-authorization/${payer.address}/${nonceOf(header)}`,
    )
    expect(inFlight.status).toBe(404)
    expect(((await inFlight.json()) as { message: string }).message).toMatch(/settling/)
    const bad = await stack.app.request(`/receipts/by-authorization/${payer.address}/0x12`)
    expect(bad.status).toBe(422)
    expect(await bad.json()).toMatchObject({ error: 'invalid_request' })
  })
})

describe('the ledger', () => {
  it('holds exactly what payTo received on chain during this file', async () => {
    const [now = 0n] = await usdcBalances(chain, PAY_TO)
    expect(await storage.ledger.settledTotal(PAY_TO)).toBe(now - payToAtStart)
  })
})
