/**
 * Load and soak: two real instances of the compiled service (`node dist/src/main.js`, what
 * `npm start` runs; mainnet mode, built-in facilitator) on one anvil and one PostgreSQL ledger,
 * 64 concurrent clients sending mixed traffic (read-only preflights, bundles, typed data,
 * unpaid 402s and paid calls), alternating between the instances. Prints errors, p50/p99 per
 * kind, requests per instance, a memory timeline per instance (RSS read from
 * /proc/<pid>/status every second; V8's live heap after each full collection, from the
 * instance's own `--trace-gc` lines), RSS growth from the first to the second half, and whether
 * the ledger's settled total equals payTo's USDC on chain. Figures, not a test.
 *
 * Phases, each printed on its own: a warm-up (LOAD_WARMUP_SECONDS, default 15; the same load,
 * while code paths load, pools fill and V8 sizes its heap), then the measured window
 * (LOAD_SECONDS, default 60). RSS growth is printed for the measured window (first half ->
 * second half) and for the whole loaded period, warm-up included, so neither hides the other.
 * LOAD_RUNS (default 3) repeats the whole run (fresh chain, schema and processes) and prints
 * min/median/max over the runs.
 *
 * LOAD_CLIENTS overrides the concurrency (64). LOAD_NODE_FLAGS adds node flags to the instances
 * and MALLOC_ARENA_MAX and HEAP_GROWING_PERCENT are passed through (diagnostics). LOAD_RUNTIME=tsx runs `tsx src/main.ts` instead
 * of the build. LOAD_HEAP_SNAPSHOTS=1 (diagnostics; pauses each instance while it writes)
 * writes a heap snapshot of each instance at the end of the warm-up and at the end of the
 * measured window into .scratch/heap/ (compare them with `bench/heap-diff.ts`). Needs
 * PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import pg from 'pg'
import { createPublicClient, createTestClient, erc20Abi, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { base } from 'viem/chains'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt, MAIN } from '../scripts/build.mjs'
import { startAnvil } from '../src/adapters/devnet/anvil.js'
import { mintDevnetUsdc, prepareDevnet, USDC_ADDRESS } from '../src/adapters/devnet/prepare.js'
import { type GuardProcess, spawnGuard } from '../test/support/guard-process.js'
import { freePort } from '../test/support/net.js'
import { usdcPermitRequest } from '../test/support/usdc-typed-data.js'
import { percentile, spread } from './stats.js'

const SECONDS = Number(process.env.LOAD_SECONDS ?? 60)
const WARMUP_SECONDS = Number(process.env.LOAD_WARMUP_SECONDS ?? 15)
const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 64)
const RUNS = Number(process.env.LOAD_RUNS ?? 3)
const RUNTIME = process.env.LOAD_RUNTIME === 'tsx' ? 'tsx' : 'node'
const SNAPSHOTS = process.env.LOAD_HEAP_SNAPSHOTS === '1'
/** Extra node flags for the instances (diagnostics, e.g. `--max-old-space-size=256`). */
const NODE_FLAGS = process.env.LOAD_NODE_FLAGS?.trim()
const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const ROOT = new URL('..', import.meta.url).pathname
/** Timeline rows: one per this many seconds. */
const ROW_SECONDS = 10

const FROM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const transfer = { from: FROM, to: TO, data: '0x', value: '0x2386f26fc10000' }
const approve = {
  from: FROM,
  to: USDC_ADDRESS,
  data: `0x095ea7b3${TO.slice(2).padStart(64, '0')}${'f'.repeat(64)}`,
}
const typedData = usdcPermitRequest(FROM, TO, '1000000')

type Kind = 'preflight' | 'approve' | 'bundle' | 'typed-data' | 'unpaid-402' | 'paid'
const MIX: Kind[] = [
  ...Array<Kind>(10).fill('preflight'),
  ...Array<Kind>(4).fill('approve'),
  ...Array<Kind>(2).fill('bundle'),
  ...Array<Kind>(2).fill('typed-data'),
  ...Array<Kind>(2).fill('unpaid-402'),
  'paid',
]
const EXPECTED: Record<Kind, number> = {
  preflight: 200,
  approve: 200,
  bundle: 200,
  'typed-data': 200,
  'unpaid-402': 402,
  paid: 200,
}

