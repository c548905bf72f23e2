/**
 * Start-up and idle memory, each next to its floor measured in the same run, rounds
 * interleaved so the machine's noise falls on every variant alike:
 *
 * - `npm start` on the devnet with no configuration: spawn to the first `/healthz` 200 (the
 *   service listens only once devnet, ledger, payment side and routes are all up);
 * - floor: a bare node + Hono server answering `/healthz`, spawn to its first 200;
 * - floor: anvil alone, spawn to its first `eth_chainId` answer;
 * - floor: anvil loading the devnet's Base world (its state file), as every devnet start does;
 * - floor: npm itself, running that bare server (`npm run bench:bare-hono`), to its first 200;
 * - with BENCH_BEFORE_DIR (a checkout of an earlier commit with its node_modules), that
 *   checkout's own `npm start`: the real before.
 *
 * Then idle RSS 5 s after the first 200: the service's node process on the devnet (its
 * anvil reported apart), in mainnet mode (BASE_RPC_URL at an anvil, built-in facilitator,
 * PGlite in DATA_DIR, second start so the ledger exists), and the bare Hono floor. RSS of the
 * service is that of every process it runs except anvil: the service runs no other.
 * Builds dist/ first when stale, outside the timings. Prints figures; never fails on them.
 *
 * Run: npx tsx bench/startup.ts [rounds, default 5]
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt, MAIN } from '../scripts/build.mjs'
import { resolveAnvilBinary, startAnvil } from '../src/adapters/devnet/anvil.js'
import { ensureDevnetState } from '../src/adapters/devnet/devnet-state.js'
import { THROWAWAY_PREFIX } from '../src/adapters/storage/pglite-files.js'
import { freePort } from '../test/support/net.js'
import { spread } from './stats.js'

const rounds = Math.max(5, Number(process.argv[2] ?? 5))
const ROOT = new URL('..', import.meta.url).pathname
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR

/** The devnet's state file, built first when missing (outside the timings). */
const DEVNET_STATE = await ensureDevnetState()

/** The floor: a bare Hono server on @hono/node-server answering /healthz, nothing else loaded. */
const BARE = join(ROOT, 'bench', 'bare-hono.mjs')

type Variant = {
  command: string
  args: (port: number) => string[]
  cwd?: string
  env?: Record<string, string>
  /** The request that counts as "up". */
  probe: (port: number) => Promise<boolean>
}

const healthz = (port: number) =>
  fetch(`http://127.0.0.1:${port}/healthz`).then(
    (r) => r.ok,
    () => false,
  )
const chainId = (port: number) =>
  fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
  }).then(
    (r) => r.ok,
    () => false,
  )

const VARIANTS: Record<string, Variant> = {
  'npm start (devnet, no configuration)': {
    command: 'npm',
    args: () => ['start', '--silent'],
    probe: healthz,
  },
  '  floor: bare node + Hono': {
    command: process.execPath,
    args: () => [BARE],
    probe: healthz,
  },
  '  floor: npm run of the bare node + Hono server': {
    command: 'npm',
    args: () => ['run', '--silent', 'bench:bare-hono'],
    probe: healthz,
  },
  '  floor: anvil alone, to its first eth_chainId': {
    command: resolveAnvilBinary(),
    args: (port) => ['--port', String(port), '--chain-id', '8453', '--silent'],
    probe: chainId,
  },
  // What the devnet's anvil does at every start: load the built Base world (devnet-state.ts).
  '  floor: anvil loading the devnet state (Base world)': {
    command: resolveAnvilBinary(),
    args: (port) => [
      '--port',
      String(port),
      '--chain-id',
      '8453',
      '--silent',
      '--load-state',
      DEVNET_STATE,
    ],
    probe: chainId,
  },
  ...(BEFORE_DIR
    ? {
        'before: npm start in BENCH_BEFORE_DIR': {
          command: 'npm',
          args: () => ['start', '--silent'],
          cwd: BEFORE_DIR,
          probe: healthz,
        },
      }
    : {}),
}

/** A `kB` line of `/proc/<pid>/status` (VmRSS, RssAnon, RssFile) in MB. */
function statusMb(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(
    new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'),
  )
  return line?.[1] ? Number(line[1]) / 1024 : Number.NaN
}

