import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createPublicClient, http, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { DATABASE_URL, postgresAvailable } from '../support/postgres.js'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js'
import {
  BUYER,
  builtinFacilitator,
  buyer,
  EXAMPLE_BODY,
  fundedPayer,
  nonceOf,
  type PaidApp,
  paidApp,
  postPaid,
  settlementsOf,
  unpaidOffer,
} from './paid-stack.js'

// The service on a shared PostgreSQL ledger that restarts or goes away: it must stay up,
// answer 503 `ledger_unavailable` (never 500, never a crash) and recover by itself.

const havePostgres = await postgresAvailable()

describe.runIf(havePostgres)('the paid route on a PostgreSQL ledger that goes away', () => {
  const schema = `test_outage_${randomBytes(6).toString('hex')}`
  const application = `psg_outage_${randomBytes(4).toString('hex')}`
  let devnet: Devnet
  let proxy: TcpProxy
  let storage: Storage
  let admin: pg.Client
  let chain: PublicClient
  let stack: PaidApp
  const reported: string[] = []

  beforeAll(async () => {
    devnet = await startDevnet()
    chain = createPublicClient({ transport: http(devnet.rpcUrl) })
    const target = new URL(DATABASE_URL)
    proxy = await startTcpProxy(Number(target.port || 5432), target.hostname)
    const url = new URL(DATABASE_URL)
    url.host = `127.0.0.1:${proxy.port}`
    url.searchParams.set('application_name', application)
    storage = await openStorage({
      kind: 'postgres',
      url: url.toString(),
      schema,
      pool: { connectionTimeoutMs: 1_000, queryTimeoutMs: 3_000 },
      onError: (_error, context) => reported.push(context),
    })
    admin = new pg.Client({ connectionString: DATABASE_URL })
    await admin.connect()
    stack = await paidApp({
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
    })
  }, 60_000)

  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin?.end()
    await storage?.close()
    await proxy?.close()
    await devnet?.stop()
  })

  it('survives its connections being killed, answers 503 while the server is gone, then recovers', async () => {
    const client = buyer(stack.app, devnet.rpcUrl, BUYER)
    const warmup = await client.paymentHeader(await unpaidOffer(stack.app))
    expect((await postPaid(stack.app, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': warmup })).status).toBe(
      200,
    )

    // A PostgreSQL restart: every backend of the service is terminated while idle.
    const killed = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [application],
    )
    expect(killed.rows.length).toBeGreaterThan(0)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(reported.length).toBeGreaterThan(0)

    // The server unreachable: the paid call is 503 ledger_unavailable with Retry-After, and
    // nothing was charged (the claim comes before verify and settle).
    const header = await client.paymentHeader(await unpaidOffer(stack.app))
    await proxy.down()
    try {
      const res = await postPaid(stack.app, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': header })
      expect(res.status).toBe(503)
      expect(await res.json()).toMatchObject({ error: 'ledger_unavailable' })
      expect(res.headers.get('retry-after')).toBeTruthy()
      const receipt = await stack.app.request('/receipts/rcpt_00000000000000000000000000000000')
      expect(receipt.status).toBe(503)
      expect(await receipt.json()).toMatchObject({ error: 'ledger_unavailable' })
    } finally {
      await proxy.up()
    }
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toEqual([])

    // Back: the same payment buys its answer.
    const back = await postPaid(stack.app, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': header })
    expect(back.status).toBe(200)
    expect(await settlementsOf(chain, BUYER.address, nonceOf(header))).toHaveLength(1)
  }, 30_000)

  describe('an owner that gave up on a payment while the database was cut', () => {
    // Found by the soak (issue 28): an owner that settled but could not store the receipt,
    // nor record the payment pending, answered 503 and left it `settling` under its lease;
    // every retry then waited the lease out (~10 s after the database was back). Now the
    // owner records what it knows as soon as the database is back, which releases the lease.
    const LEASE_MS = 10_000
    let armed: 'verify' | 'settle' | undefined
    let cutStack: PaidApp
    beforeAll(async () => {
      const inner = builtinFacilitator(devnet.rpcUrl)
      cutStack = await paidApp({
        preflightRpcUrl: devnet.rpcUrl,
        ledger: storage.ledger,
        payments: { leaseMs: LEASE_MS },
        facilitator: {
          ...inner,
          client: {
            getSupported: inner.client.getSupported.bind(inner.client),
            verify: async (...args: Parameters<typeof inner.client.verify>) => {
              if (armed !== 'verify') return inner.client.verify(...args)
              armed = undefined
              await proxy.down()
              throw new Error('the facilitator could not be reached')
            },
            settle: async (...args: Parameters<typeof inner.client.settle>) => {
              const settled = await inner.client.settle(...args)
              if (armed === 'settle') {
                armed = undefined
                await proxy.down()
              }
              return settled
            },
          },
        },
      })
    })

    const cutThenRetry = async (stage: 'verify' | 'settle', expectedCode: string) => {
      const payer = await fundedPayer(devnet.rpcUrl)
      const header = await buyer(cutStack.app, devnet.rpcUrl, payer).paymentHeader(
        await unpaidOffer(cutStack.app),
      )
      armed = stage
      const owner = await postPaid(cutStack.app, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': header })
      expect(owner.status).toBe(503)
      expect(await owner.json()).toMatchObject({ error: expectedCode })
      // The database comes back a second later; the buyer retries a second after that.
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      await proxy.up()
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const started = Date.now()
      const retry = await postPaid(cutStack.app, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': header })
      expect(retry.status).toBe(200)
      const receipt = ((await retry.json()) as { receipt: { settlementTx: string } }).receipt
      // Well inside the 10 s lease the owner still held.
      expect(Date.now() - started).toBeLessThan(4_000)
      expect(await settlementsOf(chain, payer.address, nonceOf(header))).toEqual([
        receipt.settlementTx,
      ])
    }

    it('settled, receipt not stored: recorded pending once the database is back, and the retry finishes it at once', async () => {
      await cutThenRetry('settle', 'settlement_pending')
    }, 30_000)

    it('verify failed, failure not stored: recorded once the database is back, and the retry claims it at once', async () => {
      await cutThenRetry('verify', 'ledger_unavailable')
    }, 30_000)
  })
})
