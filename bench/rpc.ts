/**
 * What the RPC costs a read-only preflight, every figure beside its floor measured in the same
 * run on the same devnet:
 *   1. latency behind an RPC proxy adding 0 and 50 ms per request, next to one raw `eth_call`
 *      round trip through the same proxy (the floor: the issue wants p50 <= 1.6x at 50 ms);
 *   2. sequential waves and requests per preflight (ETH transfer, ERC-20 transfer, approve);
 *   3. CPU per preflight (process.cpuUsage), and CPU of replaying one preflight's exact requests
 *      (its calls in JSON-RPC batches, as sent) through a bare `node:http` keep-alive client (the
 *      floor), the same calls one per request through it (the unbatched floor), through our
 *      JSON-RPC client and through viem's http transport + boundedFetch (the transport before);
 *   4. a concurrency sweep (1, 4, 16, 64, 256 in flight): throughput, p50, p99, errors.
 * With `BASELINE_DIR` set to a checkout of the tree before (e.g. `git worktree add
 * /tmp/before c29b8f8` plus a `node_modules` link), its app is measured in the same run, side by
 * side. Figures, never a pass/fail: the machine is shared and noisy.
 *
 * Run: npx tsx bench/rpc.ts [iterations]   (RPC_BENCH_SWEEP_SECONDS: seconds per sweep point)
 */
import http from 'node:http'
import { loadavg } from 'node:os'
import { createPublicClient, encodeFunctionData, erc20Abi, http as viemHttp } from 'viem'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../src/adapters/devnet/prepare.js'
import { boundedFetch } from '../src/adapters/fetch/bounded-fetch.js'
import { createJsonRpcClient } from '../src/adapters/rpc/json-rpc-client.js'
import { postJson, preflightApp } from '../test/support/preflight-app.js'
import { callsOf, startLatencyRpc } from './latency-rpc.js'
import { percentile } from './stats.js'

const iterations = Number(process.argv[2] ?? 30)
const SWEEP_SECONDS = Number(process.env.RPC_BENCH_SWEEP_SECONDS ?? 3)
const PATH = '/payanagent/v1/base-transaction-preflight'
const BUYER = DEVNET_ACCOUNTS.buyer.address
const PERSON = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const SPENDER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const KINDS = {
  'ETH transfer': { from: BUYER, to: PERSON, data: '0x', value: '0x1' },
  'ERC-20 transfer': {
    from: BUYER,
    to: USDC_ADDRESS,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [PERSON, 1n] }),
    value: '0x0',
  },
  approve: {
    from: BUYER,
    to: USDC_ADDRESS,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, 1n] }),
    value: '0x0',
  },
} as const
const ETH = KINDS['ETH transfer']

type App = ReturnType<typeof preflightApp>
type MakeApp = (rpcUrl: string) => App
/** The service's default RPC_TIMEOUT_MS, so the sweep's errors are the ones a user would see. */
const TIMEOUT_MS = 5_000

const variants: [string, MakeApp][] = [
  [
    'after (this tree)',
    (url) => preflightApp(url, { timeoutMs: TIMEOUT_MS, contractChecked: false }),
  ],
]
const baselineDir = process.env.BASELINE_DIR
if (baselineDir) {
  const baseline = (await import(
    `${baselineDir.replace(/\/+$/, '')}/test/support/preflight-app.ts`
  )) as typeof import('../test/support/preflight-app.js')
  variants.unshift([
    'before (BASELINE_DIR)',
    (url) => baseline.preflightApp(url, { timeoutMs: TIMEOUT_MS, contractChecked: false }),
  ])
}

const f1 = (n: number) => n.toFixed(1)
const line = (name: string, samples: number[], unit = 'ms') =>
  `${name.padEnd(46)} n=${String(samples.length).padStart(3)}  p50=${f1(percentile(samples, 50)).padStart(7)}  min=${f1(Math.min(...samples)).padStart(7)}  max=${f1(Math.max(...samples)).padStart(7)} ${unit}`

