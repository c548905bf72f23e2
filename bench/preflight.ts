/**
 * Read-only preflight latency on the devnet, in-process (app.request) and over real HTTP, and
 * the cost of `npm start` to the first `/healthz` 200. Prints figures; never fails on them.
 *
 * Run: npx tsx bench/preflight.ts [iterations]
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { freePort } from '../test/support/net.js'
import { postJson, preflightApp } from '../test/support/preflight-app.js'
import { summary, time } from './stats.js'

const iterations = Number(process.argv[2] ?? 200)
const ROOT = new URL('..', import.meta.url).pathname
const PATH = '/payanagent/v1/base-transaction-preflight'
const transfer = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  data: '0x',
  value: '0x1',
}

async function startupOnce(): Promise<number> {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'psg-bench-'))
  const started = performance.now()
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      PRE_SEND_GUARD_INSTANCES: '',
    },
    detached: true,
    stdio: 'ignore',
  })
  try {
    for (;;) {
      if (performance.now() - started > 60_000) throw new Error('no /healthz 200 within 60 s')
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) return performance.now() - started
      await new Promise((r) => setTimeout(r, 20))
    }
  } finally {
    if (child.pid) process.kill(-child.pid, 'SIGINT')
    await new Promise((r) => child.once('exit', r))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const devnet = await startDevnet()
try {
  const app = preflightApp(devnet.rpcUrl, { contractChecked: false })
  for (let i = 0; i < 20; i++) await postJson(app, PATH, transfer) // warm-up
  const inProcess: number[] = []
  for (let i = 0; i < iterations; i++) {
    const [ms, res] = await time(() => postJson(app, PATH, transfer))
    if (res.status !== 200) throw new Error(`preflight answered ${res.status}`)
    await res.arrayBuffer()
    inProcess.push(ms)
  }
  console.log(summary('preflight, ETH transfer, app.request', inProcess))

  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((r) => server.once('listening', r))
  const { port } = server.address() as net.AddressInfo
  const overHttp: number[] = []
  for (let i = 0; i < iterations; i++) {
    const [ms, res] = await time(() =>
      fetch(`http://127.0.0.1:${port}${PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(transfer),
      }),
    )
    if (res.status !== 200) throw new Error(`preflight answered ${res.status}`)
    await res.arrayBuffer()
    overHttp.push(ms)
  }
  console.log(summary('preflight, ETH transfer, real HTTP', overHttp))
  server.close()
} finally {
  await devnet.stop()
}

const startups: number[] = []
for (let i = 0; i < 3; i++) startups.push(await startupOnce())
console.log(summary('npm start -> first /healthz 200', startups))
