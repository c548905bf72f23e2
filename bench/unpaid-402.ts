/**
 * The unpaid 402 of `POST /simulate/transaction-preflight` (what every first call and every
 * probe gets) against its floor: a bare Hono route on the same server library that parses the
 * same JSON body and answers the same bytes (status, PAYMENT-REQUIRED, body). Both served from
 * this process, in alternating rounds; the load comes from a separate process over keep-alive
 * HTTP so it does not share this event loop. Prints min/median/max requests/s per side and the
 * ratio of medians; never fails on them.
 *
 * Run: npx tsx bench/unpaid-402.ts [rounds] [secondsPerRound] [concurrency]
 */
import { spawn } from 'node:child_process'
import type net from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { openStorage } from '../src/adapters/storage/open-storage.js'
import { builtinFacilitator, EXAMPLE_BODY, paidApp } from '../test/payment/paid-stack.js'
import { spread } from './stats.js'

const rounds = Number(process.argv[2] ?? 5)
const seconds = Number(process.argv[3] ?? 2)
const concurrency = Number(process.argv[4] ?? 16)
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

async function load(port: number): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', LOAD, String(port), String(seconds), String(concurrency), BODY],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  await new Promise((resolve) => child.once('exit', resolve))
  const { counts } = JSON.parse(out) as { counts: Record<string, number> }
  const other = Object.keys(counts).filter((status) => status !== '402')
  if (other.length > 0) throw new Error(`unexpected statuses: ${JSON.stringify(counts)}`)
  return (counts['402'] ?? 0) / seconds
}

function listen(fetch: (request: Request) => Response | Promise<Response>) {
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' })
  return new Promise<{ port: number; close: () => void }>((resolve) =>
    server.once('listening', () =>
      resolve({ port: (server.address() as net.AddressInfo).port, close: () => server.close() }),
    ),
  )
}

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

  await load(guard.port) // warm-up, both
  await load(floor.port)
  const guardRps: number[] = []
  const floorRps: number[] = []
  for (let i = 0; i < rounds; i++) {
    guardRps.push(await load(guard.port))
    floorRps.push(await load(floor.port))
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
  console.log(`concurrency ${concurrency}, ${seconds} s per round, rounds alternate`)
  console.log(spread('unpaid 402, the guard (full middleware stack)', guardRps, 'req/s'))
  console.log(spread('  floor: bare Hono route, same body parsed, same bytes', floorRps, 'req/s'))
  console.log(`  ratio of medians: ${(median(guardRps) / median(floorRps)).toFixed(3)}x`)
  guard.close()
  floor.close()
} finally {
  await storage.close()
  await devnet.stop()
}
