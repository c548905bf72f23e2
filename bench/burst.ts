import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { loadavg } from 'node:os'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt, MAIN } from '../scripts/build.mjs'
import { freePort } from '../test/support/net.js'
import { startBareNodeServer } from './bare-node-server.js'
import { envPairs, startBuiltService } from './built-service.js'
import { nativeDriver, postBytes, runNativeDriver } from './native-driver.js'
import { plainPreflightBody } from './plain-preflights.js'
import { percentile } from './stats.js'

const RUNS = Math.max(1, Number(process.env.BURST_RUNS ?? 5))
/** 0 skips the burst part. */
const SIZE = Math.max(0, Number(process.env.BURST_SIZE ?? 256))
/** Settings every service variant gets, e.g. `BURST_SERVICE_ENV=MAX_PREFLIGHTS_IN_FLIGHT=16`. */
const SERVICE_ENV = envPairs(process.env.BURST_SERVICE_ENV ?? '')
const WARMUP_SECONDS = Math.max(1, Number(process.env.BURST_WARMUP_SECONDS ?? 5))
const OVERLOAD_SECONDS = Math.max(0, Number(process.env.BURST_OVERLOAD_SECONDS ?? 5))
const CLUSTER = process.env.BURST_CLUSTER === '1'
/**
 * `BURST_PIN=1`: each service's process (every thread) runs on CPU 0 alone, its node (anvil)
 * and the native driver on CPU 1, as in production, where the RPC node and the clients are
 * other machines: what is then left of a figure is the service's own, not the 2 cores' sharing.
 * The bare server is not pinned.
 */
const PIN = process.env.BURST_PIN === '1'
/**
 * `BURST_SAME_RATE=1`: in each run every service's capacity is measured first, and every one is
 * offered twice the best of them and judged against it (a variant whose own closed-loop
 * capacity is lower is not offered, nor judged against, less).
 */
const SAME_RATE = process.env.BURST_SAME_RATE === '1'
/** The service's variants, e.g. `BURST_ACCEPT_HANDLES=1,8,32,default`. */
const VARIANTS = (process.env.BURST_ACCEPT_HANDLES ?? '1,default').split(',').filter(Boolean)
/**
 * More variants by their settings, `;`-separated, each space-separated pairs, e.g.
 * `BURST_VARIANTS='SHED_EVENT_LOOP_DELAY_MS=0;MAX_PREFLIGHTS_IN_FLIGHT=32'`.
 */
const ENV_VARIANTS = (process.env.BURST_VARIANTS ?? '')
  .split(';')
  .map((v) => v.trim())
  .filter(Boolean)
/**
 * The driver of the closed loops and the arrivals:
 * - `native` (default): `bench/native-driver.cc`, built here with g++ (once per change of its
 *   source): prebuilt requests on keep-alive connections, one epoll loop;
 * - `http`: `node:http`'s agent, the driver of the figures before the fifth session.
 * On 2 cores shared with the service and its node, the driver's CPU (printed per request) is
 * taken from them; `http`'s is about four times `native`'s (most of native's is the kernel's
 * loopback TCP, which any client pays). The burst of fresh connections always uses `node:http`.
 */
const DRIVER = process.env.BURST_DRIVER ?? 'native'
if (DRIVER !== 'native' && DRIVER !== 'http') throw new Error('BURST_DRIVER is native or http')
/** A built tree to run beside this one (its `dist/src/main.js`), e.g. main before the change. */
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR?.replace(/\/+$/, '')
let nextPort = Number(process.env.BURST_PORT_BASE ?? 0)
const port = async () => (nextPort > 0 ? nextPort++ : freePort())
const PREFLIGHT = '/payanagent/v1/base-transaction-preflight'

await ensureBuilt()

/** A distinct read-only preflight input for each `k`: an ETH or an ERC-20 transfer. */
const preflightBody = (k: number) => plainPreflightBody(k, 2)

interface Target {
  name: string
  base: string
  stop(): Promise<void>
}

/** The built service, or with `cluster` the same as the one worker of an accepting primary. */
async function startService(
  name: string,
  env: Record<string, string>,
  cluster = false,
  main: string = MAIN,
) {
  const service = await startBuiltService({
    port: await port(),
    args: cluster ? ['-e', CLUSTER_PRIMARY] : [main],
    env: { MAIN: main, ...SERVICE_ENV, ...env },
  })
  if (PIN) {
    // Every thread of the service on CPU 0, of its children (the devnet's anvil) on CPU 1.
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(service.pid)], { stdio: 'ignore' })
    const children = readFileSync(`/proc/${service.pid}/task/${service.pid}/children`, 'utf8')
    for (const child of children.trim().split(/\s+/).filter(Boolean))
      execFileSync('taskset', ['-a', '-p', '-c', '1', child], { stdio: 'ignore' })
  }
  return { name, base: service.base, stop: service.stop } satisfies Target
}