async function preflightOnce(app: App, body: unknown = ETH): Promise<void> {
  const res = await postJson(app, PATH, body)
  if (res.status !== 200) throw new Error(`preflight answered ${res.status}: ${await res.text()}`)
  await res.arrayBuffer()
}

/** The floor's client: bare node:http over a keep-alive agent, reply read and parsed. */
function bareClient(url: string) {
  const target = new URL(url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
  const send = (body: Buffer) =>
    new Promise<unknown>((resolve, reject) => {
      const req = http.request(
        {
          agent,
          hostname: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  return { send, close: () => agent.destroy() }
}

const devnet = await startDevnet()
try {
  // 1. Latency behind 0 and 50 ms, next to one raw eth_call round trip through the same proxy.
  console.log('\n-- 1. read-only preflight (ETH transfer) latency behind an RPC adding latency')
  const rawCall = Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: USDC_ADDRESS, data: '0x18160ddd' }, 'latest'],
    }),
  )
  for (const latencyMs of [0, 50]) {
    const proxy = await startLatencyRpc(devnet.rpcUrl, { latencyMs })
    const bare = bareClient(proxy.url)
    const apps = variants.map(([name, make]) => [name, make(proxy.url)] as const)
    for (const [, app] of apps) for (let i = 0; i < 3; i++) await preflightOnce(app)
    for (let i = 0; i < 3; i++) await bare.send(rawCall)
    const floor: number[] = []
    const samples = new Map<string, number[]>(apps.map(([name]) => [name, []]))
    // Interleaved so every variant and the floor see the same load.
    for (let i = 0; i < iterations; i++) {
      let t = performance.now()
      await bare.send(rawCall)
      floor.push(performance.now() - t)
      for (const [name, app] of apps) {
        t = performance.now()
        await preflightOnce(app)
        samples.get(name)?.push(performance.now() - t)
      }
    }
    const floorP50 = percentile(floor, 50)
    console.log(line(`floor: one raw eth_call, +${latencyMs} ms`, floor))
    for (const [name, s] of samples) {
      console.log(
        `${line(`preflight ${name}, +${latencyMs} ms`, s)}  = ${(percentile(s, 50) / floorP50).toFixed(2)}x floor p50`,
      )
    }
    bare.close()
    await proxy.close()
  }

  // 2. Waves and requests per preflight, in steady state (after one warm-up request).
  console.log('\n-- 2. sequential RPC waves and requests per preflight (proxy adding 20 ms)')
  {
    const proxy = await startLatencyRpc(devnet.rpcUrl, { latencyMs: 20 })
    for (const [name, make] of variants) {
      const app = make(proxy.url)
      await preflightOnce(app)
      for (const [kind, body] of Object.entries(KINDS)) {
        await preflightOnce(app, body)
        proxy.reset()
        await preflightOnce(app, body)
        console.log(
          `${name.padEnd(24)} ${kind.padEnd(16)} waves=${proxy.waves}  HTTP requests=${proxy.requests}  calls=${proxy.methods.length}  (${[...proxy.methods].sort().join(' ')})`,
        )
      }
    }
    await proxy.close()
  }

  // 3. CPU per preflight, and CPU of the same requests through each transport.
  console.log('\n-- 3. CPU per preflight (this process; anvil excluded), direct to anvil')
  const cpuRuns = Math.max(100, iterations * 5)
  const cpuOf = async (fn: () => Promise<unknown>, n: number) => {
    for (let i = 0; i < 10; i++) await fn()
    const samples: number[] = []
    for (let round = 0; round < 5; round++) {
      const before = process.cpuUsage()
      for (let i = 0; i < n / 5; i++) await fn()
      const used = process.cpuUsage(before)
      samples.push((used.user + used.system) / 1000 / (n / 5))
    }
    return samples
  }
  for (const [name, make] of variants) {
    const app = make(devnet.rpcUrl)
    console.log(
      line(`CPU per preflight, ${name}`, await cpuOf(() => preflightOnce(app), cpuRuns), 'ms CPU'),
    )
  }
  // One preflight's exact requests, recorded, then replayed in one parallel wave per replay.
  const recorder = await startLatencyRpc(devnet.rpcUrl, { latencyMs: 0 })
  const recordingApp = preflightApp(recorder.url)
  await preflightOnce(recordingApp)
  recorder.reset()
  await preflightOnce(recordingApp)
  const bodies = [...recorder.bodies]
  await recorder.close()
  // The calls, whether they travelled alone or in a JSON-RPC batch.
  const parsed = callsOf(bodies)
  const single = parsed.map((m, i) =>
    Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: m.method, params: m.params })),
  )
  console.log(
    `replaying the ${parsed.length} calls (${bodies.length} HTTP requests) of one steady-state preflight:`,
  )
  const bare = bareClient(devnet.rpcUrl)
  const ours = createJsonRpcClient({ url: devnet.rpcUrl, timeoutMs: 10_000 })
  const viemClient = createPublicClient({
    transport: viemHttp(devnet.rpcUrl, {
      retryCount: 0,
      timeout: 10_000,
      fetchFn: boundedFetch({ timeoutMs: 10_000, maxBytes: 8 * 1024 * 1024 }),
    }),
  })
  const settle = (p: Promise<unknown>) => p.catch(() => undefined)
  const replays: [string, () => Promise<unknown>][] = [
    ['floor: bare node:http keep-alive', () => Promise.all(bodies.map((b) => bare.send(b)))],
    ['bare node:http, one call per request', () => Promise.all(single.map((b) => bare.send(b)))],
    [
      'our JSON-RPC client (after)',
      () => Promise.all(parsed.map((m) => settle(ours.send(m.method, m.params)))),
    ],
    [
      'viem http + boundedFetch (before)',
      () =>
        Promise.all(
          parsed.map((m) =>
            settle(viemClient.request({ method: m.method, params: m.params } as never)),
          ),
        ),
    ],
  ]
  const replayCpu = new Map<string, number>()
  for (const [name, fn] of replays) {
    const samples = await cpuOf(fn, cpuRuns)
    replayCpu.set(name, percentile(samples, 50))
    console.log(line(`CPU, ${name}`, samples, 'ms CPU'))
  }
  const floorCpu = replayCpu.get('floor: bare node:http keep-alive') ?? Number.NaN
  for (const [name, cpu] of replayCpu) {
    console.log(`  ${name.padEnd(44)} ${(cpu / floorCpu).toFixed(2)}x the bare floor`)
  }
  bare.close()
  ours.close()

  // 4. Concurrency sweep, in process (app.request), direct to anvil.
  console.log(`\n-- 4. concurrency sweep, ETH transfer preflights, ${SWEEP_SECONDS} s per point`)
  for (const [name, make] of variants) {
    const app = make(devnet.rpcUrl)
    await preflightOnce(app)
    for (const concurrency of [1, 4, 16, 64, 256]) {
      const latencies: number[] = []
      let errors = 0
      let firstError = ''
      const until = performance.now() + SWEEP_SECONDS * 1000
      const started = performance.now()
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < until) {
            const t = performance.now()
            try {
              await preflightOnce(app)
              latencies.push(performance.now() - t)
            } catch (error) {
              errors++
              firstError ||= String(error).slice(0, 160)
            }
          }
        }),
      )
      const seconds = (performance.now() - started) / 1000
      console.log(
        `${name.padEnd(24)} c=${String(concurrency).padStart(3)}  ${f1(latencies.length / seconds).padStart(7)} preflights/s  p50=${f1(percentile(latencies, 50)).padStart(7)} ms  p99=${f1(percentile(latencies, 99)).padStart(8)} ms  errors=${errors}${firstError ? ` (first: ${firstError})` : ''}`,
      )
    }
  }
  console.log(
    `\n(${iterations} samples per latency point; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  )
} finally {
  await devnet.stop()
}
