/**
 * The unpaid 402 of `POST /simulate/transaction-preflight` (what every first call and every
 * probe gets) against its floor: a bare Hono route on the same server library that parses the
 * same JSON body and answers the same bytes (status, PAYMENT-REQUIRED, body). Both served from
 * this process, in alternating rounds; the load comes from a separate process over keep-alive
 * HTTP so it does not share this event loop. Prints min/median/max requests/s and this process's
 * CPU per answered call (user + system, what the load's own process spends apart) per side, and
 * the ratios of medians; never fails on them. `BENCH_BEFORE_DIR=<checkout>` serves that
 * checkout's app too (its sources, through tsx as here), in the same rounds.
 *
 * Mode `app` times the apps alone instead: `app.fetch` from this process, `concurrency` calls in
 * flight, no sockets (each request declares its Content-Length, as a served one does), CPU per
 * call in alternating rounds. Steadier than HTTP on a busy machine: it leaves the server library
 * and the kernel out, the same for every side.
 *
 * Run: [BENCH_BEFORE_DIR=<checkout>] npx tsx bench/unpaid-402.ts [rounds] [secondsPerRound] [concurrency] [http|app]
 */
import { spawn } from 'node:child_process'
import type net from 'node:net'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { openStorage } from '../src/adapters/storage/open-storage.js'
import { builtinFacilitator, EXAMPLE_BODY, paidApp } from '../test/payment/paid-stack.js'
import { spread } from './stats.js'

const rounds = Number(process.argv[2] ?? 5)
const seconds = Number(process.argv[3] ?? 2)
const concurrency = Number(process.argv[4] ?? 16)
const mode = process.argv[5] ?? 'http'
if (mode !== 'http' && mode !== 'app') throw new Error(`mode is http or app, not ${mode}`)
const PATH = '/simulate/transaction-preflight'
const BODY = JSON.stringify(EXAMPLE_BODY)

/** Keep-alive load for `seconds` from a child process; resolves to its count per status. */
const LOAD = `import http from 'node:http'
const [port, seconds, concurrency, body] = [Number(process.argv[1]), Number(process.argv[2]), Number(process.argv[3]), process.argv[4]]
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
const counts = {}
const until = Date.now() + seconds * 1000
const one = () => new Promise((resolve, reject) => {
  const req = http.request({ host: '127.0.0.1', port, path: '${PATH}', method: 'POST', agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
    res.resume()
    res.on('end', () => { counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1; resolve() })
  })
  req.on('error', reject)
  req.end(body)
})
const worker = async () => { while (Date.now() < until) await one() }
await Promise.all(Array.from({ length: concurrency }, worker))
process.stdout.write(JSON.stringify({ counts, seconds }))
agent.destroy()`

/** One round's answers per second and this process's CPU per answer (µs). */
interface Round {
  rps: number
  cpuUs: number
}

async function load(port: number): Promise<Round> {
  const cpu = process.cpuUsage()
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', LOAD, String(port), String(seconds), String(concurrency), BODY],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  await new Promise((done) => child.once('exit', done))
  const used = process.cpuUsage(cpu)
  const { counts } = JSON.parse(out) as { counts: Record<string, number> }
  const other = Object.keys(counts).filter((status) => status !== '402')
  if (other.length > 0) throw new Error(`unexpected statuses: ${JSON.stringify(counts)}`)
  const answered = counts['402'] ?? 0
  return { rps: answered / seconds, cpuUs: (used.user + used.system) / Math.max(answered, 1) }
}

interface Served {
  fetch: Fetch
  port: number
  close: () => void
}

type Fetch = (request: Request) => Response | Promise<Response>

