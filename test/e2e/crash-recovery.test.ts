import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import pg from 'pg'
import { createPublicClient, createTestClient, type Hex, http, type PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { MAIN } from '../../scripts/build.mjs'
import { type AnvilInstance, startAnvil } from '../../src/adapters/devnet/anvil.js'
import { mintDevnetUsdc, prepareDevnet } from '../../src/adapters/devnet/prepare.js'
import { EXAMPLE_BODY, nonceOf, settlementsOf, usdcBalances } from '../payment/paid-stack.js'
import { freePort } from '../support/net.js'
import { contractFetch } from '../support/openapi-contract.js'
import { DATABASE_URL, postgresAvailable } from '../support/postgres.js'

// The real service (the compiled `dist/src/main.js` that `npm start` runs, mainnet mode) on an anvil this test owns
// and on PostgreSQL, killed with SIGKILL while 20 paid calls wait for their settlements to be
// mined. The buyers were charged; after a restart every retry must get its answer and receipt
// within 30 s, and the ledger must equal the chain.

const ROOT = new URL('../..', import.meta.url).pathname
const CALLS = 20
const havePostgres = await postgresAvailable()

describe.runIf(havePostgres)('an instance killed while settlements wait to be mined', () => {
  const schema = `test_crash_${randomBytes(6).toString('hex')}`
  const dataDir = mkdtempSync(join(tmpdir(), 'psg-crash-'))
  let anvil: AnvilInstance
  let chain: PublicClient
  const running: ChildProcess[] = []
  // Fresh keys: the service refuses anvil's public test keys outside the devnet.
  const settlementKey = generatePrivateKey()
  const receiptKey = generatePrivateKey()
  const payTo = privateKeyToAddress(generatePrivateKey())
  const buyer = privateKeyToAccount(generatePrivateKey())

  beforeAll(async () => {
    anvil = await startAnvil()
    await prepareDevnet(anvil.rpcUrl)
    chain = createPublicClient({ transport: http(anvil.rpcUrl) })
    const test = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
    await test.setBalance({ address: privateKeyToAddress(settlementKey), value: 10n ** 20n })
    await mintDevnetUsdc(anvil.rpcUrl, buyer.address, BigInt(CALLS) * 10_000n)
  }, 60_000)

  afterAll(async () => {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL')
    await anvil?.stop()
    const admin = new pg.Client({ connectionString: DATABASE_URL })
    await admin.connect()
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
    rmSync(dataDir, { recursive: true, force: true })
  })

  /** Starts the service and resolves once it listens; its stdout is kept for diagnosis. */
  async function startService(port: number) {
    const child = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? tmpdir(),
        PORT: String(port),
        BASE_RPC_URL: anvil.rpcUrl,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        PAY_TO_ADDRESS: payTo,
        FACILITATOR: 'builtin',
        SETTLEMENT_PRIVATE_KEY: settlementKey,
        RECEIPT_PRIVATE_KEY: receiptKey,
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
        DATA_DIR: dataDir,
        // Settlements wait for their receipt (up to a minute) instead of giving up.
        FACILITATOR_TIMEOUT_MS: '60000',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    running.push(child)
    let output = ''
    child.stdout?.on('data', (c: Buffer) => {
      output += c.toString()
    })
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString()
    })
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (output.includes('pre-send-guard listening')) {
          clearInterval(timer)
          resolve()
        }
      }, 50)
      child.once('exit', (code, signal) => {
        clearInterval(timer)
        reject(new Error(`service exited (${code ?? signal}) before listening:\n${output}`))
      })
      setTimeout(() => {
        clearInterval(timer)
        reject(new Error(`service not listening within 30 s:\n${output}`))
      }, 30_000).unref()
    })
    return { child, output: () => output }
  }

  it('restarts into every retry answered 200 with a receipt within 30 s, and ledger = chain', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/simulate/transaction-preflight`
    const first = await startService(port)
    const post = (header?: string) =>
      contractFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(header ? { 'PAYMENT-SIGNATURE': header } : {}),
        },
        body: JSON.stringify(EXAMPLE_BODY),
        signal: AbortSignal.timeout(20_000),
      })

    // Twenty payments, signed by a stock x402 client against the service's own challenge.
    const challenge = await post()
    expect(challenge.status).toBe(402)
    const offer = decodePaymentRequiredHeader(challenge.headers.get('PAYMENT-REQUIRED') ?? '')
    const client = new x402Client().register(
      'eip155:8453',
      new ExactEvmClientScheme(
        toClientEvmSigner(
          buyer,
          createPublicClient({ chain: base, transport: http(anvil.rpcUrl) }),
        ),
      ),
    )
    const headers: string[] = []
    for (let i = 0; i < CALLS; i++) {
      headers.push(encodePaymentSignatureHeader(await client.createPaymentPayload(offer)))
    }
    const [payToBefore = 0n] = await usdcBalances(chain, payTo)

    // Settlements sit in the mempool: every call waits for its receipt when the kill comes.
    const test = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
    await test.setAutomine(false)
    let answered = 0
    const inFlight = headers.map((header) =>
      post(header).then(
        async (r) => {
          answered++
          return `${r.status} ${((await r.json()) as { error?: string }).error}`
        },
        () => 'lost',
      ),
    )
    // Every call has either sent its settlement (in the mempool) or answered.
    await waitUntil(async () => {
      const status = await chain.request({ method: 'txpool_status' as never })
      return Number((status as { pending: Hex }).pending) >= CALLS - answered
    }, 45_000).catch((error: Error) => {
      throw new Error(`${error.message}; service said:\n${first.output().slice(-4000)}`)
    })
    first.child.kill('SIGKILL')
    // Cut off mid-settle; on a loaded machine a call may have been told its settlement is
    // pending (a slow broadcast answer) or the RPC is down (nothing sent): never a result
    // without a receipt, never "nothing was charged" for a sent settlement.
    for (const outcome of await Promise.all(inFlight)) {
      expect(['lost', '503 settlement_pending', '503 rpc_unavailable']).toContain(outcome)
    }

    // The chain mines what the dead instance sent: every buyer is charged...
    await test.mine({ blocks: 1 })
    await test.setAutomine(true)
    let charged = 0
    for (const header of headers) {
      charged += (await settlementsOf(chain, buyer.address, nonceOf(header))).length
    }
    expect(charged).toBeGreaterThanOrEqual(CALLS - answered)
    // ...while the ledger only knows the payments were being settled.
    const admin = new pg.Client({ connectionString: DATABASE_URL })
    await admin.connect()
    try {
      const { rows } = await admin.query<{ status: string; n: string }>(
        `SELECT status, count(*) AS n FROM "${schema}".payments GROUP BY status`,
      )
      // (settle_pending or failed-retryable for a call answered above)
      expect(rows.filter((r) => r.status === 'settled')).toEqual([])
      expect(rows.reduce((n, r) => n + Number(r.n), 0)).toBeLessThanOrEqual(CALLS)
    } finally {
      await admin.end()
    }

    const restarted = Date.now()
    await startService(port)
    const answers = await Promise.all(
      headers.map(async (header) => {
        for (;;) {
          const res = await post(header).catch(() => undefined)
          if (res?.status === 200) {
            return (await res.json()) as { result: unknown; receipt: Record<string, string> }
          }
          await res?.body?.cancel()
          if (Date.now() - restarted > 30_000) throw new Error(`still ${res?.status} after 30 s`)
          await new Promise((resolve) => setTimeout(resolve, 500))
        }
      }),
    )
    const recoveredMs = Date.now() - restarted
    expect(recoveredMs).toBeLessThan(30_000)

    // Each answer names the transaction that charged its buyer, and nothing was sent twice.
    for (const [i, header] of headers.entries()) {
      const txs = await settlementsOf(chain, buyer.address, nonceOf(header))
      expect(txs).toHaveLength(1)
      expect(answers[i]?.receipt).toMatchObject({ settlementTx: txs[0], payTo, amount: '10000' })
      expect(answers[i]?.result).toBeDefined()
    }
    const [payToAfter = 0n] = await usdcBalances(chain, payTo)
    expect(payToAfter - payToBefore).toBe(BigInt(CALLS) * 10_000n)
    const check = new pg.Client({ connectionString: DATABASE_URL })
    await check.connect()
    try {
      const { rows } = await check.query<{ status: string; n: string; total: string }>(
        `SELECT status, count(*) AS n, sum(amount)::text AS total FROM "${schema}".payments GROUP BY status`,
      )
      expect(rows).toEqual([
        { status: 'settled', n: String(CALLS), total: (payToAfter - payToBefore).toString() },
      ])
    } finally {
      await check.end()
    }
    console.info(`crash recovery: ${CALLS} payments answered ${recoveredMs} ms after restart`)
  }, 120_000)
})

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
