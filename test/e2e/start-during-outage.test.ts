import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestClient, http } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AnvilInstance, startAnvil } from '../../src/adapters/devnet/anvil.js'
import { prepareDevnet } from '../../src/adapters/devnet/prepare.js'
import { EXAMPLE_BODY } from '../payment/paid-stack.js'
import { type GuardProcess, spawnGuard } from '../support/guard-process.js'
import { freePort } from '../support/net.js'
import { DATABASE_URL, postgresAvailable } from '../support/postgres.js'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js'

// An instance started while its RPC or its database is down keeps trying and says it is not
// ready (issue 28), instead of exiting: /healthz 200, /readyz 503 not_ready, every route 503
// service_starting with Retry-After; once the dependency answers it starts as usual.

const havePostgres = await postgresAvailable()
const PATH = '/payanagent/v1/base-transaction-preflight'
let anvil: AnvilInstance
const guards: GuardProcess[] = []
const dirs: string[] = []

beforeAll(async () => {
  anvil = await startAnvil()
  await prepareDevnet(anvil.rpcUrl)
}, 60_000)

afterAll(async () => {
  await Promise.all(guards.map((g) => g.stop()))
  await anvil?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function mainnetInstance(env: Record<string, string>) {
  const port = await freePort()
  const settlementKey = generatePrivateKey()
  await createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) }).setBalance({
    address: privateKeyToAddress(settlementKey),
    value: 10n ** 20n,
  })
  const dataDir = mkdtempSync(join(tmpdir(), 'psg-outage-'))
  dirs.push(dataDir)
  const guard = spawnGuard({
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    PAY_TO_ADDRESS: privateKeyToAddress(generatePrivateKey()),
    FACILITATOR: 'builtin',
    SETTLEMENT_PRIVATE_KEY: settlementKey,
    RECEIPT_PRIVATE_KEY: generatePrivateKey(),
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'info',
    ...env,
  })
  guards.push(guard)
  return { guard, url: `http://127.0.0.1:${port}` }
}

const waiting = (line: Record<string, unknown>) =>
  String(line.msg).includes('is not reachable at start-up; retrying')
const listening = (line: Record<string, unknown>) =>
  String(line.msg).startsWith('pre-send-guard listening')

/** While it waits: alive, not ready, every route a retryable 503; never exited. */
async function expectStarting(url: string, guard: GuardProcess) {
  await guard.waitForLine(waiting, 30_000)
  const health = await fetch(`${url}/healthz`)
  expect(health.status).toBe(200)
  const ready = await fetch(`${url}/readyz`)
  expect(ready.status).toBe(503)
  expect(ready.headers.get('retry-after')).toBe('5')
  expect(ready.headers.get('x-content-type-options')).toBe('nosniff')
  expect(await ready.json()).toMatchObject({
    error: 'not_ready',
    status: 'not_ready',
    checks: { startup: { ok: false } },
  })
  const preflight = await fetch(`${url}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(EXAMPLE_BODY),
  })
  expect(preflight.status).toBe(503)
  expect(((await preflight.json()) as { error: string }).error).toBe('service_starting')
  expect(guard.lines().some((l) => l.level === 60)).toBe(false)
}

/**
 * Once the dependency answers: listening, ready, and answering preflights. A lone preflight is
 * never shed for the loop's lag, not even from a process just started on a busy machine whose
 * loop is still late from start-up (src/http/preflight-admission.ts, `shedReason`).
 */
async function expectServing(url: string, guard: GuardProcess) {
  await guard.waitForLine(listening, 60_000)
  expect((await fetch(`${url}/readyz`)).status).toBe(200)
  const preflight = await fetch(`${url}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(EXAMPLE_BODY),
  })
  expect(`${preflight.status} ${await preflight.text()}`).toMatch(/^200 /)
}

describe('an instance started during an outage', () => {
  let rpc: TcpProxy | undefined
  afterAll(async () => {
    await rpc?.close()
  })

  it('of its RPC waits, says it is not ready, then starts when the RPC answers', async () => {
    rpc = await startTcpProxy(Number(new URL(anvil.rpcUrl).port))
    await rpc.down()
    const { guard, url } = await mainnetInstance({ BASE_RPC_URL: rpc.url })
    await expectStarting(url, guard)
    await rpc.up()
    await expectServing(url, guard)
  }, 90_000)

  // Refused (the server is down), or accepted and closed at once without a byte (a pooler or
  // load balancer whose server is gone, or a cut in the middle of start-up: `pg` says
  // "Connection terminated unexpectedly", with no code).
  it.runIf(havePostgres).each([
    { outage: 'refuses connections', cut: (db: TcpProxy) => db.down(), reason: 'ECONNREFUSED' },
    {
      outage: 'hangs up on every connection',
      cut: (db: TcpProxy) => db.hangUp(),
      reason: 'Connection terminated unexpectedly',
    },
  ])(
    'of its database that $outage waits, says it is not ready, then starts when PostgreSQL answers',
    async ({ cut, reason }) => {
      const pgUrl = new URL(DATABASE_URL)
      const db = await startTcpProxy(Number(pgUrl.port || 5432), pgUrl.hostname)
      try {
        await cut(db)
        pgUrl.port = String(db.port)
        const { guard, url } = await mainnetInstance({
          BASE_RPC_URL: anvil.rpcUrl,
          DATABASE_URL: pgUrl.href,
          DATABASE_SCHEMA: `test_outage_${randomBytes(6).toString('hex')}`,
        })
        await expectStarting(url, guard)
        const waited = guard.lines().find(waiting)
        expect(waited).toMatchObject({ waitingFor: 'the ledger database' })
        expect(String(waited?.reason)).toContain(reason)
        await db.up()
        await expectServing(url, guard)
      } finally {
        await db.close()
      }
    },
    90_000,
  )
})