/** One instance's memory at one moment (bytes; `t` in s since the load started). */
interface MemorySample {
  t: number
  rss: number
  anon: number
  file: number
  /** V8's committed heap (`heapTotal`) and memory outside it that V8 knows of (`external`). */
  heapTotal: number
  external: number
}
/** V8's live heap right after a full (Mark-Compact) collection, bytes. */
interface GcSample {
  t: number
  liveHeap: number
}
interface Instance {
  process: GuardProcess
  pid: number
  base: string
  requests: number[]
  memory: MemorySample[]
  gcs: GcSample[]
  /** How much of stdout was already scanned for `--trace-gc` lines. */
  scanned: number
}

/** What one run yields for the summary over runs. */
interface RunFigures {
  errors: number
  perInstance: {
    requests: number
    measuredRssGrowth: number
    wholeRssGrowth: number
    liveHeapGrowth: number
    committedHeapGrowth: number
    outsideHeapGrowth: number
  }[]
  ledgerEqual: boolean
}

/** VmRSS, RssAnon and RssFile (bytes) of `pid`, from /proc. */
function procMemory(pid: number): Omit<MemorySample, 't' | 'heapTotal' | 'external'> | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) * 1024
    return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') }
  } catch {
    return undefined
  }
}

/** V8's committed heap and external memory, from the instance's own /metrics (prom-client). */
async function v8Memory(base: string): Promise<{ heapTotal: number; external: number }> {
  try {
    const text = await (
      await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5_000) })
    ).text()
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
    return {
      heapTotal: value('nodejs_heap_size_total_bytes'),
      external: value('nodejs_external_memory_bytes'),
    }
  } catch {
    return { heapTotal: Number.NaN, external: Number.NaN }
  }
}

