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
})
