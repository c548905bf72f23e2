/**
 * What judging the tokens a swap buys costs (issue 31): the preflight of a Router02
 * `swapExactETHForTokens` buying devnet USDC, whose one `eth_simulateV1` request also carries the
 * sell probe's later block, beside a raw `eth_simulateV1` of the same swap alone (one block,
 * transfers traced), sampled alternately in one run on one devnet so both see the same load.
 * A third sample, the same raw request with the probe's blocks added (the keeper's snapshot and
 * the later block, as the preflight sends them), isolates what the probe costs the node.
 * Prints p50/p95/max and min/median/max of each and the ratio of the p50s; never fails on them.
 *
 * Run: npx tsx bench/sellability.ts [iterations]
 */
import { type Address, encodeFunctionData, type Hex, parseAbi, toHex } from 'viem'
import { BASE_CONTRACTS } from '../src/adapters/devnet/base-world.js'
import { startDevnet } from '../src/adapters/devnet/devnet.js'
import { USDC_ADDRESS } from '../src/adapters/devnet/prepare.js'
import { decodeCalldata } from '../src/domain/calldata/decode-calldata.js'
import { sellProbePlan } from '../src/domain/tokens/sell-probe.js'
import { swapOutputHops } from '../src/domain/tokens/swap-hops.js'
import { postJson, preflightApp } from '../test/support/preflight-app.js'
import { percentile, spread, summary, time } from './stats.js'

const iterations = Number(process.argv[2] ?? 100)
const PATH = '/payanagent/v1/base-transaction-preflight'
const SENDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const ABI = parseAbi([
  'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[])',
])

const devnet = await startDevnet()
try {
  const app = preflightApp(devnet.rpcUrl, { contractChecked: false })
  const swap = {
    from: SENDER,
    to: BASE_CONTRACTS.uniswapV2Router02,
    value: toHex(10n ** 16n),
    data: encodeFunctionData({
      abi: ABI,
      functionName: 'swapExactETHForTokens',
      args: [0n, [BASE_CONTRACTS.weth9, USDC_ADDRESS], SENDER, 2n ** 40n],
    }),
  }
  const preflight = async () => {
    const res = await postJson(app, PATH, swap)
    const body = (await res.json()) as { effects?: { receivedTokens?: { sellable: unknown }[] } }
    if (res.status !== 200 || body.effects?.receivedTokens?.[0]?.sellable !== true) {
      throw new Error(`unexpected preflight answer (${res.status})`)
    }
  }
  const tx = {
    from: SENDER as Address,
    to: swap.to as Address,
    data: swap.data,
    value: 10n ** 16n,
  }
  const plan = sellProbePlan(
    swapOutputHops(tx, decodeCalldata(tx.data, tx.to)).map((hop) => ({ sender: tx.from, hop })),
  )
  if (plan === undefined) throw new Error('the swap names no pool')
  const wire = (c: { from: Address; to: Address; data: Hex; value: bigint }) => ({
    from: c.from,
    to: c.to,
    data: c.data,
    value: toHex(c.value),
  })
  const overrides = (o: Record<string, { code?: Hex }>) =>
    Object.fromEntries(Object.entries(o).map(([a, v]) => [a, { code: v.code }]))
  const probed = [
    {
      calls: [...plan.snapshot.map(wire), swap],
      stateOverrides: overrides(plan.keeperOverride),
    },
    { calls: plan.later.calls.map(wire), stateOverrides: overrides(plan.later.overrides) },
  ]
  let id = 0
  const rawSimulate = async (blockStateCalls: unknown[] = [{ calls: [swap] }]) => {
    const res = await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'eth_simulateV1',
        params: [{ blockStateCalls, traceTransfers: true, validation: false }, 'latest'],
      }),
    })
    const body = (await res.json()) as { result?: { calls: { status: string }[] }[] }
    if (body.result?.at(-1)?.calls.at(-1)?.status !== '0x1') throw new Error('a raw call failed')
  }
  const rawProbed = () => rawSimulate(probed)
  for (let i = 0; i < 20; i++) await Promise.all([preflight(), rawSimulate(), rawProbed()]) // warm-up
  const withProbe: number[] = []
  const raw: number[] = []
  const rawWithProbe: number[] = []
  for (let i = 0; i < iterations; i++) {
    withProbe.push((await time(preflight))[0])
    raw.push((await time(() => rawSimulate()))[0])
    rawWithProbe.push((await time(rawProbed))[0])
  }
  console.log(summary('swap preflight (sell probe included)', withProbe))
  console.log(summary('raw eth_simulateV1 of the same swap', raw))
  console.log(summary('raw eth_simulateV1, swap + sell probe blocks', rawWithProbe))
  console.log(spread('swap preflight (sell probe included)', withProbe))
  console.log(spread('raw eth_simulateV1 of the same swap', raw))
  console.log(spread('raw eth_simulateV1, swap + sell probe blocks', rawWithProbe))
  const p50 = (xs: number[]) => percentile(xs, 50)
  console.log(
    `p50 ratio preflight / raw eth_simulateV1: ${(p50(withProbe) / p50(raw)).toFixed(2)}x`,
  )
  console.log(
    `p50 ratio raw with the probe / raw without: ${(p50(rawWithProbe) / p50(raw)).toFixed(2)}x`,
  )
} finally {
  await devnet.stop()
}