/** The processes `pid` started, and theirs (Linux /proc). */
function descendants(pid: number): number[] {
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
  } catch {
    return []
  }
  return children.flatMap((child) => [child, ...descendants(child)])
}

const command = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim()

interface Run {
  ms: number
  /** With `idleMs`: node's RSS (every non-anvil process of the tree), and anvil's, in MB. */
  rss?: number
  /** Of `rss`: anonymous memory (heaps, WebAssembly memory, stacks), the rest is files mapped. */
  anonRss?: number
  anvilRss?: number
  /** With `idleMs`: the throwaway ledgers it made in memory-backed /dev/shm, in MB. */
  shmLedger?: number
}

const SHM = '/dev/shm'
/** Throwaway ledgers now in /dev/shm (see throwawayHome in src/adapters/storage/pglite-files.ts). */
function shmLedgers(): Set<string> {
  try {
    return new Set(readdirSync(SHM).filter((name) => name.startsWith(THROWAWAY_PREFIX)))
  } catch {
    return new Set()
  }
}
/** Size in MB of the files under `dir`. */
function treeMb(dir: string): number {
  let bytes = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size
  }
  return bytes / 2 ** 20
}

async function startOnce(variant: Variant, idleMs = 0, dataDir?: string): Promise<Run> {
  const port = await freePort()
  const scratch = dataDir ?? mkdtempSync(join(tmpdir(), 'psg-bench-'))
  const ledgersBefore = shmLedgers()
  const started = performance.now()
  const child: ChildProcess = spawn(variant.command, variant.args(port), {
    cwd: variant.cwd ?? ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      DATA_DIR: scratch,
      LOG_LEVEL: 'silent',
      // Never recorded where the user's CLI looks for a running guard.
      PRE_SEND_GUARD_INSTANCES: '',
      ...variant.env,
    },
    detached: true,
    stdio: 'ignore',
  })
  let exited = false
  child.once('exit', () => {
    exited = true
  })
  try {
    for (;;) {
      if (exited) throw new Error(`${variant.command} exited before answering`)
      if (performance.now() - started > 120_000) throw new Error('no answer within 120 s')
      if (await variant.probe(port)) break
      await new Promise((r) => setTimeout(r, 5))
    }
    const ms = performance.now() - started
    if (idleMs === 0 || !child.pid) return { ms }
    await new Promise((r) => setTimeout(r, idleMs))
    // npm (its title is "npm start ...") and its shell are not the service: measure the node
    // process they run, and whatever that runs.
    const tree = [child.pid, ...descendants(child.pid)].filter(
      (pid) => !/^(npm|sh)\b/.test(command(pid)),
    )
    const anvils = tree.filter((pid) => command(pid) === 'anvil')
    const sum = (pids: number[], field = 'VmRSS') =>
      pids.reduce((total, pid) => total + statusMb(pid, field), 0)
    const ledgers = [...shmLedgers()].filter((name) => !ledgersBefore.has(name))
    return {
      ms,
      rss: sum(tree.filter((pid) => !anvils.includes(pid))),
      anonRss: sum(
        tree.filter((pid) => !anvils.includes(pid)),
        'RssAnon',
      ),
      anvilRss: sum(anvils),
      shmLedger: ledgers.reduce((total, name) => total + treeMb(join(SHM, name)), 0),
    }
  } finally {
    if (child.pid && !exited) {
      process.kill(-child.pid, 'SIGINT')
      await new Promise((r) => child.once('exit', r))
    }
    if (!dataDir) rmSync(scratch, { recursive: true, force: true })
  }
}

ensureBuilt()
const samples = new Map<string, number[]>(Object.keys(VARIANTS).map((name) => [name, []]))
// Warm the disk cache for every variant alike.
for (const variant of Object.values(VARIANTS)) await startOnce(variant)
for (let round = 0; round < rounds; round++) {
  for (const [name, variant] of Object.entries(VARIANTS)) {
    samples.get(name)?.push((await startOnce(variant)).ms)
  }
}
for (const [name, ms] of samples) console.log(spread(`start -> first answer: ${name}`, ms))

