import { randomBytes } from 'node:crypto'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import pg from 'pg'
import { createPublicClient, createTestClient, type Hex, http, type PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AnvilInstance, startAnvil } from '../../src/adapters/devnet/anvil.js'
import { mintDevnetUsdc, prepareDevnet } from '../../src/adapters/devnet/prepare.js'
import { EXAMPLE_BODY, nonceOf, settlementsOf, usdcBalances } from '../payment/paid-stack.js'
import { type GuardProcess, spawnGuard } from '../support/guard-process.js'
import { freePort } from '../support/net.js'
import { contractFetch } from '../support/openapi-contract.js'
import { DATABASE_URL, postgresAvailable } from '../support/postgres.js'

// Several real instances (the compiled service, mainnet mode, built-in facilitator) on one anvil
// and one PostgreSQL ledger: copies of one payment spread over them settle once; a second
// instance with the same settlement key is refused; an instance killed with SIGKILL right
// after sending its settlements leaves payments the surviving instance finishes, with a
// receipt for every charged buyer and the ledger equal to the chain.

const havePostgres = await postgresAvailable()
const PRICE = 10_000n

describe.runIf(havePostgres)('several instances on one PostgreSQL', () => {
  const schema = `test_instances_${randomBytes(6).toString('hex')}`
  let anvil: AnvilInstance
  let chain: PublicClient
  const receiptKey = generatePrivateKey()
  const payTo = privateKeyToAddress(generatePrivateKey())
  const keys = [generatePrivateKey(), generatePrivateKey()] as const
  const buyer = privateKeyToAccount(generatePrivateKey())
  const instances: { process: GuardProcess; url: string }[] = []
  let offer: PaymentRequired
  let client: x402Client

  function spawnInstance(port: number, settlementKey: Hex, instanceId: string) {
    return spawnGuard({
      PORT: String(port),
      BASE_RPC_URL: anvil.rpcUrl,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      PAY_TO_ADDRESS: payTo,
      FACILITATOR: 'builtin',
      SETTLEMENT_PRIVATE_KEY: settlementKey,
      RECEIPT_PRIVATE_KEY: receiptKey,
      DATABASE_URL,
      DATABASE_SCHEMA: schema,
      INSTANCE_ID: instanceId,
      // Settlements wait for their receipt (a test holds blocks back) instead of giving up.
      FACILITATOR_TIMEOUT_MS: '60000',
      // Loopback is rate-limited outside the devnet; these tests are not about limits.
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
    })
  }

  const listening = (line: Record<string, unknown>) =>
    String(line.msg).startsWith('pre-send-guard listening')

  beforeAll(async () => {
    anvil = await startAnvil()
    await prepareDevnet(anvil.rpcUrl)
    chain = createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 })
    const test = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
    for (const key of keys) {
      await test.setBalance({ address: privateKeyToAddress(key), value: 10n ** 20n })
    }
    await mintDevnetUsdc(anvil.rpcUrl, buyer.address, 100n * PRICE)
    for (const [i, key] of keys.entries()) {
      const port = await freePort()
      const process = spawnInstance(port, key, `instance-${i}`)
      instances.push({ process, url: `http://127.0.0.1:${port}/simulate/transaction-preflight` })
    }
    await Promise.all(instances.map((i) => i.process.waitForLine(listening, 90_000)))
    const challenge = await post(0)
    expect(challenge.status).toBe(402)
    offer = decodePaymentRequiredHeader(challenge.headers.get('PAYMENT-REQUIRED') ?? '')
    client = new x402Client().register(
      'eip155:8453',
      new ExactEvmClientScheme(
        toClientEvmSigner(
          buyer,
          createPublicClient({ chain: base, transport: http(anvil.rpcUrl) }),
        ),
      ),
    )
  }, 200_000)

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.process.stop(5_000)))
    await anvil?.stop()
    const admin = new pg.Client({ connectionString: DATABASE_URL })
    await admin.connect()
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })

  function post(instance: number, header?: string) {
    const target = instances[instance]
    if (!target) throw new Error(`no instance ${instance}`)
    return contractFetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(header ? { 'PAYMENT-SIGNATURE': header } : {}),
      },
      body: JSON.stringify(EXAMPLE_BODY),
      signal: AbortSignal.timeout(60_000),
    })
  }

  /** Retries one payment on `instance` until it answers 200 (bounded). */
  async function paidAnswer(instance: number, header: string, withinMs: number) {
    const deadline = Date.now() + withinMs
    for (;;) {
      const res = await post(instance, header).catch(() => undefined)
      if (res?.status === 200) {
        return (await res.json()) as { result: unknown; receipt: Record<string, string> }
      }
      const body = await res?.text()
      if (Date.now() > deadline)
        throw new Error(`still ${res?.status} ${body} after ${withinMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }

  const newPayment = async () =>
    encodePaymentSignatureHeader(await client.createPaymentPayload(offer))

  async function ledgerSettled(): Promise<{ n: number; total: bigint }> {
    const db = new pg.Client({ connectionString: DATABASE_URL })
    await db.connect()
    try {
      const { rows } = await db.query<{ n: string; total: string | null }>(
        `SELECT count(*)::text AS n, sum(amount)::text AS total FROM "${schema}".payments WHERE status = 'settled'`,
      )
      return { n: Number(rows[0]?.n ?? 0), total: BigInt(rows[0]?.total ?? 0) }
    } finally {
      await db.end()
    }
  }

  it('refuses a second running instance with the same settlement key, naming the variable', async () => {
    const intruder = spawnInstance(await freePort(), keys[0], 'instance-intruder')
    expect(await intruder.exited).toBe(2)
    expect(intruder.stderr()).toMatch(
      /SETTLEMENT_PRIVATE_KEY: its account 0x[0-9a-fA-F]{40} already settles for another running instance \(instance-0,/,
    )
    // The key itself never appears.
    expect(intruder.stderr() + intruder.stdout()).not.toContain(keys[0].slice(2))
  }, 120_000)

  it('settles 20 concurrent copies of one payment spread over both instances once', async () => {
    const [payToBefore = 0n] = await usdcBalances(chain, payTo)
    const header = await newPayment()
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => paidAnswer(i % 2, header, 60_000)),
    )
    const receiptIds = new Set(answers.map((a) => a.receipt.id))
    expect(receiptIds.size).toBe(1)
    const txs = await settlementsOf(chain, buyer.address, nonceOf(header))
    expect(txs).toHaveLength(1)
    expect(answers[0]?.receipt).toMatchObject({ settlementTx: txs[0], payTo, amount: '10000' })
    const [payToAfter = 0n] = await usdcBalances(chain, payTo)
    expect(payToAfter - payToBefore).toBe(PRICE)
  }, 120_000)

  it('the surviving instance finishes what a SIGKILLed one sent: a receipt per charge, ledger = chain', async () => {
    const CALLS = 5
    const headers = await Promise.all(Array.from({ length: CALLS }, () => newPayment()))
    const test = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
    const survivorSettler = privateKeyToAddress(keys[1])
    await test.setAutomine(false)
    let killedAnswered = 0
    const inFlight = headers.map((header) =>
      post(0, header).then(
        (r) => {
          killedAnswered++
          return r.status
        },
        () => 'lost' as const,
      ),
    )
    // Every settlement of instance 0 sits in the mempool: kill it right after sending.
    const deadline = Date.now() + 60_000
    for (;;) {
      const status = (await chain.request({ method: 'txpool_status' as never })) as { pending: Hex }
      if (Number(status.pending) >= CALLS - killedAnswered) break
      if (Date.now() > deadline) throw new Error('settlements never reached the mempool')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const killed = instances[0]?.process
    if (!killed?.child.pid) throw new Error('instance 0 is not running')
    process.kill(-killed.child.pid, 'SIGKILL')
    await killed.exited
    for (const outcome of await Promise.all(inFlight)) expect([503, 'lost']).toContain(outcome)
    const survivorNonce = await chain.getTransactionCount({ address: survivorSettler })
    await test.mine({ blocks: 1 })
    await test.setAutomine(true)
    // What the dead instance had broadcast is now mined; a call it had not yet broadcast (a
    // loaded machine) is left for the survivor to settle itself, once.
    let chargedByDead = 0
    for (const header of headers) {
      chargedByDead += (await settlementsOf(chain, buyer.address, nonceOf(header))).length
    }

    // Nobody retries: the survivor's reconciler takes over once the dead owner's lease lapses.
    const started = Date.now()
    const settledBefore = (await ledgerSettled()).n
    for (;;) {
      if ((await ledgerSettled()).n >= settledBefore + CALLS) break
      if (Date.now() - started > 60_000)
        throw new Error('the survivor did not resolve the payments')
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    const resolvedMs = Date.now() - started
    // No double work: the survivor sent a settlement only for what the dead one had not sent.
    expect(await chain.getTransactionCount({ address: survivorSettler })).toBe(
      survivorNonce + (CALLS - chargedByDead),
    )
    for (const header of headers) {
      const txs = await settlementsOf(chain, buyer.address, nonceOf(header))
      expect(txs).toHaveLength(1)
      const answer = await paidAnswer(1, header, 10_000)
      expect(answer.receipt).toMatchObject({ settlementTx: txs[0], payTo })
    }
    // The ledger equals the chain: every settled amount reached payTo, nothing else did.
    const ledger = await ledgerSettled()
    const [payToNow = 0n] = await usdcBalances(chain, payTo)
    expect(ledger.total).toBe(payToNow)
    console.info(
      `instances: the survivor resolved ${CALLS} payments (${CALLS - chargedByDead} sent by itself) ${resolvedMs} ms after the kill`,
    )
  }, 180_000)
})
