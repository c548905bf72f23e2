/**
 * Paid-call latency on the devnet over real HTTP with a real buyer (@x402/fetch + viem), split
 * into the server's phases (verify / preflight / settle, from its Server-Timing header).
 * Settlement waits for the receipt; anvil mines each transaction at once, so settle here is
 * our overhead plus one round of RPCs, not Base's ~2 s block time. Prints figures; never fails
 * on them.
 *
 * Run: npx tsx bench/paid.ts [iterations]
 */
import type net from 'node:net'
import { serve } from '@hono/node-server'
import { privateKeyToAccount } from 'viem/accounts'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS } from '../src/adapters/devnet/prepare.js'
import { openStorage } from '../src/adapters/storage/open-storage.js'
import { builtinFacilitator, buyer, EXAMPLE_BODY, paidApp } from '../test/payment/paid-stack.js'
import { summary, time } from './stats.js'

const iterations = Number(process.argv[2] ?? 50)

/** Phase durations from `Server-Timing: verify;dur=1.2, preflight;dur=3.4, settle;dur=5.6`. */
function phases(header: string | null): Record<string, number> {
  const out: Record<string, number> = {}
  for (const part of (header ?? '').split(',')) {
    const match = /^\s*(\w+);dur=([\d.]+)/.exec(part)
    if (match?.[1] && match[2]) out[match[1]] = Number(match[2])
  }
  return out
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
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((r) => server.once('listening', r))
  const { port } = server.address() as net.AddressInfo
  const url = `http://127.0.0.1:${port}/simulate/transaction-preflight`
  const client = buyer(app, devnet.rpcUrl, privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey))
  // The buyer's own fetch over the network, not the in-process shortcut.
  const { wrapFetchWithPayment } = await import('@x402/fetch')
  const payFetch = wrapFetchWithPayment(fetch, client.client)
  const call = async () => {
    const res = await payFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(EXAMPLE_BODY),
    })
    if (res.status !== 200) throw new Error(`paid call answered ${res.status}: ${await res.text()}`)
    await res.arrayBuffer()
    return phases(res.headers.get('server-timing'))
  }
  for (let i = 0; i < 5; i++) await call() // warm-up

  const total: number[] = []
  const verify: number[] = []
  const preflight: number[] = []
  const settle: number[] = []
  for (let i = 0; i < iterations; i++) {
    const [ms, timing] = await time(call)
    total.push(ms)
    verify.push(timing.verify ?? Number.NaN)
    preflight.push(timing.preflight ?? Number.NaN)
    settle.push(timing.settle ?? Number.NaN)
  }
  console.log(summary('paid call, client total (402 + sign + paid retry)', total))
  console.log(summary('  server: verify (facilitator /verify)', verify))
  console.log(summary('  server: preflight (simulation + screen)', preflight))
  console.log(summary('  server: settle (submit + receipt)', settle))

  // The unpaid challenge alone, for comparison: what a first check costs.
  const unpaid: number[] = []
  for (let i = 0; i < iterations; i++) {
    const [ms, res] = await time(() =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(EXAMPLE_BODY),
      }),
    )
    await res.arrayBuffer()
    unpaid.push(ms)
  }
  console.log(summary('unpaid 402 challenge', unpaid))
  server.close()
} finally {
  await storage.close()
  await devnet.stop()
}
