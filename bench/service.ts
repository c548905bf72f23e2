import { readFileSync } from 'node:fs'
import http from 'node:http'
import { loadavg } from 'node:os'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt, MAIN } from '../scripts/build.mjs'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { USDC_ADDRESS } from '../src/adapters/devnet/prepare.js'
import { freePort } from '../test/support/net.js'
import { postJson, preflightApp } from '../test/support/preflight-app.js'
import { usdcPermitRequest } from '../test/support/usdc-typed-data.js'
import { startBareNodeServer } from './bare-node-server.js'
import { envPairs, startBuiltService } from './built-service.js'
import { callsOf, startLatencyRpc } from './latency-rpc.js'
import { nativeDriver, postBytes, runNativeDriver } from './native-driver.js'
import { BUYER, plainPreflightBody, SPENDER } from './plain-preflights.js'
import { percentile } from './stats.js'

const SECONDS = Number(process.env.SERVICE_BENCH_SECONDS ?? 3)
const ROUNDS = Math.max(1, Number(process.env.SERVICE_BENCH_ROUNDS ?? 5))
/** 0 skips the memory part. */
const MEMORY_ROUNDS = Math.max(0, Number(process.env.SERVICE_BENCH_MEMORY_ROUNDS ?? 5))
const WARMUP_SECONDS = Math.max(1, Number(process.env.SERVICE_BENCH_WARMUP_SECONDS ?? 5))
/** The sweep's points, e.g. `SERVICE_BENCH_CONCURRENCY=64,256` for the tail alone. */
const CONCURRENCY = (process.env.SERVICE_BENCH_CONCURRENCY ?? '1,4,16,64,256')
  .split(',')
  .map(Number)
/**
 * `SERVICE_BENCH_ALSO_ENV=ACCEPT_HANDLES=1` (space-separated NAME=value pairs): this tree's
 * service is also swept with those settings, in the same rounds.
 */
const ALSO_ENV = process.env.SERVICE_BENCH_ALSO_ENV?.trim()
/**
 * `SERVICE_BENCH_PORT_BASE=19200`: every port this bench listens on (each service, its devnet,
 * the floors' devnet and bare server) is the next one from there, for a machine where others run
 * benches too; unset, free ports.
 */
let nextPort = Number(process.env.SERVICE_BENCH_PORT_BASE ?? 0)
const port = async () => (nextPort > 0 ? nextPort++ : await freePort())
const PREFLIGHT = '/payanagent/v1/base-transaction-preflight'
const UNKNOWN_ROUTE = '/payanagent/v1/no-such-route'
/**
 * The driver of the sweep's preflights: `native` (default), `bench/native-driver.cc`'s closed
 * loop (prebuilt requests on keep-alive connections, a few hundredths of a millisecond of CPU
 * per request); `http`, this process's `node:http` clients (the figures before the sixth
 * session). Its clients resend a 503 at once either way, so past the admission bound they spin,
 * and a `node:http` driver's spinning took up to a millisecond of CPU per 200 from the 2 cores
 * the service and its node share. The warm-up, the floors and the HTTP stack alone use
 * `node:http`.
 */
const DRIVER = process.env.SERVICE_BENCH_DRIVER ?? 'native'
if (DRIVER !== 'native' && DRIVER !== 'http')
  throw new Error('SERVICE_BENCH_DRIVER is native or http')
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICK_MS = 10

await ensureBuilt()

const preflightBody = (k: number) => plainPreflightBody(k, 3)
if (DRIVER === 'native') nativeDriver()

// --- processes and their CPU and memory, read from /proc -------------------------------------
/** CPU ms (user + system) in a /proc `stat` line. */
function statCpuMs(stat: string): number {
  const fields = (stat.split(') ')[1] ?? '').split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}
const cpuMs = (pid: number) => statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'))
/** CPU ms of a process's main thread; the rest of its CPU is its other threads' (V8's compiler
 * and GC helpers, libuv's pool, the ledger's thread). */