/**
 * Design (b) of issue 39's accept fix, as measured: a `node:cluster` primary that only accepts
 * (round-robin scheduling hands every accepted socket to the worker) and one worker that is
 * the service. Signals are passed on; the primary exits with the worker.
 */
const CLUSTER_PRIMARY = `
const cluster = require('node:cluster')
cluster.schedulingPolicy = cluster.SCHED_RR
cluster.setupPrimary({ exec: process.env.MAIN, execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
const worker = cluster.fork()
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => worker.process.kill(s))
worker.on('exit', (code) => process.exit(code ?? 1))`

async function startBareServer(answerBytes: number): Promise<Target> {
  const bare = await startBareNodeServer(answerBytes, await port())
  return {
    name: 'bare node:http server',
    base: bare.base,
    async stop() {
      bare.stop()
    },
  }
}

interface Answer {
  status: number
  ms: number
  retryAfter: string | undefined
  bytes: number
  error?: string
  /** The native driver: whether the request opened its connection (set-up in `ms`). */
  fresh?: boolean
}

let counter = 0
/** One preflight over `agent` (false: a fresh connection, closed after the answer). */
function preflight(
  base: string,
  agent: http.Agent | false,
  /** Told of the socket the request goes out on (to count the connections opened). */
  onSocket?: (socket: object) => void,
): Promise<Answer> {
  const target = new URL(PREFLIGHT, base)
  const payload = Buffer.from(JSON.stringify(preflightBody(counter++)))
  const started = performance.now()
  return new Promise((resolve) => {
    const fail = (error: Error) =>
      resolve({
        status: 0,
        ms: performance.now() - started,
        retryAfter: undefined,
        bytes: 0,
        error: error.message.slice(0, 120),
      })
    const req = http.request(
      {
        agent,
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          ...(agent === false ? { connection: 'close' } : {}),
        },
      },
      (res) => {
        let bytes = 0
        res.on('data', (c: Buffer) => {
          bytes += c.length
        })
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: performance.now() - started,
            retryAfter: res.headers['retry-after'],
            bytes,
          }),
        )
        res.on('error', fail)
      },
    )
    if (onSocket) req.once('socket', onSocket)
    req.setTimeout(60_000, () => req.destroy(new Error('no answer in 60 s')))
    req.on('error', fail)
    req.end(payload)
  })
}

/** Distinct prebuilt requests for `base` (`POST` bytes), `RING` of them, used in turn. */
const RING = 16_384
const rings = new Map<string, Buffer[]>()
let nextRequest = 0
function prebuilt(base: string): Buffer[] {
  let ring = rings.get(base)
  if (!ring) {
    const url = new URL(PREFLIGHT, base)
    ring = Array.from({ length: RING }, (_, k) => postBytes(url, preflightBody(k)))
    rings.set(base, ring)
  }
  return ring
}

if (DRIVER === 'native') nativeDriver()

/** The native driver's run: its answers (in `Answer`'s shape), connections opened, CPU. */
async function runNative(
  base: string,
  mode: 'open' | 'closed',
  param: number,
  seconds: number,
): Promise<{ answers: Answer[]; connections: number; cpuMs: number; seconds: number }> {
  const ring = prebuilt(base)
  // The ring from where the last run stopped, so that runs do not repeat each other's inputs.
  const requests = Array.from({ length: RING }, (_, i) => ring[(nextRequest + i) % RING] as Buffer)
  const run = await runNativeDriver(base, mode, param, seconds, requests, PIN ? '1' : undefined)
  nextRequest += run.answers.length
  return {
    ...run,
    answers: run.answers.map((a) => ({
      status: a.status,
      ms: a.ms,
      retryAfter: a.retryAfter ? 'present' : undefined,
      bytes: a.bytes,
      fresh: a.fresh,
      ...(a.status === 0 ? { error: 'connection failed or closed before the answer' } : {}),
    })),
  }
}

/** One keep-alive `node:http` client of `base`, and the connections it opened. */
function httpDriver(base: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })
  const sockets = new WeakSet<object>()
  let opened = 0
  const count = (socket: object) => {
    if (sockets.has(socket)) return
    sockets.add(socket)
    opened++
  }
  return {
    send: () => preflight(base, agent, count),
    opened: () => opened,
    destroy: () => agent.destroy(),
  }
}

