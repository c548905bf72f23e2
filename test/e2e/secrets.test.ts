import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import { createPublicClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil } from '../../src/adapters/devnet/anvil.js'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { PAGE_PATHS } from '../../src/routes/pages.js'
import { startHttpFacilitator } from '../payment/http-facilitator.js'
import { builtinFacilitator } from '../payment/paid-stack.js'
import { startFakeReader } from '../support/fake-reader.js'
import { type GuardProcess, spawnGuard } from '../support/guard-process.js'
import { freePort } from '../support/net.js'
import { contractFetch } from '../support/openapi-contract.js'
import { startPasswordRefusingPostgres } from '../support/password-refusing-postgres.js'
import { DATABASE_URL, postgresAvailable } from '../support/postgres.js'
import { basicAuth, startSecretGate } from '../support/secret-gate.js'

/**
 * Issue 15, item 2: every secret the configuration can hold is set to a recognisable value,
 * the real service runs as a process in mainnet mode against loopback stand-ins that demand
 * those secrets (an RPC, a facilitator and a reader behind "provider" front doors that check
 * the path key, the query and the credentials, and echo them back in their errors), every
 * route is driven, upstreams are made to fail, starts are made to fail, and every response
 * body, every response header (PAYMENT-* decoded) and every byte the process printed is
 * searched for every secret.
 */

// Every secret carries the marker S3CRET, except what cannot: hex keys and Basic base64.
const RPC = {
  user: 'rpcuser',
  pass: 'S3CRET-RPC-PASS',
  key: 'S3CRET-RPC-PATH-KEY1',
  query: 'key=S3CRET-RPC-QUERY',
}
const FAC = { user: 'facuser', pass: 'S3CRET-FAC-PASS', key: 'S3CRET-FAC-PATH-KEY2' }
const READER = {
  user: 'readeruser',
  pass: 'S3CRET-READER-PASS',
  key: 'S3CRET-READER-PATH-KEY3',
  query: 'token=S3CRET-READER-QUERY',
  apiKey: 'S3CRET-READER-API-KEY',
}
const DB_PASS = 'S3CRET-DB-PASS'
const SETTLEMENT_KEY = `0x${'5e771e00'.repeat(8)}` as const
const RECEIPT_KEY = `0x${'ec1e1b70'.repeat(8)}` as const
const PAY_TO = '0x1111111111111111111111111111111111111111'

/** Every form a secret could leak in; hex keys in any case, with or without 0x. */
const LEAK_PATTERNS: RegExp[] = [
  /S3CRET/i,
  new RegExp(SETTLEMENT_KEY.slice(2), 'i'),
  new RegExp(RECEIPT_KEY.slice(2), 'i'),
  ...[
    [RPC.user, RPC.pass],
    [FAC.user, FAC.pass],
    [READER.user, READER.pass],
  ].map(([user, pass]) => new RegExp(basicAuth(user ?? '', pass ?? '').slice('Basic '.length))),
]

function leaksIn(text: string): string[] {
  return LEAK_PATTERNS.filter((pattern) => pattern.test(text)).map(String)
}

/** One HTTP exchange as seen from outside: status, every header, the body. */
interface Seen {
  what: string
  status: number
  headers: Record<string, string>
  body: string
}