/** `--trace-gc` lines: "Mark-Compact 80.1 (95.3) -> 75.2 (94.1) MB" (used (committed) before -> after). */
const MARK_COMPACT = /Mark-Compact(?: \([^)]*\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/g

function scanGcLines(instance: Instance, t: number): void {
  const out = instance.process.stdout()
  const fresh = out.slice(instance.scanned)
  const lastNewline = fresh.lastIndexOf('\n')
  if (lastNewline < 0) return
  for (const m of fresh.slice(0, lastNewline).matchAll(MARK_COMPACT)) {
    instance.gcs.push({ t, liveHeap: Number(m[1]) * 2 ** 20 })
  }
  instance.scanned += lastNewline + 1
}

const mb = (bytes: number) =>
  Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MB` : 'n/a'
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const pct = (from: number, to: number) => ((to - from) / from) * 100
const signed = (p: number) =>
  Number.isFinite(p) ? `${p >= 0 ? '+' : ''}${p.toFixed(1)} %` : 'n/a: no full GC in a half'

async function runOnce(run: number): Promise<RunFigures> {
  const schema = `bench_load_${randomBytes(6).toString('hex')}`
  const anvil = await startAnvil()
  await prepareDevnet(anvil.rpcUrl)
  const chain = createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 })
  const testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
  const payTo = privateKeyToAddress(generatePrivateKey())
  const receiptKey = generatePrivateKey()
  const keys = [generatePrivateKey(), generatePrivateKey()]
  const buyer = privateKeyToAccount(generatePrivateKey())
  for (const key of keys) {
    await testClient.setBalance({ address: privateKeyToAddress(key), value: 10n ** 21n })
  }
  await mintDevnetUsdc(anvil.rpcUrl, buyer.address, 10n ** 12n)

  const snapshotDir = join(ROOT, '.scratch', 'heap', `run-${run}-${Date.now()}`)
  if (SNAPSHOTS) mkdirSync(snapshotDir, { recursive: true })
  const nodeArgs = [
    '--trace-gc',
    ...(NODE_FLAGS ? NODE_FLAGS.split(/\s+/) : []),
    ...(SNAPSHOTS ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : []),
  ]
  const instances: Instance[] = []
  for (const [i, key] of keys.entries()) {
    const port = await freePort()
    const process = spawnGuard(
      {
        PORT: String(port),
        BASE_RPC_URL: anvil.rpcUrl,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        PAY_TO_ADDRESS: payTo,
        FACILITATOR: 'builtin',
        SETTLEMENT_PRIVATE_KEY: key,
        RECEIPT_PRIVATE_KEY: receiptKey,
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
        INSTANCE_ID: `load-${i}`,
        // Each simulated client is its own address behind a trusted proxy header; the limits
        // are the defaults (600 a minute, bursts of 120), which no client here should meet.
        RATE_LIMIT_CLIENT_HEADER: 'x-forwarded-for',
        LOG_LEVEL: 'warn',
        // Diagnostics: glibc's malloc arenas (see the README's load section).
        ...(globalThis.process.env.MALLOC_ARENA_MAX
          ? { MALLOC_ARENA_MAX: globalThis.process.env.MALLOC_ARENA_MAX }
          : {}),
        // The service's heap-growth bound (default 50; 0 leaves V8's own), to compare both.
        ...(globalThis.process.env.HEAP_GROWING_PERCENT
          ? { HEAP_GROWING_PERCENT: globalThis.process.env.HEAP_GROWING_PERCENT }
          : {}),
        ...(RUNTIME === 'tsx' ? { NODE_OPTIONS: nodeArgs.join(' ') } : {}),
      },
      RUNTIME === 'node'
        ? { command: globalThis.process.execPath, args: [...nodeArgs, MAIN] }
        : undefined,
    )
    const pid = process.child.pid
    if (pid === undefined) throw new Error('the instance did not start')
    instances.push({
      process,
      pid,
      base: `http://127.0.0.1:${port}`,
      requests: [],
      memory: [],
      gcs: [],
      scanned: 0,
    })
  }
  await Promise.all(
    instances.map((i) =>
      fetchUntilUp(`${i.base}/healthz`, 120_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${i.process.stderr()}`)
      }),
    ),
  )
  // Under tsx the service is tsx's child node process: read that one's memory.
  if (RUNTIME === 'tsx') for (const i of instances) i.pid = childPid(i.pid)

  const challenge = await fetch(`${instances[0]?.base}/simulate/transaction-preflight`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(transfer),
  })
  const offer = decodePaymentRequiredHeader(challenge.headers.get('PAYMENT-REQUIRED') ?? '')
  const payer = new x402Client().register(
    'eip155:8453',
    new ExactEvmClientScheme(
      toClientEvmSigner(buyer, createPublicClient({ chain: base, transport: http(anvil.rpcUrl) })),
    ),
  )

  const latencies = new Map<Kind, number[]>()
  const errors = new Map<string, number>()
  let limited = 0
  let paid = 0
  const t0 = Date.now()
  const now = () => (Date.now() - t0) / 1000
  const idle = instances.map((i) => procMemory(i.pid)?.rss ?? Number.NaN)

  async function one(kind: Kind, instance: Instance, client: string): Promise<void> {
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${instance.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client, ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      })
    const started = performance.now()
    let res: Response
    switch (kind) {
      case 'preflight':
        res = await post('/payanagent/v1/base-transaction-preflight', transfer)
        break
      case 'approve':
        res = await post('/payanagent/v1/base-transaction-preflight', approve)
        break
      case 'bundle':
        res = await post('/payanagent/v1/base-bundle-preflight', {
          transactions: [approve, transfer],
        })
        break
      case 'typed-data':
        res = await post('/payanagent/v1/base-typed-data-preflight', typedData)
        break
      case 'unpaid-402':
        res = await post('/simulate/transaction-preflight', transfer)
        break
      case 'paid': {
        const header = encodePaymentSignatureHeader(await payer.createPaymentPayload(offer))
        res = await post('/simulate/transaction-preflight', transfer, {
          'PAYMENT-SIGNATURE': header,
        })
        break
      }
    }
    await res.arrayBuffer()
    const ms = performance.now() - started
    if (res.status === 429) limited++
    else if (res.status !== EXPECTED[kind]) {
      const key = `${kind} ${res.status}`
      errors.set(key, (errors.get(key) ?? 0) + 1)
    } else {
      if (kind === 'paid') paid++
      const list = latencies.get(kind) ?? []
      list.push(ms)
      latencies.set(kind, list)
    }
  }

  /** `CLIENTS` clients sending the mix until `until`, each alternating between the instances. */
  async function drive(until: number): Promise<number> {
    let sent = 0
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const client = `198.51.100.${c + 1}`
        for (let n = c; Date.now() < until; n++) {
          const kind = MIX[n % MIX.length] as Kind
          const instance = instances[n % instances.length] as Instance
          const second = Math.floor(now())
          instance.requests[second] = (instance.requests[second] ?? 0) + 1
          sent++
          await one(kind, instance, client).catch((error: Error) => {
            const cause = (error.cause as { code?: string } | undefined)?.code
            const key = `${kind} ${error.name}${cause ? ` (${cause})` : ''}`
            errors.set(key, (errors.get(key) ?? 0) + 1)
          })
        }
      }),
    )
    return sent
  }

  const sample = async () => {
    const t = now()
    await Promise.all(
      instances.map(async (i) => {
        const m = procMemory(i.pid)
        const v8 = await v8Memory(i.base)
        if (m) i.memory.push({ t, ...m, ...v8 })
        scanGcLines(i, t)
      }),
    )
  }
  await sample()
  const sampler = setInterval(sample, 1_000)

  const load0 = loadavg()[0] ?? Number.NaN
  const warmupSent = await drive(t0 + WARMUP_SECONDS * 1000)
  if (SNAPSHOTS) await snapshotAll(instances, snapshotDir, 'warm-up end')
  const m0 = now()
  const sent = await drive(Date.now() + SECONDS * 1000)
  const m1 = now()
  if (SNAPSHOTS) await snapshotAll(instances, snapshotDir, 'measured end')
  clearInterval(sampler)
  await sample()
  const load1 = loadavg()[0] ?? Number.NaN

  // Settlements may still be confirming: give the ledger a moment, then compare with the chain.
  await new Promise((resolve) => setTimeout(resolve, 3_000))
  const db = new pg.Client({ connectionString: DATABASE_URL })
  await db.connect()
  const { rows } = await db.query<{ status: string; n: string; total: string }>(
    `SELECT status, count(*)::text AS n, COALESCE(sum(amount), 0)::text AS total FROM "${schema}".payments GROUP BY status ORDER BY status`,
  )
  const settledTotal = BigInt(rows.find((r) => r.status === 'settled')?.total ?? 0)
  const onChain = await chain.readContract({
    address: USDC_ADDRESS,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [payTo],
  })
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await db.end()
  await Promise.all(instances.map((i) => i.process.stop(10_000)))
  await anvil.stop()

  const elapsed = m1 - m0
  console.log(
    `\nrun ${run}/${RUNS}: ${CLIENTS} clients, ${RUNTIME === 'node' ? 'compiled dist/' : 'tsx'}${NODE_FLAGS ? ` with ${NODE_FLAGS}` : ''}${globalThis.process.env.MALLOC_ARENA_MAX ? `, MALLOC_ARENA_MAX=${globalThis.process.env.MALLOC_ARENA_MAX}` : ''}; load average ${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end (2 cores, shared)`,
  )
  console.log(
    `  warm-up ${m0.toFixed(1)} s: ${warmupSent} requests; measured ${elapsed.toFixed(1)} s: ${sent} requests (${(sent / elapsed).toFixed(0)}/s)${SNAPSHOTS ? '; heap snapshots paused the instances at both phase ends' : ''}`,
  )
  const f = (n: number) => n.toFixed(1).padStart(8)
  for (const [kind, list] of [...latencies.entries()].sort()) {
    console.log(
      `  ${kind.padEnd(11)} n=${String(list.length).padStart(6)}  p50=${f(percentile(list, 50))} ms  p99=${f(percentile(list, 99))} ms  max=${f(Math.max(...list))} ms`,
    )
  }
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0)
  console.log(
    `  errors: ${errorCount}${errorCount ? ` (${[...errors.entries()].map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}; 429s: ${limited}`,
  )
  const sum = (xs: number[], from: number, to: number) =>
    xs.slice(from, to).reduce((a, b) => a + (b ?? 0), 0)
  console.log(
    `  requests per instance (warm-up + measured): ${instances.map((i, n) => `#${n} ${sum(i.requests, 0, Math.ceil(m0))} + ${sum(i.requests, Math.ceil(m0), Number.MAX_SAFE_INTEGER)}`).join(', ')}`,
  )

  // The timeline: per ROW_SECONDS, each instance's requests, mean RSS (anon / file) and live heap.
  console.log(
    `  timeline (t s: per instance requests; RSS mean [anon + file]; of the anon part, V8's committed heap and external memory, means; live heap after full GCs min..max):`,
  )
  for (let from = 0; from < m1; from += ROW_SECONDS) {
    const to = from + ROW_SECONDS
    const cells = instances.map((i) => {
      const ms = i.memory.filter((s) => s.t >= from && s.t < to)
      const gcs = i.gcs.filter((s) => s.t >= from && s.t < to).map((g) => g.liveHeap)
      const heap = gcs.length ? `${mb(Math.min(...gcs))}..${mb(Math.max(...gcs))}` : '-'
      return ms.length
        ? `n=${String(sum(i.requests, from, to)).padStart(4)} RSS ${mb(mean(ms.map((s) => s.rss)))} [${mb(mean(ms.map((s) => s.anon)))} + ${mb(mean(ms.map((s) => s.file)))}] V8 ${mb(mean(ms.map((s) => s.heapTotal)))} ext ${mb(mean(ms.map((s) => s.external)))} live ${heap}`
        : '-'
    })
    const phase = to <= Math.ceil(m0) ? 'warm-up ' : 'measured'
    console.log(
      `    ${String(from).padStart(4)}-${String(to).padEnd(4)} ${phase} ${cells.join(' | ')}`,
    )
  }

  const perInstance = instances.map((i, n) => {
    const rssMean = (from: number, to: number) =>
      mean(i.memory.filter((s) => s.t >= from && s.t < to).map((s) => s.rss))
    const heapMean = (from: number, to: number) =>
      mean(i.gcs.filter((s) => s.t >= from && s.t < to).map((s) => s.liveHeap))
    const mid = (m0 + m1) / 2
    const measured = [rssMean(m0, mid), rssMean(mid, m1 + 1)] as const
    const whole = [rssMean(0, m1 / 2), rssMean(m1 / 2, m1 + 1)] as const
    const heap = [heapMean(m0, mid), heapMean(mid, m1 + 1)] as const
    const v8Mean = (from: number, to: number, pick: (s: MemorySample) => number) =>
      mean(
        i.memory.filter((s) => s.t >= from && s.t < to && Number.isFinite(s.heapTotal)).map(pick),
      )
    const committed = [
      v8Mean(m0, mid, (s) => s.heapTotal),
      v8Mean(mid, m1 + 1, (s) => s.heapTotal),
    ] as const
    // Anonymous memory outside V8's heap: malloc (arenas), buffers, code outside the heap.
    const outside = [
      v8Mean(m0, mid, (s) => s.anon - s.heapTotal),
      v8Mean(mid, m1 + 1, (s) => s.anon - s.heapTotal),
    ] as const
    const figures = {
      requests: sum(i.requests, 0, Number.MAX_SAFE_INTEGER),
      measuredRssGrowth: pct(...measured),
      wholeRssGrowth: pct(...whole),
      liveHeapGrowth: pct(...heap),
      committedHeapGrowth: pct(...committed),
      outsideHeapGrowth: pct(...outside),
    }
    console.log(
      `  instance ${n}: idle ${mb(idle[n] ?? Number.NaN)}; RSS mean, measured first half -> second half: ${mb(measured[0])} -> ${mb(measured[1])} (${signed(figures.measuredRssGrowth)}); whole load, warm-up included: ${mb(whole[0])} -> ${mb(whole[1])} (${signed(figures.wholeRssGrowth)}); live heap after full GCs, measured halves: ${mb(heap[0])} -> ${mb(heap[1])} (${signed(figures.liveHeapGrowth)}, ${i.gcs.length} full GCs); V8's committed heap: ${mb(committed[0])} -> ${mb(committed[1])} (${signed(figures.committedHeapGrowth)}); anonymous memory outside it: ${mb(outside[0])} -> ${mb(outside[1])} (${signed(figures.outsideHeapGrowth)})`,
    )
    return figures
  })
  console.log(
    `  ledger: ${rows.map((r) => `${r.status} ${r.n}`).join(', ')}; settled total ${settledTotal} = payTo on chain ${onChain}: ${settledTotal === onChain ? 'EQUAL' : 'DIFFERENT'} (paid answers: ${paid})`,
  )
  return { errors: errorCount, perInstance, ledgerEqual: settledTotal === onChain }
}

/** SIGUSR2 to each instance (`--heapsnapshot-signal`), then waits until its file stops growing. */
async function snapshotAll(instances: Instance[], dir: string, label: string): Promise<void> {
  const before = new Set(readdirSync(dir))
  for (const i of instances) globalThis.process.kill(i.pid, 'SIGUSR2')
  const deadline = Date.now() + 120_000
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const fresh = readdirSync(dir).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'))
    const sizes = fresh.map((f) => statSync(join(dir, f)).size)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const settled =
      fresh.length === instances.length &&
      fresh.every((f, n) => existsSync(join(dir, f)) && statSync(join(dir, f)).size === sizes[n])
    if (settled) {
      console.log(`  heap snapshots (${label}): ${fresh.map((f) => join(dir, f)).join(', ')}`)
      return
    }
    if (Date.now() > deadline) throw new Error(`heap snapshots (${label}) not written in time`)
  }
}

/** The one child process of `pid` (tsx runs the service in a child node). */
function childPid(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)
  return Number(children[0] ?? pid)
}

async function fetchUntilUp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false)
    if (ok) return
    if (Date.now() > deadline) throw new Error(`${url} not up within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

if (RUNTIME === 'node') ensureBuilt()
const runs: RunFigures[] = []
for (let run = 1; run <= RUNS; run++) runs.push(await runOnce(run))

console.log(
  `\nover ${RUNS} runs (${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured each; per instance, % growth):`,
)
// A half without a full collection has no live-heap figure: left out, not counted as zero.
const over = (pick: (i: RunFigures['perInstance'][number]) => number) =>
  runs.flatMap((r) => r.perInstance.map(pick)).filter((x) => Number.isFinite(x))
console.log(
  spread(
    '  RSS growth, measured first half -> second half',
    over((i) => i.measuredRssGrowth),
    '%',
  ),
)
console.log(
  spread(
    '  RSS growth, whole load (warm-up included)',
    over((i) => i.wholeRssGrowth),
    '%',
  ),
)
console.log(
  spread(
    '  live heap after full GCs, measured halves',
    over((i) => i.liveHeapGrowth),
    '%',
  ),
)
console.log(
  `  errors (other than 429s) per run: ${runs.map((r) => r.errors).join(', ')}; ledger = chain: ${runs.map((r) => (r.ledgerEqual ? 'EQUAL' : 'DIFFERENT')).join(', ')}`,
)