const mainThreadCpuMs = (pid: number) =>
  statCpuMs(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'))
function rssBytes(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(line?.[1]) * 1024
}
const ownCpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

interface Service {
  pid: number
  anvilPid: number
  base: string
  stop(): Promise<void>
}

async function startService(
  env: Record<string, string> = {},
  main: string = MAIN,
): Promise<Service> {
  const service = await startBuiltService({
    port: await port(),
    args: [main],
    env: nextPort > 0 ? { DEVNET_PORT: String(await port()), ...env } : env,
  })
  const { pid } = service
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)
  const anvilPid = Number(children[0])
  if (!Number.isInteger(anvilPid) || anvilPid <= 0) {
    await service.stop()
    throw new Error('no anvil child found')
  }
  return { pid, anvilPid, base: service.base, stop: service.stop }
}

// --- the driver: keep-alive node:http, bodies as bytes ----------------------------------------
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 })
function request(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; bytes: number }> {
  const target = new URL(path, base)
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method,
        headers: payload
          ? { 'content-type': 'application/json', 'content-length': payload.length, ...headers }
          : headers,
      },
      (res) => {
        let bytes = 0
        res.on('data', (c: Buffer) => {
          bytes += c.length
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }))
        res.on('error', reject)
      },
    )
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')))
    req.on('error', reject)
    req.end(payload)
  })
}

interface Point {
  rate: number
  p50: number
  p99: number
  errors: number
  /** 503 answers (admission control's `overloaded` past MAX_PREFLIGHTS_IN_FLIGHT), not errors. */
  shed: number
  firstError: string
  /** CPU ms per answered request: [this target's process, its anvil (if any), this driver]. */
  cpu: [number, number, number]
  /** The target's CPU ms per answered request on its main thread (the rest is other threads). */
  mainThread: number
  /** The native driver: p50 and p99 of the 200s of each kind of preflight (ETH, ERC-20, approve). */
  byKind?: { p50: number; p99: number }[]
}

/**
 * The CPU a target (and its node, when it has one) uses from now on: `per(n)` reads it again and
 * gives the ms per answered request (of `n`), the target's main thread apart.
 */
function cpuFrom(pids: [number, number | undefined]) {
  const [target, node] = pids
  const target0 = cpuMs(target)
  const node0 = node ? cpuMs(node) : 0
  const main0 = mainThreadCpuMs(target)
  return (n: number) => ({
    target: (cpuMs(target) - target0) / n,
    node: node ? (cpuMs(node) - node0) / n : 0,
    mainThread: (mainThreadCpuMs(target) - main0) / n,
  })
}

let counter = 0
/** `concurrency` clients sending `next()` for `seconds`; CPU of `pids` per answered request. */
async function drive(
  concurrency: number,
  seconds: number,
  pids: [number, number | undefined],
  one: () => Promise<{ status: number }>,
  expected = 200,
): Promise<Point> {
  const latencies: number[] = []
  let errors = 0
  let shed = 0
  let firstError = ''
  const used = cpuFrom(pids)
  const own0 = ownCpuMs()
  const started = performance.now()
  const until = started + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now()
        try {
          const { status } = await one()
          if (status === expected) latencies.push(performance.now() - t)
          else if (status === 503 && expected === 200) shed++
          else {
            errors++
            firstError ||= `HTTP ${status}`
          }
        } catch (error) {
          errors++
          firstError ||= String(error).slice(0, 120)
        }
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  const n = Math.max(1, latencies.length)
  const { target, node, mainThread } = used(n)
  return {
    rate: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    shed,
    firstError,
    cpu: [target, node, (ownCpuMs() - own0) / n],
    mainThread,
  }
}

/**
 * Distinct preflights for one native run, used in turn: a 256-client point's spinning 503s go
 * round it (the service keeps no answer cache, so a repeated input costs what a first one does).
 */
const NATIVE_RING = 32_768
/** `drive` with the native driver's closed loop of preflights (`concurrency` clients). */
async function driveNative(
  concurrency: number,
  seconds: number,
  pids: [number, number],
  base: string,
): Promise<Point> {
  const url = new URL(PREFLIGHT, base)
  const first = counter
  const requests = Array.from({ length: NATIVE_RING }, () =>
    postBytes(url, preflightBody(counter++)),
  )
  const used = cpuFrom(pids)
  const run = await runNativeDriver(base, 'closed', concurrency, seconds, requests)
  const latencies = run.answers.filter((a) => a.status === 200).map((a) => a.ms)
  const shed = run.answers.filter((a) => a.status === 503).length
  const bad = run.answers.filter((a) => a.status !== 200 && a.status !== 503)
  const n = Math.max(1, latencies.length)
  const { target, node, mainThread } = used(n)
  return {
    rate: latencies.length / run.seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: bad.length,
    shed,
    firstError: bad[0] ? (bad[0].status ? `HTTP ${bad[0].status}` : 'connection failed') : '',
    cpu: [target, node, run.cpuMs / n],
    mainThread,
    byKind: [0, 1, 2].map((kind) => {
      const ms = run.answers
        .filter((a) => a.status === 200 && (first + a.request) % 3 === kind)
        .map((a) => a.ms)
      return { p50: percentile(ms, 50), p99: percentile(ms, 99) }
    }),
  }
}