/** `concurrency` clients over keep-alive connections for `seconds`: 200s per second. */
async function closedLoop(base: string, concurrency: number, seconds: number): Promise<number> {
  if (DRIVER === 'native') {
    const run = await runNative(base, 'closed', concurrency, seconds)
    return run.answers.filter((a) => a.status === 200).length / run.seconds
  }
  const driver = httpDriver(base)
  let ok = 0
  const started = performance.now()
  const until = started + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) if ((await driver.send()).status === 200) ok++
    }),
  )
  driver.destroy()
  return ok / ((performance.now() - started) / 1000)
}

interface Burst {
  p50: number
  p99: number
  max: number
  ok: number
  shed: number
  errors: number
  firstError: string
}

/** `SIZE` fresh connections at once, one preflight each. */
async function burst(base: string): Promise<Burst> {
  const answers = await Promise.all(Array.from({ length: SIZE }, () => preflight(base, false)))
  const ms = answers.map((a) => a.ms)
  const shed = answers.filter((a) => a.status === 503 && a.retryAfter !== undefined).length
  const bad = answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.retryAfter))
  return {
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: Math.max(...ms),
    ok: answers.filter((a) => a.status === 200).length,
    shed,
    errors: bad.length,
    firstError: bad[0] ? (bad[0].error ?? `HTTP ${bad[0].status}`) : '',
  }
}

interface Overload {
  capacity: number
  offered: number
  okRate: number
  shedShare: number
  shedP99: number
  /** The native driver: the p99 of the 503s sent on a kept connection, and on a new one. */
  shedP99Kept?: number
  shedP99New?: number
  okP99: number
  withoutRetryAfter: number
  errors: number
  firstError: string
  /** Connections the driver opened: every arrival while all of them were busy opened one. */
  connections: number
  /** This driver's CPU per request sent (ms), the /metrics reads included. */
  driverCpuMs: number
  /** Read off the service's /metrics every 500 ms during the arrivals (absent: none read). */
  watched?: Watched
}

/** The service's own view during the arrivals: its preflight bound and its loop's lag. */
interface Watched {
  /** `preflights_limit` (the adaptive bound; a build without it reads nothing). */
  limit: number[]
  /** prom-client's `nodejs_eventloop_lag_p99_seconds` over each 500 ms, in ms. */
  lagP99: number[]
}

/** Reads `/metrics` every 500 ms until `stop` (a target without /metrics gives nothing). */
function watch(base: string): { stop(): Promise<Watched | undefined> } {
  const seen: Watched = { limit: [], lagP99: [] }
  let read = 0
  let stopped = false
  const gauge = (text: string, name: string) => {
    const value = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1]
    return value === undefined ? undefined : Number(value)
  }
  const loop = (async () => {
    while (!stopped) {
      await new Promise((r) => setTimeout(r, 500))
      const res = await fetch(`${base}/metrics`).catch(() => undefined)
      if (res?.status !== 200) continue
      const text = await res.text()
      read++
      const limit = gauge(text, 'preflights_limit')
      const lag = gauge(text, 'nodejs_eventloop_lag_p99_seconds')
      if (limit !== undefined) seen.limit.push(limit)
      if (lag !== undefined) seen.lagP99.push(lag * 1000)
    }
  })()
  return {
    async stop() {
      stopped = true
      await loop
      return read > 0 ? seen : undefined
    },
  }
}

/** Closed-loop clients at 16 and at 64 in flight, 3 s each: the better 200s per second. */
const capacityOf = async (base: string) =>
  Math.max(await closedLoop(base, 16, 3), await closedLoop(base, 64, 3))

/**
 * Open-loop arrivals at `rate` for OVERLOAD_SECONDS, every answer awaited: the answers, the
 * connections opened and the driver's CPU (ms; the native driver's own process, or this one).
 */
async function arrivals(
  base: string,
  rate: number,
): Promise<{ answers: Answer[]; connections: number; cpuMs: number; seconds: number }> {
  if (DRIVER === 'native') return runNative(base, 'open', rate, OVERLOAD_SECONDS)
  const driver = httpDriver(base)
  const pending: Promise<Answer>[] = []
  const cpu = process.cpuUsage()
  const started = performance.now()
  const end = started + OVERLOAD_SECONDS * 1000
  // A fixed schedule: request i is due at started + i / rate, sent as soon as the loop sees it
  // due (every 1-2 ms), whatever the earlier answers are doing.
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now()
      const due = Math.floor(((Math.min(now, end) - started) / 1000) * rate)
      while (pending.length < due) pending.push(driver.send())
      if (now >= end) resolve()
      else setTimeout(tick, 1)
    }
    tick()
  })
  const answers = await Promise.all(pending)
  const used = process.cpuUsage(cpu)
  driver.destroy()
  return {
    answers,
    connections: driver.opened(),
    cpuMs: (used.user + used.system) / 1000,
    seconds: (performance.now() - started) / 1000,
  }
}

