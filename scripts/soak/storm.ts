import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import pg from 'pg'
import {
  type Address,
  createPublicClient,
  createTestClient,
  erc20Abi,
  type Hex,
  http,
  parseAbiItem,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { base } from 'viem/chains'
import { type AnvilInstance, startAnvil } from '../../src/adapters/devnet/anvil.js'
import { mintDevnetUsdc, prepareDevnet, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { createFacilitator } from '../../src/adapters/facilitator/facilitator-client.js'
import { UNVERIFIED_GRACE_SECONDS } from '../../src/domain/payment/prune-unverified.js'
import { DEFAULT_SETTLEMENT_GAS_CEILING } from '../../src/domain/payment/settlement-cost.js'
import type { Receipt } from '../../src/domain/receipt/receipt.js'
import { startHttpFacilitator } from '../../test/payment/http-facilitator.js'
import { startFaultyRpc } from '../../test/support/faulty-rpc.js'
import { type GuardProcess, spawnGuard } from '../../test/support/guard-process.js'
import { freePort } from '../../test/support/net.js'
import { DATABASE_URL } from '../../test/support/postgres.js'
import { startTcpProxy, type TcpProxy } from '../../test/support/tcp-proxy.js'
import {
  deployHostilePayers,
  type ForgeryKind,
  type FrontRun,
  forgedPayment,
  frontRunSettlement,
  type HostilePayer,
  newPaymentIdentifier,
  paymentWithIdentifier,
} from './attackers.js'
import { checkInvariants, checkKillRecovery, everyInstanceDown } from './invariants.js'
import { type Fault, type HostileRole, mulberry32, stormSchedule } from './schedule.js'
import { readSettlerTransactions } from './settler-transactions.js'
import type {
  CallRecord,
  ChainTransfer,
  ForgedCall,
  InvariantResult,
  KillRecord,
  LedgerRow,
  OutageRecord,
  PaymentRecord,
} from './soak-records.js'

/** What a soak run does; every field has a default in {@link LONG_SOAK}. */
export interface SoakOptions {
  seed: number
  /** Seconds of load (faults fall inside it). */
  seconds: number
  instances: number
  buyers: number
  kills: number
  dbCuts: number
  errorBursts: number
  hangBursts: number
  blackouts: number
  blackoutMs: number
  /**
   * The last this many instances pay through a facilitator at a URL (a separate HTTP service,
   * `FACILITATOR=url`, the built-in facilitator behind it with its own settlement key) instead
   * of their own built-in one (default 0).
   */
  httpFacilitatorInstances?: number
  /** Bursts (8 s) in which that facilitator stalls 30 % of its calls past the timeout. */
  facilitatorStalls?: number
  /**
   * Floods of forged payments (default 0): two client identities each, every forgery naming a
   * real payer under a signature it never made, the first ones squatting honest buyers' next
   * payment-identifiers (docs/soak.md).
   */
  forgedFloods?: number
  /**
   * Payments each hostile payer attempts (default 0: none deployed): a gas-price-gated
   * wallet, gas burners over and under the ceiling, a wallet whose owner front-runs its
   * settlement (contracts/test/PayerWallets.sol).
   */
  hostilePayments?: number
  /** Share of every RPC call that errors during the load, outside bursts and blackouts. */
  baselineErrorRate: number
  /** Bound on the recovery after the storm heals, in seconds. */
  recoverySeconds: number
  /**
   * First of 60 loopback ports the run uses (anvil, instances, proxies); without it every
   * port is one the OS says is free (two runs at once never collide).
   */
  basePort?: number
  /** Each instance's owner lease, `PAYMENT_LEASE_MS` (ms). */
  leaseMs: number
  /**
   * The lease the instances are really given, when it must differ from `leaseMs` (which the
   * kill bound assumes): to show the bound bites, run with a longer one (docs/soak.md).
   */
  instanceLeaseMs?: number
  /**
   * Slack on top of one lease and one block for a cut-off payment's answer: the paid call's
   * own work once it takes the payment over (verify, preflight, settle, confirm) and the
   * buyer's pause before its retry (ms; see docs/soak.md).
   */
  workMs: number
  /**
   * Ceiling on the work allowance (ms): the run's paid p99 may widen it from `workMs` up to
   * this, no further, so a slowness that hits every paid call cannot loosen the bound without
   * limit. Must leave the bound under two leases (checked): a payment that waits out a second
   * lease, the kind of defect the bound is there to catch, always breaks it.
   */
  maxWorkMs: number
  /** Where each instance's log is written at the end (default: nowhere). */
  logDir?: string
  /** Progress lines (default: none). */
  log?: (line: string) => void
}

/** The long storm of `npm run soak`: issue 28's shape. */
export const LONG_SOAK: SoakOptions = {
  seed: 1,
  seconds: 180,
  instances: 2,
  buyers: 24,
  kills: 6,
  dbCuts: 3,
  errorBursts: 3,
  hangBursts: 2,
  blackouts: 1,
  blackoutMs: 10_000,
  httpFacilitatorInstances: 1,
  facilitatorStalls: 2,
  forgedFloods: 3,
  hostilePayments: 3,
  baselineErrorRate: 0.02,
  recoverySeconds: 90,
  basePort: 18800,
  leaseMs: 15_000,
  workMs: 3_000,
  maxWorkMs: 10_000,
}

/** A run's outcome: the counts, the faults injected, each invariant's verdict. */
export interface SoakReport {
  ok: boolean
  options: Omit<SoakOptions, 'log'>
  results: InvariantResult[]
  lines: string[]
}

const PRICE = 10_000n
const PAID_PATH = '/simulate/transaction-preflight'
const FREE_PATH = '/payanagent/v1/base-transaction-preflight'
const NON_FINAL = new Set([408, 409, 429, 502, 503])
const authorizationUsed = parseAbiItem(
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
)
const transferEvent = parseAbiItem(
  'event Transfer(address indexed from, address indexed to, uint256 value)',
)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** anvil's block interval in the storm (ms): a block every second. */
const BLOCK_MS = 1_000
/** FACILITATOR_TIMEOUT_MS of the instances on the HTTP facilitator; its stalls last longer. */
const FACILITATOR_TIMEOUT_MS = 3_000
const FACILITATOR_STALL_MS = 5_000

/**
 * The instances' rate limit on the paid route and the free ones, per client: a client is named
 * by `x-forwarded-for` (the header a proxy in front appends), so each buyer is its own
 * non-loopback client. Lower than the defaults (600 a minute, bursts of 120), so that a flood
 * of forgeries whose verify each takes a second on the loaded machine still outruns the refill;
 * a buyer's counted calls (unpaid ones, read-only preflights, paid ones until verified) come
 * at most about 1.5 a second over both instances, 300 ms apart at least: under the refill of 2.
 */
const RATE_LIMIT = { perMinute: 120, burst: 30 } as const
const CLIENT_HEADER = 'x-forwarded-for'
/** How long a flood may go on sending forgeries that no app answered (ms). */
const FLOOD_MAX_MS = 30_000
/** How long a forged authorization stays valid (s): the attacker's choice, short to see pruned. */
const FORGED_VALID_SECONDS = 20
/** A row that never verified may outlive its `validBefore` by the prune's grace and two reconciler passes (5 s each). */
const PRUNE_WINDOW_SECONDS = UNVERIFIED_GRACE_SECONDS + 10
/** Each hostile payer's USDC (atomic units): enough for every payment it attempts. */
const HOSTILE_USDC = 1000n * PRICE

/** Who pays: an honest buyer or a hostile payer, the client it calls as, and its next id. */
interface Payer {
  address: Address
  client: x402Client
  /** Its client address, as the proxy in front names it (`x-forwarded-for`). */
  identity: string
  role?: HostileRole
  /** The payment-identifier of its next payment, drawn ahead (a flood may squat it). */
  nextIdentifier: string
}

/** A body with the devnet buyer's 0-value transfer: always a "sign" verdict. */
function exampleBody(from: Address, to: Address) {
  return { chainId: '0x2105', from, to, data: '0x', value: '0x0' }
}

/**
 * Runs one seeded storm against real processes and judges it: anvil mining every second, K
 * mainnet-mode instances (own settlement and receipt keys) on one PostgreSQL schema, each
 * through its own database TCP proxy and JSON-RPC fault proxy, B buyers paying and retrying.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const o = options
  if (o.leaseMs + BLOCK_MS + Math.max(o.workMs, o.maxWorkMs) >= 2 * o.leaseMs) {
    throw new Error(
      `the kill bound (lease ${o.leaseMs} ms + block ${BLOCK_MS} ms + work up to ${o.maxWorkMs} ms) must stay under two leases`,
    )
  }
  const log = o.log ?? (() => {})
  const random = mulberry32(o.seed * 7919 + 1)
  const schema = `soak_${o.seed}_${randomBytes(4).toString('hex')}`
  const dataDirs: string[] = []
  const cleanups: (() => Promise<unknown>)[] = []
  let anvil: AnvilInstance | undefined
  // Set once the run ends: an instance that exits then is not respawned.
  let stopping = false
  try {
    /** Port `offset` of the fixed range, or undefined: a free one. */
    const fixedPort = (offset: number) =>
      o.basePort === undefined ? undefined : o.basePort + offset
    anvil = await startAnvil({
      ...(o.basePort === undefined ? {} : { port: o.basePort }),
      readyTimeoutMs: 30_000,
    })
    const rpcUrl = anvil.rpcUrl
    await prepareDevnet(rpcUrl)
    const chain = createPublicClient({ transport: http(rpcUrl), cacheTime: 0 })
    const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
    const payTo = privateKeyToAddress(generatePrivateKey())
    const pgUrl = new URL(DATABASE_URL)

    // --- the instances, each behind its own database and RPC proxies --------------------
    type Instance = {
      index: number
      port: number
      url: string
      env: Record<string, string>
      rpc: Awaited<ReturnType<typeof startFaultyRpc>>
      db: TcpProxy
      process?: GuardProcess
      /** stdout of every process this instance ran, for `logDir`. */
      logs: string[]
      /** When it was down: from a kill to listening again (ms since the load started). */
      downs: { from: number; to: number }[]
      killedByUs: boolean
      restarting: Promise<void> | undefined
      unexpectedExits: string[]
      errorLines: number
    }
    const instances: Instance[] = []
    const receiptSigners: Address[] = []
    /** Every settlement account of the run: the chain is read for all their transactions. */
    const settlers: Address[] = []
    const firstBlock = await chain.getBlockNumber()
    // The facilitator at a URL: a separate HTTP service (in this process), its own settler.
    const viaHttp = Math.min(o.instances, o.httpFacilitatorInstances ?? 0)
    const facilitatorFaults: Parameters<typeof startHttpFacilitator>[1] = {}
    let facilitatorCalls: Awaited<ReturnType<typeof startHttpFacilitator>>['calls'] | undefined
    let facilitatorUrl: string | undefined
    if (viaHttp > 0) {
      const settler = generatePrivateKey()
      settlers.push(privateKeyToAddress(settler))
      await test.setBalance({ address: privateKeyToAddress(settler), value: 10n ** 21n })
      const remote = await startHttpFacilitator(
        createFacilitator({
          kind: 'builtin',
          settlementPrivateKey: settler,
          rpcUrl,
          rpcTimeoutMs: 5_000,
          confirmationTimeoutMs: 10_000,
          pollingIntervalMs: 100,
        }).client,
        facilitatorFaults,
        fixedPort(49),
      )
      cleanups.push(() => remote.close())
      facilitatorCalls = remote.calls
      facilitatorUrl = `${remote.url}/`
    }
    for (let i = 0; i < o.instances; i++) {
      const settlementKey = generatePrivateKey()
      const receiptKey = generatePrivateKey()
      receiptSigners.push(privateKeyToAddress(receiptKey))
      // (An instance on the facilitator at a URL never uses its own: nothing of it to find.)
      settlers.push(privateKeyToAddress(settlementKey))
      await test.setBalance({ address: privateKeyToAddress(settlementKey), value: 10n ** 21n })
      const rpc = await startFaultyRpc(rpcUrl, {
        ...(o.basePort === undefined ? {} : { port: o.basePort + 50 + i }),
        random: mulberry32(o.seed * 104_729 + i),
      })
      cleanups.push(() => rpc.close())
      const db = await startTcpProxy(Number(pgUrl.port || 5432), pgUrl.hostname, fixedPort(30 + i))
      cleanups.push(() => db.close())
      const viaProxy = new URL(DATABASE_URL)
      viaProxy.hostname = '127.0.0.1'
      viaProxy.port = String(db.port)
      const dataDir = mkdtempSync(join(tmpdir(), 'psg-soak-'))
      dataDirs.push(dataDir)
      // Kept across restarts: a free one is asked for once.
      const port = fixedPort(10 + i) ?? (await freePort())
      instances.push({
        index: i,
        port,
        url: `http://127.0.0.1:${port}`,
        rpc,
        db,
        logs: [],
        downs: [],
        killedByUs: false,
        restarting: undefined,
        unexpectedExits: [],
        errorLines: 0,
        env: {
          PORT: String(port),
          BASE_RPC_URL: rpc.url,
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
          PAY_TO_ADDRESS: payTo,
          ...(i >= o.instances - viaHttp && facilitatorUrl
            ? {
                FACILITATOR: 'url',
                FACILITATOR_URL: facilitatorUrl,
                FACILITATOR_TIMEOUT_MS: String(FACILITATOR_TIMEOUT_MS),
              }
            : { FACILITATOR: 'builtin', SETTLEMENT_PRIVATE_KEY: settlementKey }),
          RECEIPT_PRIVATE_KEY: receiptKey,
          DATABASE_URL: viaProxy.href,
          DATABASE_SCHEMA: schema,
          DATA_DIR: dataDir,
          INSTANCE_ID: `soak-${i}`,
          RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT.perMinute),
          RATE_LIMIT_BURST: String(RATE_LIMIT.burst),
          RATE_LIMIT_CLIENT_HEADER: CLIENT_HEADER,
          PAYMENT_LEASE_MS: String(o.instanceLeaseMs ?? o.leaseMs),
          LOG_LEVEL: 'info',
        },
      })
    }
    cleanups.push(async () => {
      await Promise.all(instances.map((inst) => inst.process?.stop(3_000)))
    })

    const listeningIn = async (guard: GuardProcess, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs
      let exited = false
      void guard.exited.then(() => {
        exited = true
      })
      while (!guard.stdout().includes('pre-send-guard listening')) {
        if (exited) throw new Error(`exited before listening: ${guard.stderr().slice(-2000)}`)
        if (Date.now() > deadline) throw new Error('not listening in time')
        await sleep(100)
      }
    }
    /** Spawns the instance; an exit we did not cause is recorded and the instance respawned. */
    const spawnInstance = (inst: Instance) => {
      inst.killedByUs = false
      const guard = spawnGuard(inst.env)
      inst.process = guard
      void guard.exited.then(async (code) => {
        inst.errorLines += guard.lines().filter((l) => Number(l.level) >= 50).length
        inst.logs.push(guard.stdout())
        if (inst.killedByUs || inst.process !== guard || stopping) return
        inst.unexpectedExits.push(`exit ${code}: ${guard.stderr().slice(-300)}`)
        log(`instance ${inst.index} exited on its own (${code}); respawning`)
        await sleep(1000)
        if (!stopping && inst.process === guard) spawnInstance(inst)
      })
      return guard
    }
    log(`soak seed ${o.seed}: starting ${o.instances} instances (schema ${schema})`)
    for (const inst of instances) spawnInstance(inst)
    await Promise.all(instances.map((inst) => listeningIn(inst.process as GuardProcess, 120_000)))

    // --- buyers ---------------------------------------------------------------------------
    const offerAnswer = await fetch(`${instances[0]?.url}${PAID_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(exampleBody(payTo, payTo)),
    })
    if (offerAnswer.status !== 402) throw new Error(`no 402 offer: ${offerAnswer.status}`)
    const offer: PaymentRequired = decodePaymentRequiredHeader(
      offerAnswer.headers.get('PAYMENT-REQUIRED') ?? '',
    )
    const buyerClient = createPublicClient({ chain: base, transport: http(rpcUrl) })
    const buyers: Payer[] = []
    for (let b = 0; b < o.buyers; b++) {
      const account = privateKeyToAccount(generatePrivateKey())
      await mintDevnetUsdc(rpcUrl, account.address, 1000n * PRICE)
      buyers.push({
        address: account.address,
        client: new x402Client().register(
          'eip155:8453',
          new ExactEvmClientScheme(toClientEvmSigner(account, buyerClient)),
        ),
        // Each buyer its own client, behind the proxy that names it (198.18.0.0/15).
        identity: `198.18.${Math.floor(b / 250)}.${(b % 250) + 1}`,
        nextIdentifier: newPaymentIdentifier(),
      })
    }
    // The hostile payers, deployed while blocks still come with each transaction.
    const hostile = new Map<HostileRole, HostilePayer & Payer>()
    if ((o.hostilePayments ?? 0) > 0) {
      let i = 0
      for (const [role, payer] of await deployHostilePayers(rpcUrl, HOSTILE_USDC))
        hostile.set(role, {
          ...payer,
          identity: `192.0.2.${++i}`,
          nextIdentifier: newPaymentIdentifier(),
        })
    }
    const [payToBefore = 0n] = await Promise.all([
      chain.readContract({
        address: USDC_ADDRESS,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [payTo],
      }),
    ])
    // Blocks every second from here on, as on Base (2 s) but quicker.
    await test.setIntervalMining({ interval: 1 })

    // --- the load ---------------------------------------------------------------------------
    const t0 = Date.now()
    const loadEnd = t0 + o.seconds * 1000
    const recoveryEnd = loadEnd + o.recoverySeconds * 1000
    const payments: PaymentRecord[] = []
    const others: CallRecord[] = []
    const call = async (
      kind: CallRecord['kind'],
      instance: number,
      path: string,
      body: unknown,
      client: string,
      header?: string,
    ): Promise<{ record: CallRecord; body: unknown }> => {
      const started = Date.now()
      const target = instances[instance] as Instance
      try {
        const res = await fetch(`${target.url}${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [CLIENT_HEADER]: client,
            ...(header ? { 'PAYMENT-SIGNATURE': header } : {}),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        })
        const text = await res.text()
        let parsed: unknown
        let json = true
        try {
          parsed = JSON.parse(text)
        } catch {
          json = false
        }
        const { error: code, reason } = (parsed ?? {}) as { error?: unknown; reason?: unknown }
        return {
          record: {
            kind,
            instance,
            at: started - t0,
            ms: Date.now() - started,
            status: res.status,
            code: typeof code === 'string' ? code : undefined,
            ...(typeof reason === 'string' ? { reason } : {}),
            json,
            retryAfter: res.headers.get('retry-after'),
          },
          body: parsed,
        }
      } catch {
        return {
          record: {
            kind,
            instance,
            at: started - t0,
            ms: Date.now() - started,
            status: 'network',
            json: false,
          },
          body: undefined,
        }
      }
    }
    const pickInstance = () => Math.floor(random() * instances.length)

    /** One payment under the payer's next identifier, retried until a final answer. */
    const pay = async (payer: Payer) => {
      const identifier = payer.nextIdentifier
      payer.nextIdentifier = newPaymentIdentifier()
      const { header, nonce, validBefore } = await paymentWithIdentifier(
        payer.client,
        offer,
        identifier,
      )
      const record: PaymentRecord = {
        payer: payer.address,
        nonce,
        ...(payer.role ? { role: payer.role } : {}),
        identifier,
        validBefore,
        attempts: [],
      }
      payments.push(record)
      // A hostile payer's wallet is a contract: the transaction it asks about is payTo's own.
      const body = exampleBody(payer.role ? payTo : payer.address, payTo)
      while (Date.now() < recoveryEnd) {
        const { record: attempt, body: answer } = await call(
          'paid',
          pickInstance(),
          PAID_PATH,
          body,
          payer.identity,
          header,
        )
        record.attempts.push(attempt)
        if (attempt.status !== 'network' && !NON_FINAL.has(attempt.status)) {
          const atUnix = Math.floor(Date.now() / 1000)
          const receipt = (answer as { receipt?: Receipt } | undefined)?.receipt
          record.outcome =
            attempt.status === 200 && receipt
              ? { status: 200, receipt, atUnix }
              : { status: attempt.status, code: attempt.code, reason: attempt.reason, atUnix }
          return
        }
        await sleep(300 + random() * 700)
      }
    }
    const buyerLoop = async (buyer: Payer) => {
      while (Date.now() < loadEnd) {
        const r = random()
        if (r < 0.7) await pay(buyer)
        else {
          const kind = r < 0.85 ? 'unpaid' : 'preflight'
          const { record } = await call(
            kind,
            pickInstance(),
            kind === 'unpaid' ? PAID_PATH : FREE_PATH,
            exampleBody(buyer.address, payTo),
            buyer.identity,
          )
          others.push(record)
        }
        await sleep(200 + random() * 800)
      }
    }

    // --- the storm ----------------------------------------------------------------------------
    const faults = stormSchedule(o.seed, {
      seconds: o.seconds,
      instances: o.instances,
      kills: o.kills,
      dbCuts: o.dbCuts,
      errorBursts: o.errorBursts,
      hangBursts: o.hangBursts,
      blackouts: o.blackouts,
      blackoutMs: o.blackoutMs,
      facilitatorStalls: viaHttp > 0 ? (o.facilitatorStalls ?? 0) : 0,
      forgedFloods: o.forgedFloods ?? 0,
      buyers: o.buyers,
      hostilePayments: o.hostilePayments ?? 0,
    })
    const rpcState = instances.map(() => ({
      burst: undefined as undefined | { kind: 'error' | 'stall'; rate: number },
    }))
    let blackout = false
    let healed = false
    const applyRpc = (inst: Instance) => {
      const state = rpcState[inst.index]
      const error = { kind: 'error', code: -32603, message: 'soak: injected RPC failure' } as const
      if (healed) inst.rpc.clear()
      else if (blackout) inst.rpc.set('*', error, 1)
      else if (state?.burst?.kind === 'stall')
        inst.rpc.set('*', { kind: 'stall' }, state.burst.rate)
      else if (state?.burst) inst.rpc.set('*', error, state.burst.rate)
      else if (o.baselineErrorRate > 0) inst.rpc.set('*', error, o.baselineErrorRate)
      else inst.rpc.clear()
    }
    for (const inst of instances) applyRpc(inst)
    const injected: string[] = []
    const killTimes: KillRecord[] = []
    const outages: OutageRecord[] = []
    const restarts: string[] = []
    const restartOf = async (inst: Instance, downMs: number) => {
      await sleep(downMs)
      if (stopping) return
      const spawned = Date.now()
      const guard = spawnInstance(inst)
      await listeningIn(guard, 180_000).then(
        () => {
          const down = inst.downs.at(-1)
          if (down) down.to = Date.now() - t0
          restarts.push(`#${inst.index} ${((Date.now() - spawned) / 1000).toFixed(1)} s`)
        },
        (error: Error) => log(`instance ${inst.index} restart: ${error.message.slice(0, 200)}`),
      )
    }
    // --- the attackers -------------------------------------------------------------------------
    const forged: ForgedCall[] = []
    const frontRuns: (FrontRun & { at: number })[] = []
    const FORGERIES: ForgeryKind[] = ['other-key', 'random-65', 'random-320']
    let floods = 0
    /**
     * One flood: each client identity sends its forged payments, `concurrency` in flight, each
     * to an instance at random (one that runs, when one does); each names a real payer (a
     * buyer or a hostile wallet), and the first ones squat the victims' next
     * payment-identifiers while the burst lasts. A forgery no app answered (the instance down,
     * or still starting) is sent again later, for at most {@link FLOOD_MAX_MS}: a flood that met
     * a kill or a blackout still reaches the rate limit it is there to test.
     */
    const flood = async (f: Extract<Fault, { kind: 'forged-flood' }>) => {
      const wave = floods++
      const until = Math.min(Date.now() + FLOOD_MAX_MS, recoveryEnd)
      const named = [...buyers, ...hostile.values()].map((p) => p.address)
      const victims = f.victims.flatMap((v) => buyers[v] ?? [])
      const running = () => {
        const up = instances.filter((i) => !i.restarting)
        return up.length > 0
          ? (up[Math.floor(random() * up.length)] as Instance).index
          : pickInstance()
      }
      await Promise.all(
        Array.from({ length: f.clients }, async (_, c) => {
          const client = `203.0.113.${wave * f.clients + c + 1}`
          const queue: { payer: Address; identifier?: string }[] = victims.flatMap((v) => [
            { payer: v.address, identifier: v.nextIdentifier },
            { payer: v.address, identifier: v.nextIdentifier },
          ])
          while (queue.length < f.perClient)
            queue.push({ payer: named[queue.length % named.length] as Address })
          let sent = 0
          const worker = async () => {
            for (let item = queue.shift(); item && Date.now() < until; item = queue.shift()) {
              const { payer, identifier } = item
              const forgery = await forgedPayment(
                offer,
                payer,
                FORGERIES[sent++ % FORGERIES.length] as ForgeryKind,
                FORGED_VALID_SECONDS,
                identifier,
              )
              const { record } = await call(
                'paid',
                running(),
                PAID_PATH,
                exampleBody(payTo, payTo),
                client,
                forgery.header,
              )
              forged.push({
                ...record,
                kind: 'forged',
                wave,
                client,
                payer,
                nonce: forgery.nonce,
                validBefore: forgery.validBefore,
                ...(identifier ? { identifier } : {}),
              })
              if (record.status === 'network' || record.code === 'service_starting') {
                queue.push(item)
                await sleep(500)
              }
            }
          }
          await Promise.all(Array.from({ length: f.concurrency }, worker))
        }),
      )
    }
    // One payment at a time per hostile payer: a front-run watches for its own settlement only.
    const hostileQueue = new Map<HostileRole, Promise<unknown>>()
    const hostilePayment = async (payer: HostilePayer & Payer) => {
      if (payer.role !== 'front-run') return pay(payer)
      const paying = pay(payer)
      const started = Date.now() - t0
      const run = await frontRunSettlement(rpcUrl, payer, USDC_ADDRESS, paying).catch(
        (error: Error) => {
          log(`front-run: ${error.message.slice(0, 200)}`)
          return undefined
        },
      )
      await paying
      if (run) frontRuns.push({ ...run, at: started })
    }

    const runFault = async (f: Fault) => {
      const at = `${((Date.now() - t0) / 1000).toFixed(1)} s`
      switch (f.kind) {
        case 'kill': {
          // An instance still coming back from an earlier kill is spared for one that runs
          // (so the kill scheduled inside the blackout lands inside it).
          const inst =
            instances.find((x) => x.index === f.instance && !x.restarting) ??
            instances.find((x) => !x.restarting) ??
            (instances[f.instance] as Instance)
          await inst.restarting
          const pid = inst.process?.child.pid
          if (!pid || Date.now() >= loadEnd) return
          const killAt = Date.now() - t0
          const killedAt = `${(killAt / 1000).toFixed(1)} s`
          inst.killedByUs = true
          try {
            process.kill(-pid, 'SIGKILL')
          } catch {}
          killTimes.push({ instance: inst.index, at: killAt })
          inst.downs.push({ from: killAt, to: Number.POSITIVE_INFINITY })
          await inst.process?.exited
          injected.push(
            `${killedAt} kill -9 instance ${inst.index}${blackout ? ' (in blackout)' : ''}`,
          )
          log(injected.at(-1) ?? '')
          inst.restarting = restartOf(inst, f.downMs)
          await inst.restarting
          inst.restarting = undefined
          return
        }
        case 'db-cut': {
          const cut = f.instance === 'all' ? instances : [instances[f.instance] as Instance]
          injected.push(`${at} database cut ${f.instance} for ${f.ms} ms`)
          log(injected.at(-1) ?? '')
          const from = Date.now() - t0
          await Promise.all(cut.map((inst) => inst.db.down()))
          await sleep(f.ms)
          if (!healed) await Promise.all(cut.map((inst) => inst.db.up().catch(() => {})))
          outages.push({ kind: `database cut ${f.instance}`, from, to: Date.now() - t0 })
          return
        }
        case 'rpc-errors':
        case 'rpc-hangs': {
          const inst = instances[f.instance] as Instance
          const state = rpcState[f.instance]
          if (!state) return
          state.burst = { kind: f.kind === 'rpc-errors' ? 'error' : 'stall', rate: f.rate }
          injected.push(
            `${at} RPC ${f.kind === 'rpc-errors' ? 'errors' : 'hangs'} ${(f.rate * 100).toFixed(0)} % on instance ${f.instance} for ${f.ms} ms`,
          )
          log(injected.at(-1) ?? '')
          applyRpc(inst)
          await sleep(f.ms)
          state.burst = undefined
          applyRpc(inst)
          return
        }
        case 'facilitator-stall': {
          injected.push(
            `${at} facilitator stalls ${(f.rate * 100).toFixed(0)} % of its calls ${FACILITATOR_STALL_MS} ms (timeout ${FACILITATOR_TIMEOUT_MS} ms) for ${f.ms} ms`,
          )
          log(injected.at(-1) ?? '')
          facilitatorFaults.stall = { rate: f.rate, ms: FACILITATOR_STALL_MS, random }
          await sleep(f.ms)
          delete facilitatorFaults.stall
          return
        }
        case 'forged-flood': {
          injected.push(
            `${at} forged flood ${floods}: ${f.clients} clients x ${f.perClient} forged payments (${f.concurrency} in flight each), squatting ${f.victims.length} buyers' next ids`,
          )
          log(injected.at(-1) ?? '')
          await flood(f)
          return
        }
        case 'hostile-payment': {
          const payer = hostile.get(f.payer)
          if (!payer) return
          injected.push(`${at} ${f.payer} payer pays`)
          const mine = (hostileQueue.get(f.payer) ?? Promise.resolve()).then(() =>
            hostilePayment(payer),
          )
          hostileQueue.set(
            f.payer,
            mine.catch(() => {}),
          )
          await mine
          return
        }
        case 'blackout': {
          blackout = true
          const from = Date.now() - t0
          injected.push(`${at} RPC blackout (all instances) for ${f.ms} ms`)
          log(injected.at(-1) ?? '')
          for (const inst of instances) applyRpc(inst)
          await sleep(f.ms)
          blackout = false
          for (const inst of instances) applyRpc(inst)
          outages.push({ kind: 'RPC blackout', from, to: Date.now() - t0 })
          return
        }
      }
    }
    const storm = Promise.all(
      faults.map(async (f) => {
        await sleep(Math.max(0, t0 + f.at - Date.now()))
        if (Date.now() < loadEnd) await runFault(f)
      }),
    )
    log(`load: ${o.buyers} buyers for ${o.seconds} s, ${faults.length} faults scheduled`)
    const progress = setInterval(() => {
      const done = payments.filter((p) => p.outcome?.status === 200).length
      log(
        `  ${((Date.now() - t0) / 1000).toFixed(0)} s: ${payments.length} payments, ${done} answered 200`,
      )
    }, 15_000)
    const load = Promise.all(buyers.map(buyerLoop))
    await sleep(Math.max(0, loadEnd - Date.now()))

    // --- heal, then recover -------------------------------------------------------------------
    healed = true
    delete facilitatorFaults.stall
    for (const inst of instances) {
      applyRpc(inst)
      await inst.db.up().catch(() => {})
    }
    await storm
    for (const inst of instances) await inst.db.up().catch(() => {})
    log(
      `healed at ${((Date.now() - t0) / 1000).toFixed(1)} s; recovering (<= ${o.recoverySeconds} s)`,
    )
    await load
    clearInterval(progress)
    const ledgerRows = async (): Promise<LedgerRow[]> => {
      const db = new pg.Client({ connectionString: DATABASE_URL })
      await db.connect()
      try {
        const { rows } = await db.query<{
          payer: Address
          nonce: Hex
          status: string
          amount: string
          settlement_tx: Hex | null
        }>(`SELECT payer, nonce, status, amount::text, settlement_tx FROM "${schema}".payments`)
        return rows.map((r) => ({
          payer: r.payer,
          nonce: r.nonce,
          status: r.status,
          amount: BigInt(r.amount),
          settlementTx: r.settlement_tx,
        }))
      } finally {
        await db.end()
      }
    }
    let ledger = await ledgerRows()
    while (
      Date.now() < recoveryEnd &&
      ledger.some((r) => r.status !== 'settled' && r.status !== 'failed')
    ) {
      await sleep(1000)
      ledger = await ledgerRows()
    }
    const recoveredAt = Date.now()
    // One more block so the last settlement is mined and visible.
    await sleep(2000)

    // --- evidence ------------------------------------------------------------------------------
    const [used, moved, payToAfter] = await Promise.all([
      chain.getLogs({ address: USDC_ADDRESS, event: authorizationUsed, fromBlock: 0n }),
      chain.getLogs({ address: USDC_ADDRESS, event: transferEvent, fromBlock: 0n }),
      chain.readContract({
        address: USDC_ADDRESS,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [payTo],
      }),
    ])
    const transfers: ChainTransfer[] = used.map((log) => {
      const transfer = moved.find(
        (t) =>
          t.transactionHash === log.transactionHash &&
          t.args.from?.toLowerCase() === log.args.authorizer?.toLowerCase(),
      )
      return {
        payer: log.args.authorizer as Address,
        nonce: log.args.nonce as Hex,
        tx: log.transactionHash,
        value: transfer?.args.value ?? 0n,
        to: transfer?.args.to ?? ('0x0000000000000000000000000000000000000000' as Address),
      }
    })
    const health = await Promise.all(
      instances.map(async (inst) => {
        const status = (path: string) =>
          fetch(`${inst.url}${path}`, { signal: AbortSignal.timeout(10_000) }).then(
            (r) => r.status,
            () => 'network' as const,
          )
        return {
          instance: inst.index,
          healthz: await status('/healthz'),
          readyz: await status('/readyz'),
        }
      }),
    )
    // The work allowance: at least `workMs`, or a paid call's p99 on this run (a loaded
    // machine), at most `maxWorkMs`.
    const paid200 = payments
      .flatMap((p) => p.attempts)
      .filter((a) => a.status === 200)
      .map((a) => a.ms)
      .sort((a, b) => a - b)
    const workMs = Math.min(
      o.maxWorkMs,
      Math.max(
        o.workMs,
        paid200[Math.min(paid200.length - 1, Math.floor(0.99 * paid200.length))] ?? 0,
      ),
    )
    const recoveryBoundMs = o.leaseMs + BLOCK_MS + workMs
    const evidenceAt = Date.now() - t0
    outages.push(
      ...everyInstanceDown(
        instances.map((i) => i.downs.map((d) => ({ ...d, to: Math.min(d.to, evidenceAt) }))),
      ),
    )
    // The forged authorizations' prune window: the ledger is read again once every one ran out.
    const lastForged = Math.max(0, ...forged.map((c) => c.validBefore))
    const pruneAt = (lastForged + PRUNE_WINDOW_SECONDS + 1) * 1000
    if (forged.length > 0 && Date.now() < pruneAt) {
      log(
        `waiting ${((pruneAt - Date.now()) / 1000).toFixed(0)} s for the forged payments' prune window`,
      )
      await sleep(pruneAt - Date.now())
    }
    const ledgerAfterPrune = forged.length > 0 ? await ledgerRows() : ledger
    const ledgerReadAtUnix = Math.floor(Date.now() / 1000)
    // Every transaction of every settler, to the last block: a settlement resent after the
    // run would show here too.
    const settlerTransactions = await readSettlerTransactions(chain, {
      settlers,
      asset: USDC_ADDRESS,
      fromBlock: firstBlock,
      toBlock: await chain.getBlockNumber(),
    })
    const results = await checkInvariants({
      kills: killTimes,
      outages,
      recoveryBoundMs,
      payments,
      others,
      ledger,
      transfers,
      payToDelta: payToAfter - payToBefore,
      payTo,
      price: PRICE,
      receiptSigners,
      health,
      settlerTransactions,
      gasCeiling: DEFAULT_SETTLEMENT_GAS_CEILING,
      forged,
      rateLimit: RATE_LIMIT,
      pruneWindowSeconds: PRUNE_WINDOW_SECONDS,
      ledgerAfterPrune,
      ledgerReadAtUnix,
      hostile: [...hostile.values()].map((h) => ({ role: h.role, address: h.address })),
    })

    // --- the report ------------------------------------------------------------------------------
    // The buyers' payments; the hostile payers' are reported on their own line.
    const bought = payments.filter((p) => !p.role)
    const attempts = bought.flatMap((p) => p.attempts)
    const latencies = attempts
      .filter((a) => a.status === 200)
      .map((a) => a.ms)
      .sort((a, b) => a - b)
    const answeredAt = (p: PaymentRecord) => {
      const last = p.attempts.at(-1)
      return last ? last.at + last.ms : 0
    }
    const toAnswer = bought
      .filter((p) => p.outcome?.status === 200)
      .map((p) => answeredAt(p) - (p.attempts[0]?.at ?? 0))
      .sort((a, b) => a - b)
    // The payments each kill cut off: how long after the kill each got its answer.
    const { perKill } = checkKillRecovery(payments, killTimes, outages, recoveryBoundMs)
    const byKey = new Map(payments.map((p) => [`${p.payer}:${p.nonce}`.toLowerCase(), p]))
    let slowest: { ms: number; p: PaymentRecord } | undefined
    for (const k of perKill)
      for (const c of k.payments) {
        const p = byKey.get(c.key)
        if (p && (!slowest || (c.ms ?? Infinity) > slowest.ms))
          slowest = { ms: c.ms ?? Infinity, p }
      }
    const afterKill = perKill.map(
      (k) =>
        `#${k.kill.instance} at ${(k.kill.at / 1000).toFixed(1)} s${k.overlapping.length ? ` (overlapping ${k.overlapping.map((x) => `${x.kind} ${(x.from / 1000).toFixed(1)}-${(x.to / 1000).toFixed(1)} s`).join(', ')})` : ''}: bound ${((k.deadline - k.kill.at) / 1000).toFixed(1)} s, ${k.payments.length} cut off, answered after ${
          k.payments
            .map(
              (c) =>
                `${c.ms === undefined ? 'never' : (c.ms / 1000).toFixed(1)}${c.laterKill ? ` (cut again at ${(c.laterKill.at / 1000).toFixed(1)} s)` : ''}`,
            )
            .join(', ') || '-'
        } s`,
    )
    const pct = (xs: number[], q: number) =>
      xs.length ? xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] : 0
    const statusCounts = new Map<string, number>()
    const hostileAttempts = payments
      .filter((p) => p.role)
      .flatMap((p) => p.attempts.map((a) => ({ ...a, kind: `hostile ${p.role}` })))
    for (const a of [...attempts, ...others, ...hostileAttempts, ...forged]) {
      const k = `${a.kind} ${a.status}${a.code ? ` ${a.code}` : ''}${a.status === 402 && a.reason ? ` (${a.reason})` : ''}`
      statusCounts.set(k, (statusCounts.get(k) ?? 0) + 1)
    }
    const hostileLine = [...hostile.keys()].map((role) => {
      const mine = payments.filter((p) => p.role === role)
      const finals = new Map<string, number>()
      for (const p of mine) {
        const o = p.outcome
        const f = o ? `${o.status}${'reason' in o && o.reason ? ` ${o.reason}` : ''}` : 'unanswered'
        finals.set(f, (finals.get(f) ?? 0) + 1)
      }
      return `${role} ${mine.length} (${[...finals].map(([f, n]) => `${f}: ${n}`).join(', ')})`
    })
    for (const inst of instances)
      inst.errorLines += inst.process?.lines().filter((l) => Number(l.level) >= 50).length ?? 0
    const ok = results.every((r) => r.ok)
    const lines = [
      `soak seed ${o.seed}: ${o.instances} instances, ${o.buyers} buyers, ${o.seconds} s load, recovery ${((recoveredAt - loadEnd) / 1000).toFixed(1)} s of <= ${o.recoverySeconds} s`,
      `paid: ${bought.length} attempted (${attempts.length} requests), ${bought.filter((p) => p.outcome?.status === 200).length} answered 200, ${bought.filter((p) => p.outcome && p.outcome.status !== 200).length} refused, ${bought.filter((p) => !p.outcome).length} unanswered`,
      `paid latency (200 requests): p50 ${pct(latencies, 0.5)} ms, p99 ${pct(latencies, 0.99)} ms; first try to 200: p50 ${pct(toAnswer, 0.5)} ms, p99 ${pct(toAnswer, 0.99)} ms, max ${toAnswer.at(-1) ?? 0} ms`,
      `no answer: ${attempts.filter((a) => a.status === 'network').length} paid requests (${attempts.filter((a) => a.status === 'network' && a.ms >= 29_000).length} of them hung 30 s, the rest refused or cut by a kill)`,
      `restarts, spawn to listening: ${restarts.join(', ') || 'none'}`,
      `payments cut off by a kill (${(recoveryBoundMs / 1000).toFixed(1)} s bound: lease ${o.leaseMs / 1000} s + block ${BLOCK_MS / 1000} s + work ${(workMs / 1000).toFixed(1)} s, the larger of ${o.workMs / 1000} s and a paid call's p99, at most ${o.maxWorkMs / 1000} s):`,
      ...(afterKill.length ? afterKill.map((l) => `  ${l}`) : ['  none']),
      `slowest of them: ${
        slowest
          ? slowest.p.attempts
              .slice(-12)
              .map(
                (a) =>
                  `#${a.instance} ${a.status}${a.code ? ` ${a.code}` : ''} at ${(a.at / 1000).toFixed(1)} s (${a.ms} ms)`,
              )
              .join(', ')
          : 'none'
      }`,
      `other calls: ${others.filter((c) => c.kind === 'unpaid').length} unpaid, ${others.filter((c) => c.kind === 'preflight').length} read-only preflights`,
      `answers: ${[...statusCounts]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join('; ')}`,
      `faults injected (${injected.length}): ${injected.join('; ')}; baseline RPC errors ${(o.baselineErrorRate * 100).toFixed(0)} %`,
      ...(hostile.size > 0
        ? [
            `hostile payers, payments (final answers): ${hostileLine.join('; ')}`,
            `front-runs: ${
              frontRuns
                .map(
                  (r) =>
                    `at ${(r.at / 1000).toFixed(1)} s settlement ${r.settlementTx.slice(0, 10)} ${r.closedFirst ? 'closed ahead of it' : 'mined before the close'}`,
                )
                .join('; ') || 'none (no settlement seen in the mempool)'
            }`,
          ]
        : []),
      ...(forged.length > 0
        ? [
            `forged: ${forged.length} calls from ${new Set(forged.map((c) => c.client)).size} clients, ${forged.filter((c) => c.identifier).length} squatting ids; the ledger read for their rows ${ledgerReadAtUnix - lastForged} s after the last one's validBefore`,
          ]
        : []),
      ...(facilitatorCalls
        ? [
            `HTTP facilitator (instance${viaHttp > 1 ? 's' : ''} ${instances
              .slice(o.instances - viaHttp)
              .map((i) => `#${i.index}`)
              .join(
                ', ',
              )}): ${facilitatorCalls.verify} verify, ${facilitatorCalls.settle} settle, ${facilitatorCalls.stalled} stalled ${FACILITATOR_STALL_MS} ms`,
          ]
        : []),
      `instances: ${instances.map((i) => `#${i.index} ${i.unexpectedExits.length} exits on its own, ${i.errorLines} error log lines`).join('; ')}`,
      ...instances.flatMap((i) =>
        i.unexpectedExits.map((x) => `  #${i.index} ${x.replace(/\s+/g, ' ')}`),
      ),
      ...results.map(
        (r) =>
          `${r.ok ? 'PASS' : 'FAIL'} ${r.name}: ${r.detail}${r.examples.length ? `\n    ${r.examples.join('\n    ')}` : ''}`,
      ),
      ok ? 'every invariant held' : 'INVARIANT BROKEN',
    ]
    stopping = true
    if (o.logDir) {
      mkdirSync(o.logDir, { recursive: true })
      for (const inst of instances)
        writeFileSync(
          join(o.logDir, `instance-${inst.index}.log`),
          [...inst.logs, inst.process?.stdout() ?? ''].join(''),
        )
      writeFileSync(join(o.logDir, 'payments.json'), JSON.stringify(payments, null, 1))
      const bigints = (_: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)
      writeFileSync(
        join(o.logDir, 'attack.json'),
        JSON.stringify({ forged, frontRuns, settlerTransactions }, bigints, 1),
      )
    }
    return { ok, options: { ...o, log: undefined } as Omit<SoakOptions, 'log'>, results, lines }
  } finally {
    stopping = true
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
    await anvil?.stop()
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
    const admin = new pg.Client({ connectionString: DATABASE_URL })
    await admin.connect().then(
      () => admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end()),
      () => {},
    )
  }
}