const f1 = (n: number) => n.toFixed(1)
const f2 = (n: number) => n.toFixed(2)
const stat = (xs: number[], f = f1) =>
  `${f(Math.min(...xs))}/${f(percentile(xs, 50))}/${f(Math.max(...xs))}`
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`

// --- floors --------------------------------------------------------------------------------
async function startBareServer(answerBytes: number) {
  return startBareNodeServer(answerBytes, await port())
}

const loadAtStart = loadavg()
console.log(
  `\n-- 1. read-only preflights against the built service (devnet), ${SECONDS} s per point, ${ROUNDS} rounds`,
)
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR?.replace(/\/+$/, '')
const services: [string, Service][] = [['after (this tree)', await startService()]]
if (ALSO_ENV) {
  services.push([`this tree with ${ALSO_ENV}`, await startService(envPairs(ALSO_ENV))])
}
if (BEFORE_DIR) {
  services.push([
    'before (BENCH_BEFORE_DIR)',
    await startService({}, `${BEFORE_DIR}/dist/src/main.js`),
  ])
}
const service = (services[0] as [string, Service])[1]
const bareRpc = await startDevnet(nextPort > 0 ? { port: await port() } : {})
try {
  // One preflight's RPC exchanges, recorded through a proxy in front of a devnet, for the
  // replay floor (the same requests the service sends, batches as batches).
  const recorder = await startLatencyRpc(bareRpc.rpcUrl, { latencyMs: 0 })
  const recordingApp = preflightApp(recorder.url)
  await postJson(recordingApp, PREFLIGHT, preflightBody(0))
  // One of each kind the sweep sends (ETH transfer, ERC-20 transfer, approve).
  const recorded: Buffer[][] = []
  let calls = 0
  for (const k of [3, 4, 5]) {
    recorder.reset()
    await postJson(recordingApp, PREFLIGHT, preflightBody(k))
    recorded.push([...recorder.bodies])
    calls += recorder.methods.length
  }
  await recorder.close()
  const exchanges = recorded.flat()
  const rpcTarget = new URL(bareRpc.rpcUrl)
  // The issue's floor: the same calls sent one per HTTP request, as the service sent them when
  // issue 10 was filed (9 requests, 13 for an approve: "0.7 ms over a keep-alive node:http
  // agent"), through the same bare client. Batching is part of what the service does now, so
  // the replay of its batches above is the stricter floor.
  const singles = callsOf(exchanges).map((call) => Buffer.from(JSON.stringify(call)))
  const replayOf = (bodies: Buffer[]) => () =>
    Promise.all(
      bodies.map(
        (body) =>
          new Promise<void>((resolve, reject) => {
            const req = http.request(
              {
                agent,
                hostname: rpcTarget.hostname,
                port: rpcTarget.port,
                path: '/',
                method: 'POST',
                headers: { 'content-type': 'application/json', 'content-length': body.length },
              },
              (res) => {
                const chunks: Buffer[] = []
                res.on('data', (c: Buffer) => chunks.push(c))
                res.on('end', () => {
                  JSON.parse(Buffer.concat(chunks).toString('utf8'))
                  resolve()
                })
              },
            )
            req.on('error', reject)
            req.end(body)
          }),
      ),
    )
  const replay = replayOf(exchanges)
  const replaySingles = replayOf(singles)
  const rawCall = {
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_call',
    params: [{ to: USDC_ADDRESS, data: '0x18160ddd' }, 'latest'],
  }
  const sample = await request(service.base, 'POST', PREFLIGHT, preflightBody(0))
  const bare = await startBareServer(sample.bytes)

  // V8 compiles the hot paths during the first seconds under load (TurboFan, on background
  // threads): a fresh process costs two to three times its steady CPU per request then. That
  // phase is measured and printed apart for each service; the floors get the same warm-up,
  // unmeasured.
  const warmups = new Map<string, Point>()
  for (const [name, target] of services) {
    const warm = await drive(16, WARMUP_SECONDS, [target.pid, target.anvilPid], () =>
      request(target.base, 'POST', PREFLIGHT, preflightBody(counter++)),
    )
    warmups.set(name, warm)
  }
  await drive(16, WARMUP_SECONDS, [bare.pid, undefined], () =>
    request(bare.base, 'POST', PREFLIGHT, preflightBody(counter++)),
  )
  for (const until = performance.now() + WARMUP_SECONDS * 1000; performance.now() < until; ) {
    await replay()
  }

  const sweeps = new Map<string, Map<number, Point[]>>(services.map(([name]) => [name, new Map()]))
  const floorServer: number[] = []
  const floorServerP99At256: number[] = []
  const floorReplay: number[] = []
  const floorReplayLoaded: number[] = []
  const floorSingles: number[] = []
  const floorCall: number[] = []
  const floorCallAnvil: number[] = []
  const httpStacks = new Map<string, number[]>(services.map(([name]) => [name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    // Floors first in each round, then the sweep: the machine's noise falls on both alike.
    const server = await drive(16, Math.min(SECONDS, 2), [bare.pid, undefined], () =>
      request(bare.base, 'POST', PREFLIGHT, preflightBody(counter++)),
    )
    floorServer.push(server.cpu[0])
    // The bare server at 256 in flight: its p99 shows what opening that many connections at
    // once costs on this machine (accepted one by one), with no service behind it.
    const server256 = await drive(256, Math.min(SECONDS, 2), [bare.pid, undefined], () =>
      request(bare.base, 'POST', PREFLIGHT, preflightBody(counter++)),
    )
    floorServerP99At256.push(server256.p99)
    const c0 = ownCpuMs()
    // Each replay is the three kinds' exchanges: per preflight, a third of it.
    for (let i = 0; i < 100; i++) await replay()
    floorReplay.push((ownCpuMs() - c0) / 100 / recorded.length)
    const cs = ownCpuMs()
    for (let i = 0; i < 100; i++) await replaySingles()
    floorSingles.push((ownCpuMs() - cs) / 100 / recorded.length)
    // The same exchanges with 16 replays in flight for a while, as the service sends them at
    // 16-256 preflights in flight: the sequential figure above swings with this process's state.
    let replays = 0
    const c1 = ownCpuMs()
    const until = performance.now() + Math.min(SECONDS, 2) * 1000
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < until) {
          await replay()
          replays++
        }
      }),
    )
    floorReplayLoaded.push((ownCpuMs() - c1) / Math.max(1, replays) / recorded.length)
    const call = await drive(1, 1, [bareRpc.pid, undefined], () =>
      request(bareRpc.rpcUrl, 'POST', '/', rawCall),
    )
    floorCall.push(call.p50)
    floorCallAnvil.push(call.cpu[0])
    // Each service in turn, in alternating order: the one swept first in a round came out
    // cheaper in an A/A run (the same build on both sides: 0.81x round by round, median).
    const turn = round % 2 === 0 ? services : [...services].reverse()
    for (const [name, target] of turn) {
      // The service's own HTTP stack with no preflight behind it: the same middleware, routing
      // and a JSON error answer (404) for a POST with a preflight's body.
      const stack = await drive(
        16,
        Math.min(SECONDS, 2),
        [target.pid, undefined],
        () => request(target.base, 'POST', UNKNOWN_ROUTE, preflightBody(counter++)),
        404,
      )
      httpStacks.get(name)?.push(stack.cpu[0])
      const points = sweeps.get(name) as Map<number, Point[]>
      for (const concurrency of CONCURRENCY) {
        const point =
          DRIVER === 'native'
            ? await driveNative(concurrency, SECONDS, [target.pid, target.anvilPid], target.base)
            : await drive(concurrency, SECONDS, [target.pid, target.anvilPid], () =>
                request(target.base, 'POST', PREFLIGHT, preflightBody(counter++)),
              )
        points.set(concurrency, [...(points.get(concurrency) ?? []), point])
      }
    }
  }
  bare.stop()

  const floorHttp = percentile(floorServer, 50)
  const floorRpc = percentile(floorReplay, 50)
  const floorRpcLoaded = percentile(floorReplayLoaded, 50)
  const floorSingle = percentile(floorSingles, 50)
  console.log('floors, same run (min/median/max over rounds)')
  console.log(
    `  bare node:http server, JSON body parsed, ${sample.bytes}-byte answer: ${stat(floorServer, f2)} ms CPU per request`,
  )
  console.log(
    `  one preflight's RPC exchanges (mean of the 3 kinds: ${f1(exchanges.length / recorded.length)} HTTP requests, ${f1(calls / recorded.length)} calls) replayed through bare node:http: ${stat(floorReplay, f2)} ms CPU one after another, ${stat(floorReplayLoaded, f2)} ms with 16 in flight`,
  )
  console.log(
    `  the same calls one HTTP request each (${f1(singles.length / recorded.length)} requests; the floor issue 10 measured, 0.7 ms then) through bare node:http: ${stat(floorSingles, f2)} ms CPU one preflight after another`,
  )
  console.log(
    `  one raw eth_call to anvil: ${stat(floorCall, f2)} ms round trip, anvil ${stat(floorCallAnvil, f2)} ms CPU`,
  )
  console.log(
    `  the bare server at 256 in flight (its connections opened at once): p99 ${stat(floorServerP99At256)} ms`,
  )
  for (const [name, costs] of httpStacks) {
    console.log(
      `  the service's HTTP stack alone (${name}; a POST with a preflight's body to an unknown route: middleware, routing, a JSON 404): ${stat(costs, f2)} ms CPU per request`,
    )
  }
  for (const [name, warm] of warmups) {
    console.log(
      `${name}: warm-up, the first ${WARMUP_SECONDS} s of a fresh process at 16 in flight (not in the figures below): ${f1(warm.rate)} preflights/s, CPU per preflight ${f2(warm.cpu[0])} ms (main thread ${f2(warm.mainThread)}, other threads ${f2(warm.cpu[0] - warm.mainThread)})`,
    )
  }
  const median = (pick: (p: Point) => number, from: Point[]) => percentile(from.map(pick), 50)
  for (const [name, points] of sweeps) {
    console.log(`${name}: throughput (min/median/max over rounds; driver ${DRIVER})`)
    for (const [concurrency, list] of points) {
      const errors = list.reduce((a, p) => a + p.errors, 0)
      const shed = list.reduce((a, p) => a + p.shed, 0)
      const first = list.find((p) => p.firstError)?.firstError
      console.log(
        `  c=${String(concurrency).padStart(3)}  ${stat(list.map((p) => p.rate)).padStart(17)} preflights/s  p50 ${stat(list.map((p) => p.p50)).padStart(16)} ms  p99 ${stat(list.map((p) => p.p99)).padStart(18)} ms  p99/p50 ${stat(
          list.map((p) => p.p99 / p.p50),
          f2,
        )}  errors=${errors}${first ? ` (first: ${first})` : ''}${shed ? ` 503=${shed}` : ''}`,
      )
      const kinds = list.every((p) => p.byKind) ? ['ETH', 'ERC-20 transfer', 'approve'] : []
      if (kinds.length > 0)
        console.log(
          `         by kind, p50 ms and p99/p50 (min/median/max): ${kinds
            .map(
              (kind, i) =>
                `${kind} ${stat(list.map((p) => p.byKind?.[i]?.p50 ?? Number.NaN))}, ${stat(
                  list.map((p) => (p.byKind?.[i]?.p99 ?? Number.NaN) / (p.byKind?.[i]?.p50 ?? 1)),
                  f2,
                )}`,
            )
            .join('; ')}`,
        )
    }
    console.log(
      `${name}: CPU ms per preflight (min/median/max): service (its main thread) | its anvil | driver`,
    )
    for (const [concurrency, list] of points) {
      const cpu = (i: 0 | 1 | 2) =>
        stat(
          list.map((p) => p.cpu[i]),
          f2,
        ).padStart(16)
      const main = stat(
        list.map((p) => p.mainThread),
        f2,
      )
      console.log(
        `  c=${String(concurrency).padStart(3)}  ${cpu(0)} (${main}) | ${cpu(1)} | ${cpu(2)}`,
      )
    }
    // Saturated points (16 in flight and more): what a busy instance costs per preflight.
    const busy = [16, 64, 256].flatMap((c) => points.get(c) ?? [])
    const svc = median((p) => p.cpu[0], busy)
    const svcMain = median((p) => p.mainThread, busy)
    const anvil = median((p) => p.cpu[1], busy)
    const driver = median((p) => p.cpu[2], busy)
    const loaded = [...points.values()].flat().filter((p) => p.errors === 0)
    console.log(
      `${name}: service CPU per preflight at 16-256 in flight (median) ${f2(svc)} ms (main thread ${f2(svcMain)}) = ${f2(svc / (floorHttp + floorRpc))}x the bare floor (server ${f2(floorHttp)} + RPC client ${f2(floorRpc)} ms), ${f2(svc / (floorHttp + floorRpcLoaded))}x with the replay at 16 in flight (${f2(floorRpcLoaded)} ms), ${f2(svc / floorSingle)}x the issue's floor (its calls one request each, ${f2(floorSingle)} ms); anvil ${f2(anvil)} ms; driver ${f2(driver)} ms`,
    )
    console.log(
      `${name}: machine ceiling on 2 cores = 2000 ms / (service + anvil + driver) = ${f1(2000 / (svc + anvil + driver))} preflights/s (${f1(2000 / (svc + anvil))}/s with the client elsewhere; the service's one thread alone ${f1(1000 / svc)}/s); best point ${f1(Math.max(0, ...loaded.map((p) => p.rate)))}/s`,
    )
  }
  // Each round sweeps every service back to back: their ratio round by round cancels most of
  // a shared machine's drift, which the medians above do not.
  const [first, ...others] = [...sweeps]
  for (const [name, points] of others) {
    const ratios = [16, 64, 256].flatMap((c) => {
      const mine = first?.[1].get(c) ?? []
      return (points.get(c) ?? []).map((p, round) => (mine[round]?.cpu[0] ?? 0) / p.cpu[0])
    })
    if (ratios.length > 0)
      console.log(
        `${first?.[0]} against ${name}, service CPU per preflight round by round at 16-256 in flight (min/median/max): ${stat(ratios, f2)}x`,
      )
  }
  console.log(
    `load average at start ${loadAtStart.map((l) => l.toFixed(1)).join(' ')}, at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  )
} finally {
  for (const [, target] of services) await target.stop()
  await bareRpc.stop()
}

// --- 2. memory ---------------------------------------------------------------------------------
if (MEMORY_ROUNDS > 0)
  console.log(
    `\n-- 2. memory: 10k warm-up requests, then ${MEMORY_ROUNDS} rounds of 10k (16 in flight, mixed routes, 2,000 clients)`,
  )
const typedData = (k: number) => usdcPermitRequest(BUYER, SPENDER, String(k + 1))
const MIX: [
  string,
  (k: number, base: string, client: string) => Promise<{ status: number }>,
  number,
][] = [
  ['preflight', (k, b, h) => request(b, 'POST', PREFLIGHT, preflightBody(k), xff(h)), 200],
  ['preflight', (k, b, h) => request(b, 'POST', PREFLIGHT, preflightBody(k), xff(h)), 200],
  ['preflight', (k, b, h) => request(b, 'POST', PREFLIGHT, preflightBody(k), xff(h)), 200],
  ['preflight', (k, b, h) => request(b, 'POST', PREFLIGHT, preflightBody(k), xff(h)), 200],
  [
    'bundle',
    (k, b, h) =>
      request(
        b,
        'POST',
        '/payanagent/v1/base-bundle-preflight',
        { transactions: [preflightBody(3 * k + 2), preflightBody(3 * k + 1)] },
        xff(h),
      ),
    200,
  ],
  [
    'typed data',
    (k, b, h) =>
      request(b, 'POST', '/payanagent/v1/base-typed-data-preflight', typedData(k), xff(h)),
    200,
  ],
  [
    'unpaid 402',
    (k, b, h) => request(b, 'POST', '/simulate/transaction-preflight', preflightBody(k), xff(h)),
    402,
  ],
  [
    'unpaid 402',
    (k, b, h) => request(b, 'POST', '/simulate/transaction-preflight', preflightBody(k), xff(h)),
    402,
  ],
  ['healthz', (_k, b, h) => request(b, 'GET', '/healthz', undefined, xff(h)), 200],
  ['not found', (k, b, h) => request(b, 'GET', `/no-such-page-${k}`, undefined, xff(h)), 404],
]
function xff(client: string): Record<string, string> {
  return { 'x-forwarded-for': client }
}
async function memoryOf(name: string, main: string): Promise<void> {
  console.log(`${name}:`)
  const memoryService = await startService({ RATE_LIMIT_CLIENT_HEADER: 'x-forwarded-for' }, main)
  try {
    const unexpected = new Map<string, number>()
    let sent = 0
    const batch = async (n: number) => {
      let next = 0
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < n) {
            const k = sent++
            next++
            const [name, one, expected] = MIX[k % MIX.length] as (typeof MIX)[number]
            const client = `198.51.${(k % 2000) >> 8}.${(k % 2000) & 255}`
            const { status } = await one(k, memoryService.base, client).catch(() => ({ status: 0 }))
            if (status !== expected) {
              const key = `${name} ${status}`
              unexpected.set(key, (unexpected.get(key) ?? 0) + 1)
            }
          }
        }),
      )
    }
    const heapUsed = async () => {
      const text = await (await fetch(`${memoryService.base}/metrics`)).text()
      return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1])
    }
    type Memory = { rss: number[]; heap: number[] }
    /**
     * 10k requests; RSS and used heap sampled every 200 ms over the last 2k of them. A single
     * reading lands anywhere in V8's collection cycle (tens of MB apart), so a mark's figure is
     * the median of its samples, with their min and max beside it.
     */
    const block = async (): Promise<Memory> => {
      await batch(8_000)
      const memory: Memory = { rss: [], heap: [] }
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          memory.rss.push(rssBytes(memoryService.pid))
          memory.heap.push(await heapUsed())
          await new Promise((r) => setTimeout(r, 200))
        }
      })()
      await batch(2_000)
      sampling = false
      await sampler
      return memory
    }
    const idle = { rss: rssBytes(memoryService.pid), heap: await heapUsed() }
    const marks: Memory[] = []
    for (let round = 0; round <= MEMORY_ROUNDS; round++) marks.push(await block())
    const med = (xs: number[]) => percentile(xs, 50)
    console.log(
      `  idle after start: RSS ${mb(idle.rss)}, used heap ${mb(idle.heap)}; anvil apart (${mb(rssBytes(memoryService.anvilPid))})`,
    )
    const spreadMb = (xs: number[]) =>
      `${mb(med(xs))} (${(Math.min(...xs) / 2 ** 20).toFixed(0)}-${(Math.max(...xs) / 2 ** 20).toFixed(0)})`
    marks.forEach((m, i) => {
      console.log(
        `  at ${String((i + 1) * 10).padStart(2)}k (median of ${m.rss.length} samples over the last 2k, min-max): RSS ${spreadMb(m.rss)}, used heap ${spreadMb(m.heap)}`,
      )
    })
    const pct = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)} %`
    const growth = (from: Memory, to: Memory, pick: keyof Memory) =>
      ((med(to[pick]) - med(from[pick])) / med(from[pick])) * 100
    const [at10, at20] = marks as [Memory, Memory]
    console.log(
      `  10k (after the warm-up) -> 20k, the issue's figure (target: under 5 %): RSS ${pct(growth(at10, at20, 'rss'))}, used heap ${pct(growth(at10, at20, 'heap'))}`,
    )
    const rounds = marks.slice(1).map((m, i) => [m, marks[i] as Memory] as const)
    const rg = rounds.map(([m, before]) => growth(before, m, 'rss'))
    const hg = rounds.map(([m, before]) => growth(before, m, 'heap'))
    const last = marks[marks.length - 1] as Memory
    console.log(
      `  growth per further 10k (min/median/max over ${rg.length} rounds): RSS ${pct(Math.min(...rg))} / ${pct(med(rg))} / ${pct(Math.max(...rg))}; used heap ${pct(Math.min(...hg))} / ${pct(med(hg))} / ${pct(Math.max(...hg))}; 10k -> ${marks.length * 10}k: RSS ${pct(growth(at10, last, 'rss'))}, used heap ${pct(growth(at10, last, 'heap'))}`,
    )
    console.log(
      `  unexpected statuses: ${unexpected.size === 0 ? 'none' : [...unexpected].map(([k, v]) => `${k}: ${v}`).join(', ')}`,
    )
  } finally {
    await memoryService.stop()
  }
}
if (MEMORY_ROUNDS > 0) await memoryOf('after (this tree)', MAIN)
if (BEFORE_DIR && MEMORY_ROUNDS > 0)
  await memoryOf('before (BENCH_BEFORE_DIR)', `${BEFORE_DIR}/dist/src/main.js`)
agent.destroy()