/**
 * Capacity first (measured here, or `known`), then open-loop arrivals at twice it for
 * OVERLOAD_SECONDS; `offered` instead: that rate (the bare server's floor).
 */
async function overload(base: string, offered?: number, known?: number): Promise<Overload> {
  const capacity = offered === undefined ? (known ?? (await capacityOf(base))) : offered / 2
  const rate = 2 * capacity
  const watcher = offered === undefined ? watch(base) : undefined
  const { answers, connections, cpuMs, seconds: elapsed } = await arrivals(base, rate)
  const watched = await watcher?.stop()
  const ok = answers.filter((a) => a.status === 200)
  const shed = answers.filter((a) => a.status === 503)
  const bad = answers.filter((a) => a.status !== 200 && a.status !== 503)
  return {
    capacity,
    offered: answers.length / OVERLOAD_SECONDS,
    okRate: ok.length / elapsed,
    shedShare: shed.length / Math.max(1, answers.length),
    shedP99: percentile(
      shed.map((a) => a.ms),
      99,
    ),
    ...(DRIVER === 'native'
      ? {
          shedP99Kept: percentile(
            shed.filter((a) => !a.fresh).map((a) => a.ms),
            99,
          ),
          shedP99New: percentile(
            shed.filter((a) => a.fresh).map((a) => a.ms),
            99,
          ),
        }
      : {}),
    okP99: percentile(
      ok.map((a) => a.ms),
      99,
    ),
    withoutRetryAfter: shed.filter((a) => a.retryAfter === undefined).length,
    errors: bad.length,
    firstError: bad[0] ? (bad[0].error ?? `HTTP ${bad[0].status}`) : '',
    connections,
    driverCpuMs: cpuMs / Math.max(1, answers.length),
    ...(watched ? { watched } : {}),
  }
}

const f0 = (n: number) => n.toFixed(0)
const f2 = (n: number) => n.toFixed(2)
const stat = (xs: number[], f = f0) =>
  `${f(Math.min(...xs))}/${f(percentile(xs, 50))}/${f(Math.max(...xs))}`
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')

/** What /metrics said during the arrivals, min/median/max. */
const watching = (w: Watched | undefined) =>
  w === undefined
    ? ''
    : `${w.limit.length ? `, preflights_limit ${stat(w.limit)}` : ''}${w.lagP99.length ? `, loop lag p99 ${stat(w.lagP99)} ms` : ''}`