describe('no secret reaches a response or a log line', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'psg-secrets-'))
  const seen: Seen[] = []
  const processes: { name: string; guard: GuardProcess }[] = []
  let devnet: Devnet
  let rpcGate: Awaited<ReturnType<typeof startSecretGate>>
  let facGate: Awaited<ReturnType<typeof startSecretGate>>
  let readerGate: Awaited<ReturnType<typeof startSecretGate>>
  let facilitator: Awaited<ReturnType<typeof startHttpFacilitator>>
  let reader: Awaited<ReturnType<typeof startFakeReader>>
  let withPostgres = false

  const rpcUrl = (port: number) =>
    `http://${RPC.user}:${RPC.pass}@127.0.0.1:${port}/v2/${RPC.key}?${RPC.query}`

  /** The whole secret configuration, mainnet mode. */
  const secretEnv = (port: number): Record<string, string> => ({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'trace',
    DATA_DIR: dataDir,
    BASE_RPC_URL: rpcUrl(rpcGate.port),
    RPC_TIMEOUT_MS: '3000',
    PAY_TO_ADDRESS: PAY_TO,
    FACILITATOR: 'url',
    FACILITATOR_URL: `http://${FAC.user}:${FAC.pass}@127.0.0.1:${facGate.port}/v2/${FAC.key}`,
    FACILITATOR_TIMEOUT_MS: '5000',
    CDP_API_KEY_ID: 'S3CRET-CDP-KEY-ID',
    CDP_API_KEY_SECRET: 'S3CRET-CDP-KEY-SECRET',
    SETTLEMENT_PRIVATE_KEY: SETTLEMENT_KEY,
    RECEIPT_PRIVATE_KEY: RECEIPT_KEY,
    READER_BASE_URL: `http://${READER.user}:${READER.pass}@127.0.0.1:${readerGate.port}/v1/${READER.key}?${READER.query}`,
    READER_API_KEY: READER.apiKey,
    READER_TIMEOUT_MS: '5000',
    ...(withPostgres ? { DATABASE_URL: withPassword(DATABASE_URL, DB_PASS) } : {}),
  })

  beforeAll(async () => {
    withPostgres = await postgresAvailable()
    devnet = await startDevnet()
    facilitator = await startHttpFacilitator(builtinFacilitator(devnet.rpcUrl).client)
    reader = await startFakeReader()
    rpcGate = await startSecretGate({
      upstream: devnet.rpcUrl,
      prefix: `/v2/${RPC.key}`,
      query: RPC.query,
      authorization: basicAuth(RPC.user, RPC.pass),
    })
    facGate = await startSecretGate({
      upstream: facilitator.url,
      prefix: `/v2/${FAC.key}`,
      query: '',
      authorization: basicAuth(FAC.user, FAC.pass),
      // /supported fails (echoing the secrets) until the test says otherwise.
      mode: (path) => (path === '/supported' ? 'echo' : 'forward'),
    })
    readerGate = await startSecretGate({
      upstream: reader.baseUrl,
      prefix: `/v1/${READER.key}`,
      query: READER.query,
      // The API key wins over the userinfo.
      authorization: `Bearer ${READER.apiKey}`,
    })
  }, 60_000)

  afterAll(async () => {
    for (const { guard } of processes) await guard.stop(1_000).catch(() => undefined)
    await Promise.all([rpcGate?.close(), facGate?.close(), readerGate?.close()])
    await Promise.all([facilitator?.close(), reader?.close()])
    await devnet?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('serves every route, with upstreams failing, and leaks nothing', async () => {
    const port = await freePort()
    const guard = spawnGuard(secretEnv(port))
    processes.push({ name: 'serving', guard })
    await guard.waitForLine((l) => String(l.msg).includes('listening'), 60_000)
    const baseUrl = `http://127.0.0.1:${port}`
    const call = async (what: string, path: string, init: RequestInit = {}) => {
      const res = await contractFetch(`${baseUrl}${path}`, { redirect: 'manual', ...init })
      const headers: Record<string, string> = {}
      res.headers.forEach((value, name) => {
        headers[name] = value
      })
      for (const name of ['payment-required', 'payment-response']) {
        const value = headers[name]
        if (value) headers[`${name} (decoded)`] = Buffer.from(value, 'base64').toString('utf8')
      }
      const entry = { what, status: res.status, headers, body: await res.text() }
      seen.push(entry)
      return entry
    }
    const post = (
      what: string,
      path: string,
      body: unknown,
      headers: Record<string, string> = {},
    ) =>
      call(what, path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
    const tx = {
      from: DEVNET_ACCOUNTS.buyer.address,
      to: PAY_TO,
      data: '0x',
      value: '0x0',
      chainId: '0x2105',
    }

    // Public documents.
    expect((await call('healthz', '/healthz')).status).toBe(200)
    expect((await call('root', '/')).status).toBe(302)
    for (const page of PAGE_PATHS) expect((await call(page, page)).status).toBe(200)
    expect((await call('openapi', '/openapi.json')).status).toBe(200)
    const discovery = await call('discovery', '/.well-known/x402')
    expect(discovery.status).toBe(200)
    expect((await call('404', '/no/such/route')).status).toBe(404)
    expect((await call('receipt 404', `/receipts/0x${'0'.repeat(64)}`)).status).toBe(404)

    // The free preflight, through the RPC's front door (path key, query and Basic credentials).
    const free = '/payanagent/v1/base-transaction-preflight'
    expect((await post('free preflight', free, tx)).status).toBe(200)
    expect((await post('free preflight 422', free, { ...tx, to: 'nope' })).status).toBe(422)
    expect((await post('free preflight bad json', free, '{')).status).toBe(422)

    // Evidence, through the reader's front door; then the reader failing with an echo.
    const evidence = '/payanagent/v1/public-page-evidence'
    expect((await post('evidence', evidence, { url: 'https://example.com/' })).status).toBe(200)
    expect((await post('evidence 422', evidence, { url: 'http://127.0.0.1/' })).status).toBe(422)
    reader.replies.set('https://example.com/echo', {
      kind: 'error',
      status: 500,
      message: `reader saw /v1/${READER.key}?${READER.query} with Bearer ${READER.apiKey}`,
    })
    const readerDown = await post('evidence reader echo', evidence, {
      url: 'https://example.com/echo',
    })
    expect(readerDown.status).toBe(502)
    expect(readerDown.body).toContain('[REDACTED]')

    // The unpaid 402, once the facilitator's /supported (failing with an echo) was checked.
    const paid = '/simulate/transaction-preflight'
    let unpaid = await post('unpaid 402', paid, tx)
    for (
      let i = 0;
      i < 100 && JSON.parse(unpaid.body).settlement.railReadiness.facilitator.checkedAt === null;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100))
      unpaid = await post('unpaid 402', paid, tx)
    }
    expect(unpaid.status).toBe(402)
    expect(unpaid.headers['payment-required']).toBeDefined()
    const readiness = JSON.parse(unpaid.body).settlement.railReadiness
    // Named by origin only; the failure is reported, scrubbed.
    expect(readiness.facilitator).toMatchObject({
      kind: 'url',
      url: `http://127.0.0.1:${facGate.port}`,
      supportsExactBase: false,
    })
    expect(readiness.facilitator.error).toContain('[REDACTED]')
    expect(JSON.parse(discovery.body).settlement.railReadiness.facilitator.url).toBe(
      `http://127.0.0.1:${facGate.port}`,
    )
    expect((await post('paid 422', paid, { ...tx, data: 'zz' })).status).toBe(422)
    expect(
      (await post('garbage payment', paid, tx, { 'PAYMENT-SIGNATURE': 'bm90IGEgcGF5bWVudA==' }))
        .status,
    ).toBe(402)

    // Real payments by the devnet buyer: the facilitator fails /verify, then /settle, echoing.
    const offer = decodePaymentRequiredHeader(unpaid.headers['payment-required'] ?? '')
    const buyer = privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey)
    const x402 = new x402Client().register(
      'eip155:8453',
      new ExactEvmClientScheme(
        toClientEvmSigner(
          buyer,
          createPublicClient({ chain: base, transport: http(devnet.rpcUrl) }),
        ),
      ),
    )
    const pay = async () => encodePaymentSignatureHeader(await x402.createPaymentPayload(offer))
    facGate.setMode((path) => (path === '/supported' || path === '/verify' ? 'echo' : 'forward'))
    const verifyDown = await post('verify echo', paid, tx, { 'PAYMENT-SIGNATURE': await pay() })
    expect(verifyDown.status).toBe(502)
    expect(verifyDown.body).toContain('[REDACTED]')
    facGate.setMode((path) => (path === '/settle' ? 'echo' : 'forward'))
    const settleDown = await post('settle echo', paid, tx, { 'PAYMENT-SIGNATURE': await pay() })
    // The settle outcome is unknown (the request may have reached it): pending, for the chain.
    expect(settleDown.status).toBe(503)
    expect(JSON.parse(settleDown.body).error).toBe('settlement_pending')

    // A payment that goes through: 200 with PAYMENT-RESPONSE and a receipt, then the receipt.
    facGate.setMode(() => 'forward')
    const settled = await post('paid 200', paid, tx, { 'PAYMENT-SIGNATURE': await pay() })
    expect(settled.status, settled.body).toBe(200)
    expect(settled.headers['payment-response']).toBeDefined()
    const receiptId = JSON.parse(settled.body).receipt.id as string
    expect((await call('receipt', `/receipts/${receiptId}`)).status).toBe(200)

    // The RPC failing: an echoing 500, garbage, then a host that refuses connections.
    rpcGate.setMode(() => 'echo')
    expect((await post('rpc echo', free, tx)).status).toBe(503)
    rpcGate.setMode(() => 'garbage')
    expect((await post('rpc garbage', free, tx)).status).toBe(503)
    const gatePort = rpcGate.port
    await rpcGate.close()
    const refused = await post('rpc refused', free, tx)
    expect(refused.status).toBe(503)
    expect(gatePort).toBeGreaterThan(0)

    await guard.stop()

    // The service really used every secret: each front door accepted it and refused nothing.
    expect(rpcGate.stats.refused).toEqual([])
    expect(rpcGate.stats.forwarded).toBeGreaterThan(0)
    expect(facGate.stats.refused).toEqual([])
    expect(facGate.stats.forwarded).toBeGreaterThan(0)
    expect(facGate.stats.echoed).toBeGreaterThan(0)
    expect(readerGate.stats.refused).toEqual([])
    expect(readerGate.stats.forwarded).toBeGreaterThan(0)
    // The upstreams' echoes reached the logs, scrubbed: the redaction had something to do.
    expect(guard.stdout()).toContain('[REDACTED]')
    // Not a terminal: JSON lines only, library output included.
    expect(guard.lines().filter((line) => 'raw' in line)).toEqual([])

    for (const entry of seen) {
      expect(leaksIn(entry.body), `${entry.what} body`).toEqual([])
      expect(leaksIn(JSON.stringify(entry.headers)), `${entry.what} headers`).toEqual([])
    }
    expect(leaksIn(guard.stdout()), guard.stdout()).toEqual([])
    expect(leaksIn(guard.stderr()), guard.stderr()).toEqual([])
  }, 180_000)

  it('waits or fails to start without a trace of a secret: dead RPC, echoing RPC, dead or password-refusing ledger, bad config', async () => {
    const deadPort = await freePort()
    const echoing = await startSecretGate({
      upstream: devnet.rpcUrl,
      prefix: `/v2/${RPC.key}`,
      query: RPC.query,
      authorization: basicAuth(RPC.user, RPC.pass),
      mode: () => 'echo',
    })
    const refusingPostgres = await startPasswordRefusingPostgres()
    // The shared RPC front door was closed by the first test: the ledger cases need a live one.
    const forwarding = await startSecretGate({
      upstream: devnet.rpcUrl,
      prefix: `/v2/${RPC.key}`,
      query: RPC.query,
      authorization: basicAuth(RPC.user, RPC.pass),
    })
    try {
      const starts = await Promise.all(
        [
          // An RPC or a database that does not answer is waited for (issue 28): the instance
          // says it is starting, and what it logs meanwhile names no secret either.
          { name: 'dead RPC', env: { BASE_RPC_URL: rpcUrl(deadPort) }, code: 'waits' },
          { name: 'echoing RPC', env: { BASE_RPC_URL: rpcUrl(echoing.port) }, code: 'waits' },
          {
            name: 'dead ledger',
            env: {
              BASE_RPC_URL: rpcUrl(forwarding.port),
              DATABASE_URL: `postgres://postgres:${DB_PASS}@127.0.0.1:${deadPort}/S3CRET-DB-NAME?password=S3CRET-DB-QUERY`,
            },
            code: 'waits',
          },
          {
            name: 'wrong ledger password',
            env: {
              BASE_RPC_URL: rpcUrl(forwarding.port),
              DATABASE_URL: `postgres://postgres:${DB_PASS}@127.0.0.1:${refusingPostgres.port}/ledger`,
            },
            code: 1,
          },
          {
            name: 'query in FACILITATOR_URL',
            env: {
              FACILITATOR_URL: `http://${FAC.user}:${FAC.pass}@127.0.0.1:${facGate.port}/v2/${FAC.key}?key=S3CRET-FAC-QUERY`,
            },
            code: 2,
          },
        ].map(async ({ name, env, code }) => {
          const guard = spawnGuard({ ...secretEnv(await freePort()), ...env })
          processes.push({ name, guard })
          if (code === 'waits') {
            // Waiting, not exiting: its warning line, then a stop.
            const waited = await guard
              .waitForLine((l) => String(l.msg).includes('not reachable at start-up'), 60_000)
              .then(
                () => 'waits',
                () => 'no waiting line',
              )
            await guard.stop()
            return { name, code, exitCode: waited, guard }
          }
          const exitCode = await Promise.race([
            guard.exited,
            new Promise<string>((r) => setTimeout(() => r('still running'), 60_000)),
          ])
          return { name, code, exitCode, guard }
        }),
      )
      for (const { name, code, exitCode, guard } of starts) {
        const output = `${guard.stdout()}\n${guard.stderr()}`
        expect(exitCode, `${name}:\n${output}`).toBe(code)
        expect(leaksIn(guard.stdout()), `${name} stdout:\n${guard.stdout()}`).toEqual([])
        expect(leaksIn(guard.stderr()), `${name} stderr:\n${guard.stderr()}`).toEqual([])
      }
      const [deadRpc, echoingRpc, deadLedger, wrongPassword, badConfig] = starts.map((s) => s.guard)
      const fatal = (guard: GuardProcess | undefined) => guard?.lines().find((l) => l.level === 60)
      const waiting = (guard: GuardProcess | undefined) =>
        guard?.lines().find((l) => String(l.msg).includes('not reachable at start-up'))
      // Says what it waits for and where, by origin.
      expect(waiting(deadRpc)).toMatchObject({
        waitingFor: `the Base RPC (http://127.0.0.1:${deadPort})`,
      })
      expect(waiting(echoingRpc)).toBeDefined()
      expect(String(waiting(deadLedger)?.waitingFor)).toBe('the ledger database')
      // The password really went to the server, which refused it; the log says so, without it.
      expect(refusingPostgres.passwords).toContain(DB_PASS)
      expect(JSON.stringify(fatal(wrongPassword))).toMatch(/password authentication failed/)
      expect(badConfig?.stderr()).toMatch(/FACILITATOR_URL: must not have a query string/)
    } finally {
      await Promise.all([echoing.close(), forwarding.close(), refusingPostgres.close()])
    }
  }, 120_000)

  it('on a terminal, prints readable lines (pino-pretty), scrubbed as well', async () => {
    // `script` gives the service a pseudo-terminal as stdout, as an operator's shell does. An RPC
    // of another chain is a fatal start-up error, printed as such.
    const other = await startAnvil({ chainId: 1 })
    const env = { ...secretEnv(0), BASE_RPC_URL: other.rpcUrl }
    const command = [TSX, 'src/main.ts'].map((a) => `'${a}'`).join(' ')
    let output = ''
    try {
      output = execFileSync('script', ['-qfec', command, '/dev/null'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
        encoding: 'utf8',
        timeout: 60_000,
      })
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? '')
    } finally {
      await other.stop()
    }
    expect(output).toMatch(/FATAL/)
    expect(output).toMatch(/not Base mainnet/)
    // Not JSON lines.
    expect(output.split('\n').some((line) => line.startsWith('{"level"'))).toBe(false)
    expect(leaksIn(output), output).toEqual([])
    if (process.env.SHOW_PRETTY) console.log(output)
  }, 90_000)
})

const ROOT = new URL('../..', import.meta.url).pathname
const TSX = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname

function withPassword(url: string, password: string): string {
  const parsed = new URL(url)
  parsed.password = password
  return parsed.href
}