/** One in-process round of `app` mode: calls for `seconds`, `concurrency` in flight. */
async function callDirectly(fetch: Fetch): Promise<Round> {
  const length = String(Buffer.byteLength(BODY))
  const cpu = process.cpuUsage()
  const until = performance.now() + seconds * 1000
  let answered = 0
  const worker = async () => {
    while (performance.now() < until) {
      const response = await fetch(
        new Request(`http://127.0.0.1${PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': length },
          body: BODY,
        }),
      )
      await response.arrayBuffer()
      if (response.status !== 402) throw new Error(`unpaid call answered ${response.status}`)
      answered++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const used = process.cpuUsage(cpu)
  return { rps: answered / seconds, cpuUs: (used.user + used.system) / Math.max(answered, 1) }
}

function listen(fetch: Fetch) {
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' })
  return new Promise<Served>((resolve) =>
    server.once('listening', () =>
      resolve({
        fetch,
        port: (server.address() as net.AddressInfo).port,
        close: () => server.close(),
      }),
    ),
  )
}

const beforeDir = process.env.BENCH_BEFORE_DIR
const devnet = await startDevnet()
const storage = await openStorage({ kind: 'pglite', dataDir: undefined })
try {
  const { app } = await paidApp({
    contractChecked: false,
    preflightRpcUrl: devnet.rpcUrl,
    facilitator: builtinFacilitator(devnet.rpcUrl),
    ledger: storage.ledger,
  })
  const guard = await listen(app.fetch)
  let before: Served | undefined
  if (beforeDir) {
    const stack = (await import(
      pathToFileURL(resolve(beforeDir, 'test/payment/paid-stack.ts')).href
    )) as typeof import('../test/payment/paid-stack.js')
    const built = await stack.paidApp({
      contractChecked: false,
      preflightRpcUrl: devnet.rpcUrl,
      facilitator: stack.builtinFacilitator(devnet.rpcUrl),
      ledger: storage.ledger,
    })
    before = await listen(built.app.fetch)
  }
  // The floor answers exactly what the guard answered for this request (the request id aside,
  // whose length is the same every time).
  const sample = await fetch(`http://127.0.0.1:${guard.port}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
  })
  if (sample.status !== 402) throw new Error(`unpaid call answered ${sample.status}`)
  const paymentRequired = sample.headers.get('payment-required') ?? ''
  const challenge = (await sample.json()) as Record<string, unknown>
  const bare = new Hono().post(PATH, async (c) => {
    const body = await c.req.json()
    if (typeof body !== 'object' || body === null) return c.text('bad', 422)
    c.header('PAYMENT-REQUIRED', paymentRequired)
    c.header('Cache-Control', 'no-store')
    return c.json(challenge, 402)
  })
  const floor = await listen(bare.fetch)

  const sides = [
    { name: 'unpaid 402, the guard (full middleware stack)', server: guard, rounds: [] as Round[] },
    ...(before
      ? [{ name: `  the same, ${beforeDir}`, server: before, rounds: [] as Round[] }]
      : []),
    {
      name: '  floor: bare Hono route, same body parsed, same bytes',
      server: floor,
      rounds: [] as Round[],
    },
  ]
  const round = (server: Served) =>
    mode === 'app' ? callDirectly(server.fetch) : load(server.port)
  for (const side of sides) await round(side.server) // warm-up, each
  for (let i = 0; i < rounds; i++) {
    for (const side of sides) side.rounds.push(await round(side.server))
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
  const [load1] = (await import('node:os')).loadavg()
  console.log(
    `${mode === 'app' ? 'app.fetch in process, no sockets' : 'over HTTP'}; concurrency ${concurrency}, ${seconds} s per round, rounds alternate; load average ${load1?.toFixed(1)}`,
  )
  const floorSide = sides[sides.length - 1]
  const floorRps = median(floorSide?.rounds.map((r) => r.rps) ?? [])
  const floorCpu = median(floorSide?.rounds.map((r) => r.cpuUs) ?? [])
  for (const side of sides) {
    const rps = side.rounds.map((r) => r.rps)
    const cpu = side.rounds.map((r) => r.cpuUs)
    console.log(spread(side.name, rps, 'req/s'))
    console.log(spread('    CPU per answer (this process)', cpu, 'µs'))
    if (side !== floorSide) {
      console.log(
        `    ratio of medians to the floor: ${(median(rps) / floorRps).toFixed(3)}x the req/s, ${(median(cpu) / floorCpu).toFixed(2)}x the CPU`,
      )
    }
  }
  for (const side of sides) side.server.close()
} finally {
  await storage.close()
  await devnet.stop()
}
