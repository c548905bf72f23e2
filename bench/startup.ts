/**
 * Start-up: spawn to the first `/healthz` 200 on the devnet, with no configuration, rounds
 * interleaved so the machine's noise falls on every variant alike:
 *
 * - `npm start` (what a user runs: npm, then the compiled service in one node process);
 * - `node scripts/start.mjs` (the same without npm: the floor npm adds to);
 * - `tsx src/main.ts` (the same sources transpiled at run time: how `npm start` ran before);
 * - with BENCH_BEFORE_DIR (a checkout of an earlier commit with its node_modules), that
 *   checkout's own `npm start`: the real before, sequential start-up included.
 *
 * Then the idle RSS of the devnet service (the compiled one, a few seconds after it answered)
 * beside its floor, a bare Hono server measured the same way.
 * Builds dist/ first when stale, outside the timings. Prints figures; never fails on them.
 *
 * Run: npx tsx bench/startup.ts [rounds]
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt } from '../scripts/build.mjs'
import { freePort } from '../test/support/net.js'
import { spread } from './stats.js'

const rounds = Number(process.argv[2] ?? 5)
const ROOT = new URL('..', import.meta.url).pathname
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx')

/** A checkout of the code before this change (BENCH_BEFORE_DIR), started as it was then. */
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR

type Variant = readonly [command: string, args: readonly string[], cwd?: string]
const VARIANTS: Record<string, Variant> = {
  'npm start (compiled)': ['npm', ['start', '--silent']],
  'node scripts/start.mjs (compiled, no npm)': [process.execPath, ['scripts/start.mjs']],
  'tsx src/main.ts (run-time transpile)': [TSX, ['src/main.ts']],
  ...(BEFORE_DIR
    ? { 'before: npm start in BENCH_BEFORE_DIR (tsx)': ['npm', ['start', '--silent'], BEFORE_DIR] }
    : {}),
}

/** Resident set size of `pid` in MB (Linux /proc). */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
  return line?.[1] ? Number(line[1]) / 1024 : Number.NaN
}

/** Spawn to first `/healthz` 200 in ms; with `idleMs`, also the RSS after that long idle. */
async function startOnce(
  [command, args, cwd = ROOT]: Variant,
  idleMs = 0,
): Promise<{ ms: number; rss?: number }> {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'psg-bench-'))
  const started = performance.now()
  const child = spawn(command, args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
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
      if (exited) throw new Error(`${command} exited before answering /healthz`)
      if (performance.now() - started > 60_000) throw new Error('no /healthz 200 within 60 s')
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) {
        const ms = performance.now() - started
        if (idleMs === 0 || !child.pid) return { ms }
        await new Promise((r) => setTimeout(r, idleMs))
        return { ms, rss: rssMb(child.pid) }
      }
      await new Promise((r) => setTimeout(r, 5))
    }
  } finally {
    if (child.pid && !exited) {
      process.kill(-child.pid, 'SIGINT')
      await new Promise((r) => child.once('exit', r))
    }
    rmSync(dataDir, { recursive: true, force: true })
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
for (const [name, ms] of samples) console.log(spread(`start -> first /healthz 200: ${name}`, ms))

const rss: number[] = []
for (let i = 0; i < 3; i++) {
  const compiled = VARIANTS['node scripts/start.mjs (compiled, no npm)']
  const { rss: mb } = compiled ? await startOnce(compiled, 5_000) : {}
  if (mb !== undefined) rss.push(mb)
}
console.log(spread('idle RSS of the devnet service, 5 s after /healthz', rss, 'MB'))

// The floor: a bare Hono server on @hono/node-server answering /healthz, nothing else loaded.
const BARE = `import { serve } from '@hono/node-server'
import { Hono } from 'hono'
const app = new Hono().get('/healthz', (c) => c.json({ status: 'ok' }))
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' })`
const bareRss: number[] = []
for (let i = 0; i < 3; i++) {
  const { rss: mb } = await startOnce(
    [process.execPath, ['--input-type=module', '-e', BARE]],
    5_000,
  )
  if (mb !== undefined) bareRss.push(mb)
}
console.log(spread('  floor: idle RSS of a bare Hono server, 5 s after /healthz', bareRss, 'MB'))