const loadAtStart = load()
const services: Target[] = []
try {
  for (const handles of VARIANTS) {
    services.push(
      handles === 'default'
        ? await startService('service, default ACCEPT_HANDLES', {})
        : await startService(
            `service, ACCEPT_HANDLES=${handles}${handles === '1' ? ' (Node default)' : ''}`,
            { ACCEPT_HANDLES: handles },
          ),
    )
  }
  for (const variant of ENV_VARIANTS) {
    services.push(await startService(`service, ${variant}`, envPairs(variant)))
  }
  if (BEFORE_DIR) {
    services.push(
      await startService('before (BENCH_BEFORE_DIR)', {}, false, `${BEFORE_DIR}/dist/src/main.js`),
    )
  }
  if (CLUSTER) {
    services.push(
      await startService(
        'service as the worker of a cluster primary (SCHED_RR)',
        { ACCEPT_HANDLES: '1' },
        true,
      ),
    )
  }
} catch (error) {
  // One variant failed to start: the ones already up are not left running.
  for (const service of services) await service.stop()
  throw error
}
const sample = await preflight((services[0] as Target).base, false)
const bare = await startBareServer(sample.bytes)
const targets = [bare, ...services]
try {
  for (const target of targets) await closedLoop(target.base, 16, WARMUP_SECONDS)
  if (SIZE > 0)
    console.log(
      `\n-- 1. a burst of ${SIZE} fresh connections at once, one preflight each, ${RUNS} runs (load average at start ${loadAtStart})`,
    )
  const bursts = new Map<Target, Burst[]>(targets.map((t) => [t, []]))
  const ratios = new Map<Target, number[]>(services.map((t) => [t, []]))
  for (let run = 0; run < (SIZE > 0 ? RUNS : 0); run++) {
    const floor = await burst(bare.base)
    bursts.get(bare)?.push(floor)
    await new Promise((r) => setTimeout(r, 500))
    for (const service of services) {
      const b = await burst(service.base)
      bursts.get(service)?.push(b)
      ratios.get(service)?.push(b.p99 / floor.p99)
      // Let the service's last answers and closes settle before the next burst.
      await new Promise((r) => setTimeout(r, 1_000))
    }
    console.log(
      `  run ${run + 1}: p99 ${targets.map((t) => f0(bursts.get(t)?.at(-1)?.p99 ?? Number.NaN)).join(' | ')} ms (load ${load()})`,
    )
  }
  if (SIZE > 0) console.log('  min/median/max over runs:')
  for (const target of SIZE > 0 ? targets : []) {
    const list = bursts.get(target) ?? []
    const sum = (pick: (b: Burst) => number) => list.reduce((a, b) => a + pick(b), 0)
    const first = list.find((b) => b.firstError)?.firstError
    const ratio = ratios.get(target)
    console.log(
      `  ${target.name}: p50 ${stat(list.map((b) => b.p50))} ms, p99 ${stat(list.map((b) => b.p99))} ms, max ${stat(list.map((b) => b.max))} ms${ratio ? `, p99 / the bare server's ${stat(ratio, f2)}x` : ''}; 200 ${sum((b) => b.ok)}, 503 overloaded ${sum((b) => b.shed)}, errors ${sum((b) => b.errors)}${first ? ` (first: ${first})` : ''}`,
    )
  }
  if (OVERLOAD_SECONDS > 0) {
    console.log(
      `\n-- 2. open-loop arrivals at twice the capacity measured just before, ${OVERLOAD_SECONDS} s, ${RUNS} runs, driver ${DRIVER}`,
    )
    const overloads = new Map<Target, Overload[]>(services.map((t) => [t, []]))
    for (let run = 0; run < RUNS; run++) {
      let best: number | undefined
      if (SAME_RATE) {
        const capacities: number[] = []
        for (const service of services) capacities.push(await capacityOf(service.base))
        best = Math.max(...capacities)
        console.log(
          `  run ${run + 1}: capacities ${capacities.map(f0).join(' | ')}/s; every service offered twice ${f0(best)}/s`,
        )
      }
      for (const service of services) {
        const o = await overload(service.base, undefined, best)
        // The floor: the bare server offered the same rate the same way, which it serves
        // whole: what this driver and machine add to a fast answer at that rate.
        const floor = await overload(bare.base, o.offered)
        overloads.get(service)?.push(o)
        console.log(
          `  run ${run + 1}, ${service.name}: capacity ${f0(o.capacity)}/s, offered ${f0(o.offered)}/s, 200s ${f0(o.okRate)}/s = ${f2(o.okRate / o.capacity)}x capacity, 503 ${(100 * o.shedShare).toFixed(1)} % (p99 ${f0(o.shedP99)} ms${o.shedP99Kept === undefined ? '' : `: on kept connections ${f0(o.shedP99Kept)}, on new ones ${f0(o.shedP99New ?? Number.NaN)}`}, without Retry-After ${o.withoutRetryAfter}), 200 p99 ${f0(o.okP99)} ms, errors ${o.errors}${o.firstError ? ` (first: ${o.firstError})` : ''}, connections opened ${o.connections}, driver CPU ${o.driverCpuMs.toFixed(3)} ms per request${watching(o.watched)}; the bare server at the same rate: p99 ${f0(floor.okP99)} ms, ${f0(floor.okRate)}/s, connections ${floor.connections} (load ${load()})`,
        )
        await new Promise((r) => setTimeout(r, 1_000))
      }
    }
    console.log('  min/median/max over runs:')
    for (const service of services) {
      const list = overloads.get(service) ?? []
      console.log(
        `  ${service.name}: 200s / capacity ${stat(
          list.map((o) => o.okRate / o.capacity),
          f2,
        )}x, 503 p99 ${stat(list.map((o) => o.shedP99))} ms, 200 p99 ${stat(list.map((o) => o.okP99))} ms, capacity ${stat(list.map((o) => o.capacity))}/s, connections opened ${stat(list.map((o) => o.connections))}, driver CPU per request ${stat(
          list.map((o) => o.driverCpuMs),
          (n) => n.toFixed(3),
        )} ms, errors ${list.reduce((a, o) => a + o.errors, 0)}, 503 without Retry-After ${list.reduce((a, o) => a + o.withoutRetryAfter, 0)}`,
      )
    }
  }
  console.log(`load average at start ${loadAtStart}, at the end ${load()}`)
} finally {
  for (const target of targets) await target.stop()
}
