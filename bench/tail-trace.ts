/**
 * Where a slow preflight's time goes at high concurrency (issue 39 item 3). Starts the built
 * service (`dist/src/main.js`, devnet) with `bench/tail-trace-preload.cjs`, warms it up at 16 in
 * flight, then drives distinct read-only preflights at CONCURRENCY in flight over keep-alive
 * HTTP (the same client as bench/service.ts: a fresh connection per extra client) and joins, per
 * request, the driver's timestamps with the service's: sent -> connection accepted (the kernel's
 * accept queue) -> request started -> answer written (its RPC exchanges within) -> received.
 * Samples the listening socket's accept queue (/proc/net/tcp) meanwhile, and prints the
 * event-loop delay, stalls and GC pauses over the run. With PROF_OUT the run is also CPU
 * profiled (a .cpuprofile, 250 µs sampling); with NO_TRACE the per-request hooks are off.
 *
 * Run: npx tsx bench/tail-trace.ts [concurrency=256] [seconds=8] [port=free]
 *   (TAIL_TRACE_MAIN: another build's main.js; TAIL_TRACE_ENV: JSON of extra service settings)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeFunctionData, erc20Abi } from 'viem'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt, MAIN } from '../scripts/build.mjs'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../src/adapters/devnet/prepare.js'
import { freePort } from '../test/support/net.js'
import { percentile } from './stats.js'

const CONCURRENCY = Number(process.argv[2] ?? 256)
const SECONDS = Number(process.argv[3] ?? 8)
const PORT = process.argv[4] ? Number(process.argv[4]) : await freePort()
const PREFLIGHT = '/payanagent/v1/base-transaction-preflight'
const BUYER = DEVNET_ACCOUNTS.buyer.address
const PERSON = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const SPENDER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const now = () => performance.timeOrigin + performance.now()

/** bench/service.ts's inputs: an ETH transfer, an ERC-20 transfer or an approve, each its own. */
function preflightBody(k: number) {
  const amount = BigInt(k + 1)
  if (k % 3 === 0) return { from: BUYER, to: PERSON, data: '0x', value: `0x${amount.toString(16)}` }
  const data =
    k % 3 === 1
      ? encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [PERSON, amount] })
      : encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, amount] })
  return { from: BUYER, to: USDC_ADDRESS, data, value: '0x0' }
}

/** The accept queue of the socket listening on `port` (/proc/net/tcp's rx_queue of LISTEN). */
function acceptQueue(port: number): number {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f[1]?.endsWith(hex) && f[3] === '0A') return Number.parseInt(f[4]?.split(':')[1] ?? '0', 16)
  }
  return 0
}

