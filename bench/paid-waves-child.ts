/**
 * One measurement of bench/paid-waves.ts, in its own process: the tree under `PAID_ROOT`
 * (this checkout or an earlier one) serves paid calls with every RPC through a counting proxy
 * that adds `PAID_LATENCY_MS` per request, in a process of its own (a remote RPC's latency
 * does not wait for the service's event loop). Prints one JSON line.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { privateKeyToAccount } from 'viem/accounts'

const root = process.env.PAID_ROOT ?? new URL('..', import.meta.url).pathname
const latencyMs = Number(process.env.PAID_LATENCY_MS ?? 0)
const iterations = Number(process.env.PAID_ITERATIONS ?? 5)
const from = (path: string) => import(pathToFileURL(`${root}/${path}`).href)

const { startDevnet } = await from('src/adapters/devnet/devnet.ts')
const { DEVNET_ACCOUNTS } = await from('src/adapters/devnet/prepare.ts')
const { openStorage } = await from('src/adapters/storage/open-storage.ts')
const stack = await from('test/payment/paid-stack.ts')

const devnet = await startDevnet()
const proxy = await startProxyProcess(devnet.rpcUrl, latencyMs)
const storage = await openStorage({ kind: 'pglite', dataDir: undefined })
try {
  const { app } = await stack.paidApp({
    contractChecked: false,
    preflightRpcUrl: proxy.url,
    settlementRpcUrl: proxy.url,
    facilitator: stack.builtinFacilitator(proxy.url),
    ledger: storage.ledger,
  })
  // The buyer signs against anvil directly: only the service's RPC is counted.
  const client = stack.buyer(
    app,
    devnet.rpcUrl,
    privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey),
  )
  const offer = await stack.unpaidOffer(app)
  let counted: Counted = { calls: [], waves: 0 }
  const call = async () => {
    const header = await client.paymentHeader(offer)
    await proxy.reset()
    const started = performance.now()
    const res = await stack.sendPayment(app, header)
    const ms = performance.now() - started
    if (res.status !== 200)
      throw new Error(`paid call answered ${res.status}: ${JSON.stringify(res.body)}`)
    counted = await proxy.counted()
    const send = counted.calls.find((c) => c.method === 'eth_sendRawTransaction')
    return {
      ms,
      requests: counted.calls.length,
      waves: counted.waves,
      beforeInclusion: send ? send.wave : Number.NaN,
    }
  }
  for (let i = 0; i < 2; i++) await call() // warm-up: caches, connections, the JIT
  const calls = []
  for (let i = 0; i < iterations; i++) calls.push(await call())
  const methods: Record<string, number> = {}
  for (const c of counted.calls) methods[c.method] = (methods[c.method] ?? 0) + 1
  const layout: string[][] = []
  for (const c of counted.calls) {
    const wave = layout[c.wave - 1] ?? []
    wave.push(c.method)
    layout[c.wave - 1] = wave
  }
  const waveLayout = layout.map((w, i) => `${i + 1}:[${w.join(',')}]`).join(' ')

  const floor: number[] = []
  for (let i = 0; i < iterations * 2; i++) {
    const started = performance.now()
    const res = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    })
    await res.text()
    floor.push(performance.now() - started)
  }
  console.log(JSON.stringify({ latencyMs, calls, methods, waveLayout, floor }))
} finally {
  await storage.close()
  await proxy.close()
  await devnet.stop()
}
process.exit(0)

interface Counted {
  calls: { method: string; wave: number }[]
  waves: number
}

/** The counting proxy in its own process (bench/counting-proxy-process.ts). */
async function startProxyProcess(upstream: string, holdMs: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('counting-proxy-process.ts', import.meta.url))],
    {
      env: { ...process.env, PROXY_UPSTREAM: upstream, PROXY_HOLD_MS: String(holdMs) },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the counting proxy exited (${code})`))),
  )
  const firstLine = new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  )
  const { url, controlUrl } = JSON.parse(await Promise.race([firstLine, exited])) as {
    url: string
    controlUrl: string
  }
  return {
    url,
    reset: async () => {
      await fetch(`${controlUrl}/reset`, { method: 'POST' })
    },
    counted: async () => (await (await fetch(`${controlUrl}/calls`)).json()) as Counted,
    close: async () => {
      child.stdin.end()
      await new Promise((resolve) => child.once('exit', resolve))
    },
  }
}
