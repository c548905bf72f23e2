/**
 * What seeing execution costs: the p50 of a read-only preflight (ETH transfer, and an ERC-20
 * transfer whose effects name a token) next to two floors measured in the same run on the same
 * devnet: one raw `eth_call` over HTTP, and a bare viem `getBalance`. The budget is a
 * preflight p50 within 1.25x of the pre-effects one; the floors make runs on a noisy shared
 * machine comparable. Prints figures; never fails on them.
 *
 * With `BASELINE_DIR` set to a checkout of the tree before effects (for example
 * `git archive <commit> | tar -x -C /tmp/baseline` plus a `node_modules` link), the baseline's
 * app is sampled too, interleaved with this one on the same devnet, and the p50 ratio printed:
 * the ratio the issue budgets (within 1.25x), measured in one run under the same load.
 *
 * Run: npx tsx bench/effects.ts [iterations]
 */
import { createPublicClient, encodeFunctionData, http, parseAbi, toHex } from 'viem'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { clients, deploy } from '../test/support/contracts.js'
import { postJson, preflightApp } from '../test/support/preflight-app.js'
import { percentile, summary, time } from './stats.js'

const iterations = Number(process.argv[2] ?? 200)
const PATH = '/payanagent/v1/base-transaction-preflight'
const SENDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

/** Samples two functions alternately so both see the same machine load. */
async function interleaved(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[number[], number[]]> {
  for (let i = 0; i < 20; i++) await Promise.all([a(), b()]) // warm-up
  const sa: number[] = []
  const sb: number[] = []
  for (let i = 0; i < iterations; i++) {
    sa.push((await time(a))[0])
    sb.push((await time(b))[0])
  }
  return [sa, sb]
}

async function sample(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await fn() // warm-up
  const out: number[] = []
  for (let i = 0; i < iterations; i++) out.push((await time(fn))[0])
  return out
}

const devnet = await startDevnet()
try {
  const app = preflightApp(devnet.rpcUrl, { contractChecked: false })
  const token = await deploy(devnet.rpcUrl, 'TestERC20', ['Bench Token', 'BEN'])
  const { walletClient, publicClient } = clients(devnet.rpcUrl)
  const erc20 = parseAbi(['function mint(address,uint256)', 'function transfer(address,uint256)'])
  const hash = await walletClient.writeContract({
    address: token.address,
    abi: erc20,
    functionName: 'mint',
    args: [SENDER, 10n ** 24n],
  })
  await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })

  const ok = async (body: unknown) => {
    const res = await postJson(app, PATH, body)
    if (res.status !== 200) throw new Error(`preflight answered ${res.status}`)
    await res.arrayBuffer()
  }
  const ethTransfer = { from: SENDER, to: RECIPIENT, data: '0x', value: '0x1' }
  const tokenTransfer = {
    from: SENDER,
    to: token.address,
    data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [RECIPIENT, 250n] }),
    value: toHex(0n),
  }
  const rawCall = async () => {
    const res = await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ from: SENDER, to: RECIPIENT, value: '0x1' }, 'latest'],
      }),
    })
    await res.arrayBuffer()
  }
  const rawSimulate = async () => {
    const res = await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_simulateV1',
        params: [
          {
            blockStateCalls: [{ calls: [{ from: SENDER, to: RECIPIENT, value: '0x1' }] }],
            traceTransfers: true,
            validation: false,
          },
          'latest',
        ],
      }),
    })
    await res.arrayBuffer()
  }
  const viem = createPublicClient({ transport: http(devnet.rpcUrl) })

  const eth = await sample(() => ok(ethTransfer))
  const tok = await sample(() => ok(tokenTransfer))
  const raw = await sample(rawCall)
  const bare = await sample(() => viem.getBalance({ address: SENDER }))
  const sim = await sample(rawSimulate)
  console.log(summary('preflight, ETH transfer', eth))
  console.log(summary('preflight, ERC-20 transfer', tok))
  console.log(summary('floor: one raw eth_call', raw))
  console.log(summary('floor: bare viem getBalance', bare))
  console.log(summary('one raw eth_simulateV1 (ETH transfer)', sim))
  const p50 = (s: number[]) => percentile(s, 50)
  const baselineDir = process.env.BASELINE_DIR
  if (baselineDir) {
    const baseline = (await import(
      `${baselineDir.replace(/\/+$/, '')}/test/support/preflight-app.ts`
    )) as typeof import('../test/support/preflight-app.js')
    const before = baseline.preflightApp(devnet.rpcUrl, { contractChecked: false })
    const okOn = (on: typeof app, b: unknown) => async () => {
      const res = await postJson(on, PATH, b)
      if (res.status !== 200) throw new Error(`preflight answered ${res.status}`)
      await res.arrayBuffer()
    }
    for (const [name, request] of [
      ['ETH transfer', ethTransfer],
      ['ERC-20 transfer', tokenTransfer],
    ] as const) {
      const [now, then] = await interleaved(okOn(app, request), okOn(before, request))
      console.log(summary(`baseline (before effects), ${name}`, then))
      console.log(summary(`this tree (with effects), ${name}`, now))
      console.log(`ratio with/without effects p50, ${name}: ${(p50(now) / p50(then)).toFixed(2)}x`)
    }
  }
  console.log(
    `ratio preflight(ETH) / raw eth_call p50: ${(p50(eth) / p50(raw)).toFixed(2)}x; ERC-20 / raw: ${(p50(tok) / p50(raw)).toFixed(2)}x`,
  )
} finally {
  await devnet.stop()
}