const npmStart = VARIANTS['npm start (devnet, no configuration)'] as Variant
const idle = async (variant: Variant, dataDir?: string) => {
  const runs: Run[] = []
  for (let i = 0; i < 3; i++) runs.push(await startOnce(variant, 5_000, dataDir))
  return runs
}
const before = VARIANTS['before: npm start in BENCH_BEFORE_DIR']
// With a before, both idle in alternation (5 each), so the machine's noise falls on both alike.
const devnet: Run[] = []
const devnetBefore: Run[] = []
if (before) {
  for (let i = 0; i < 5; i++) {
    devnet.push(await startOnce(npmStart, 5_000))
    devnetBefore.push(await startOnce(before, 5_000))
  }
} else devnet.push(...(await idle(npmStart)))
console.log(
  spread(
    'idle RSS, devnet: the service (node)',
    devnet.map((r) => r.rss ?? NaN),
    'MB',
  ),
)
console.log(
  spread(
    '  of it anonymous (V8 heaps, WebAssembly memory, malloc)',
    devnet.map((r) => r.anonRss ?? NaN),
    'MB',
  ),
)
if (before) {
  console.log(
    spread(
      '  the same, BENCH_BEFORE_DIR (alternating)',
      devnetBefore.map((r) => r.rss ?? NaN),
      'MB',
    ),
  )
  console.log(
    spread(
      '    of it anonymous',
      devnetBefore.map((r) => r.anonRss ?? NaN),
      'MB',
    ),
  )
}
console.log(
  spread(
    '  its anvil, apart',
    devnet.map((r) => r.anvilRss ?? NaN),
    'MB',
  ),
)
console.log(
  spread(
    '  its throwaway ledger in /dev/shm, apart',
    devnet.map((r) => r.shmLedger ?? NaN),
    'MB',
  ),
)

// Where the time goes: the service's own clock (the "listening" line's `startupMs`, ms since
// its process started, when each step finished), running the built service directly.
const steps = new Map<string, number[]>()
for (let round = 0; round < rounds; round++) {
  const port = await freePort()
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  for await (const line of lines) {
    const startupMs = (JSON.parse(line) as { startupMs?: Record<string, number> }).startupMs
    if (!startupMs) continue
    for (const [step, ms] of Object.entries(startupMs))
      steps.set(step, [...(steps.get(step) ?? []), ms])
    break
  }
  child.kill('SIGINT')
  await new Promise((r) => child.once('exit', r))
}
for (const [step, ms] of steps) {
  console.log(spread(`node dist/src/main.js, step done at (since process start): ${step}`, ms))
}

// Mainnet mode: the same service against an RPC (an anvil standing in for Base), with
// mainnet's required settings; keys are random, never anvil's public ones.
const rpc = await startAnvil()
const mainnetDir = mkdtempSync(join(tmpdir(), 'psg-bench-mainnet-'))
const random = (bytes: number) =>
  `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex')}`
try {
  const mainnet: Variant = {
    ...npmStart,
    env: {
      BASE_RPC_URL: rpc.rpcUrl,
      // Required on mainnet; only printed in answers, which this benchmark does not read.
      PUBLIC_BASE_URL: 'http://127.0.0.1',
      PAY_TO_ADDRESS: random(20),
      FACILITATOR: 'builtin',
      SETTLEMENT_PRIVATE_KEY: random(32),
      RECEIPT_PRIVATE_KEY: random(32),
    },
  }
  await startOnce(mainnet, 0, mainnetDir) // the first start creates DATA_DIR/ledger
  const runs = await idle(mainnet, mainnetDir)
  console.log(
    spread(
      'idle RSS, mainnet mode: the service (node)',
      runs.map((r) => r.rss ?? NaN),
      'MB',
    ),
  )
} finally {
  await rpc.stop()
  rmSync(mainnetDir, { recursive: true, force: true })
}
const bare = await idle(VARIANTS['  floor: bare node + Hono'] as Variant)
console.log(
  spread(
    '  floor: idle RSS of a bare Hono server',
    bare.map((r) => r.rss ?? NaN),
    'MB',
  ),
)