await ensureBuilt()
const dataDir = mkdtempSync(join(tmpdir(), 'psg-tail-trace-'))
const traceOut = join(dataDir, 'trace.json')
const child = spawn(
  process.execPath,
  [
    '--require',
    new URL('./tail-trace-preload.cjs', import.meta.url).pathname,
    process.env.TAIL_TRACE_MAIN ?? MAIN,
  ],
  {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      PORT: String(PORT),
      DATA_DIR: dataDir,
      TRACE_OUT: traceOut,
      ...(process.env.PROF_OUT ? { PROF_OUT: process.env.PROF_OUT } : {}),
      ...(process.env.NO_TRACE ? { NO_TRACE: '1' } : {}),
      ...(process.env.TAIL_TRACE_ENV ? JSON.parse(process.env.TAIL_TRACE_ENV) : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
)
const base = `http://127.0.0.1:${PORT}`
try {
  for (
    let tries = 0;
    !(await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    ));
    tries++
  ) {
    if (tries > 600 || child.exitCode !== null) throw new Error('the service did not start')
    await new Promise((r) => setTimeout(r, 200))
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 })
  type Sample = { k: number; sent: number; received: number; status: number; fresh: boolean }
  const one = (k: number) =>
    new Promise<Sample>((resolve) => {
      const payload = Buffer.from(JSON.stringify(preflightBody(k)))
      const sent = now()
      let fresh = false
      const req = http.request(
        {
          agent,
          hostname: '127.0.0.1',
          port: PORT,
          path: PREFLIGHT,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': payload.length,
            'x-trace': String(k),
          },
        },
        (res) => {
          res.resume()
          res.on('end', () =>
            resolve({ k, sent, received: now(), status: res.statusCode ?? 0, fresh }),
          )
        },
      )
      req.on('socket', () => {
        fresh = !req.reusedSocket
      })
      req.on('error', () => resolve({ k, sent, received: now(), status: 0, fresh }))
      req.end(payload)
    })
  let counter = 0
  const drive = async (concurrency: number, seconds: number) => {
    const samples: Sample[] = []
    const until = performance.now() + seconds * 1000
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) samples.push(await one(counter++))
      }),
    )
    return samples
  }
  await drive(16, 5)
  child.kill('SIGUSR2')
  await new Promise((r) => setTimeout(r, 300))
  const queue: number[] = []
  const sampler = setInterval(() => queue.push(acceptQueue(PORT)), 100)
  const samples = await drive(CONCURRENCY, SECONDS)
  clearInterval(sampler)
  child.kill('SIGUSR2')
  await new Promise((r) => setTimeout(r, 500))
  agent.destroy()

  type Rec = {
    id: string
    accepted: number
    firstOnConnection: boolean
    start: number
    end: number
    rpc: { start: number; end?: number }[]
  }
  const trace = JSON.parse(readFileSync(traceOut, 'utf8')) as {
    records: Rec[]
    stalls: { ms: number }[]
    gcs: { ms: number }[]
    delay: { p50: number; p99: number; max: number }
  }
  const byId = new Map(trace.records.map((r) => [r.id, r]))
  const ok = samples.filter((s) => s.status === 200)
  const ms = ok.map((s) => s.received - s.sent)
  const f = (n: number) => n.toFixed(1)
  console.log(
    `c=${CONCURRENCY}, ${SECONDS} s: ${f(ok.length / SECONDS)} preflights/s, p50 ${f(percentile(ms, 50))} ms, p99 ${f(percentile(ms, 99))} ms, max ${f(Math.max(...ms))} ms; errors ${samples.length - ok.length}; load ${loadavg()[0]?.toFixed(1)}`,
  )
  console.log(
    `  event-loop delay p50 ${f(trace.delay.p50)} p99 ${f(trace.delay.p99)} max ${f(trace.delay.max)} ms; ${trace.stalls.length} stalls over 40 ms (max ${f(Math.max(0, ...trace.stalls.map((s) => s.ms)))}); ${trace.gcs.length} GC pauses over 10 ms (max ${f(Math.max(0, ...trace.gcs.map((g) => g.ms)))})`,
  )
  console.log(
    `  accept queue (connections the kernel holds until the service accepts them), sampled every 100 ms: max ${Math.max(0, ...queue)}, median ${percentile(queue, 50)}`,
  )
  const phases = (list: Sample[]) => {
    const rows = list.flatMap((s) => {
      const r = byId.get(String(s.k))
      if (!r) return []
      const rpc = r.rpc.filter((e) => e.end !== undefined)
      return [
        {
          total: s.received - s.sent,
          // Only a fresh connection's first request waits to be accepted.
          accept: r.firstOnConnection ? Math.max(0, r.accepted - s.sent) : 0,
          toStart: r.start - (r.firstOnConnection ? Math.max(s.sent, r.accepted) : s.sent),
          server: r.end - r.start,
          rpc:
            rpc.length === 0
              ? 0
              : Math.max(...rpc.map((e) => e.end as number)) - Math.min(...rpc.map((e) => e.start)),
          back: s.received - r.end,
          fresh: r.firstOnConnection,
        },
      ]
    })
    const med = (pick: (x: (typeof rows)[number]) => number) => f(percentile(rows.map(pick), 50))
    return `${rows.length} requests (${rows.filter((x) => x.fresh).length} first on a fresh connection): total ${med((x) => x.total)} = waiting to be accepted ${med((x) => x.accept)} + read, queued on the event loop ${med((x) => x.toStart)} + served ${med((x) => x.server)} (RPC span ${med((x) => x.rpc)}) + answer back ${med((x) => x.back)} ms (medians)`
  }
  const slowest = [...ok].sort((a, b) => b.received - b.sent - (a.received - a.sent))
  console.log(
    `  the slowest 1 %: ${phases(slowest.slice(0, Math.max(5, Math.ceil(ok.length / 100))))}`,
  )
  console.log(`  all: ${phases(ok)}`)
} finally {
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
  rmSync(dataDir, { recursive: true, force: true })
}
