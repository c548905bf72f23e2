import {
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  numberToHex,
  parseEther,
  parseUnits,
} from 'viem'
import type { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { describe, expect, it } from 'vitest'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import { ethToUsdcSwap } from '../agentkit/devnet-calls.js'
import { devnetBehindCountingRpc } from '../support/counting-rpc.js'
import { ethFundedAccount } from '../support/funded-account.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * The transaction's own eth_call and eth_estimateGas, and its eth_simulateV1 block, run as in
 * the block it lands in (the pinned block's state; its number + 1 and its time + Base's 2 s),
 * not in the block already sealed. What depends on the block is then judged as the chain will
 * run it: the oracle write a Uniswap v3 pool makes in the first swap of each timestamp, a
 * deadline.
 */
const PREFLIGHT = '/payanagent/v1/base-transaction-preflight'

type Answer = {
  verdict: string
  call: { success: boolean }
  gas: { success: boolean; estimate?: string }
  block: { number: string; hash: Hex; timestamp: string }
  findings: { id: string }[]
  effects: { assetChanges: unknown[] }
}

const behind = devnetBehindCountingRpc({ holdMs: 0 })
const client = () => createPublicClient({ chain: base, transport: http(behind.devnet.rpcUrl) })

const fundedAccount = () => ethFundedAccount(behind.devnet.rpcUrl)

const swap = (deadline?: bigint) => ({
  to: BASE_CONTRACTS.universalRouter,
  data: ethToUsdcSwap(parseEther('1'), parseUnits('2500', 6), undefined, deadline),
  value: parseEther('1'),
})

/** The transaction as the preflight (and eth_estimateGas) take it. */
const requestOf = (from: Hex, tx: ReturnType<typeof swap>) => ({
  from,
  to: tx.to,
  data: tx.data,
  value: numberToHex(tx.value),
})

async function preflight(
  rpcUrl: string,
  from: Hex,
  tx: ReturnType<typeof swap>,
  app = preflightApp(rpcUrl),
) {
  const res = await postJson(app, PREFLIGHT, requestOf(from, tx))
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

/** Into the next wall-clock second: anvil's next block then carries a later timestamp. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1050 - (Date.now() % 1000)))

async function send(
  account: ReturnType<typeof privateKeyToAccount>,
  tx: ReturnType<typeof swap>,
  gas: bigint,
) {
  const wallet = createWalletClient({ account, chain: base, transport: http(behind.devnet.rpcUrl) })
  const hash = await wallet.sendTransaction({ ...tx, gas })
  return client().waitForTransactionReceipt({ hash, pollingInterval: 20 })
}

describe('the transaction is judged in the block it lands in', () => {
  it('answers gas enough for a swap through a pool the pinned block traded in', async () => {
    const [first, second] = [await fundedAccount(), await fundedAccount()]
    // The first swap writes the pool's oracle observation at its block's timestamp.
    await nextSecond()
    const traded = await send(first, swap(), 400_000n)
    expect(traded.status).toBe('success')
    const answer = await preflight(behind.devnet.rpcUrl, second.address, swap())
    expect(answer).toMatchObject({ verdict: 'sign', gas: { success: true } })
    expect(BigInt(answer.block.number)).toBe(traded.blockNumber)
    const estimate = BigInt(answer.gas.estimate as string)
    // In the pinned block itself the second swap would skip that write: less gas than it needs.
    const sealed = await client().request({
      method: 'eth_estimateGas',
      params: [requestOf(second.address, swap()), { blockHash: answer.block.hash }],
    } as never)
    expect(estimate).toBeGreaterThan(BigInt(sealed as Hex))
    // Sent a second later with exactly the answer's gas, it executes.
    await nextSecond()
    const sent = await send(second, swap(), estimate)
    expect({ status: sent.status, gasUsed: sent.gasUsed <= estimate }).toEqual({
      status: 'success',
      gasUsed: true,
    })
  }, 30_000)

  it('calls a deadline that has passed by the next block a revert', async () => {
    const account = await fundedAccount()
    await client().request({ method: 'evm_mine' } as never)
    const pinned = await client().getBlock()
    // Valid through the pinned block's second; the next block is 2 s later.
    const answer = await preflight(behind.devnet.rpcUrl, account.address, swap(pinned.timestamp))
    expect(answer.block.hash).toBe(pinned.hash)
    expect(answer.call.success).toBe(false)
    expect(answer.gas.success).toBe(false)
    expect(answer.verdict).toBe('block')
    // The simulation is dated the same way: it moves nothing either.
    expect(answer.effects.assetChanges).toEqual([])
    // A minute's slack is a swap as any other.
    const later = await preflight(
      behind.devnet.rpcUrl,
      account.address,
      swap(pinned.timestamp + 60n),
    )
    expect(later).toMatchObject({
      verdict: 'sign',
      call: { success: true },
      gas: { success: true },
    })
    expect(later.effects.assetChanges.length).toBeGreaterThan(0)
  })
})

describe('a node that refuses block overrides', () => {
  const asked = (method: string) =>
    behind.proxy.calls.filter((c) => c.method === method).map((c) => c.params.length)

  // An HTTP status refuses the wave's whole batch: its calls are sent again one by one (and
  // batching ends, as for any node that refuses a batch), so the overrides are refused twice.
  it.each([
    ['-32602 (geth before 1.15)', -32602, [4]],
    ["-32000 (a gateway's catch-all)", -32000, [4]],
    ['HTTP 400 (a gateway refusing the exchange)', 400, [4, 4]],
  ])(
    'refusing with %s is asked at the pinned block instead, with one extra request in all',
    async (_, code, refusedAsks) => {
      const account = await fundedAccount()
      behind.proxy.limitParams('eth_call', 3, code)
      behind.proxy.limitParams('eth_estimateGas', 3, code)
      try {
        behind.proxy.reset()
        // One reader, as the service has: what it learned holds for its next preflight.
        const app = preflightApp(behind.proxy.url)
        const ask = () => preflight(behind.proxy.url, account.address, swap(), app)
        const first = await ask()
        expect(first).toMatchObject({
          verdict: 'sign',
          call: { success: true },
          gas: { success: true },
        })
        // Refused with the overrides, answered without them.
        expect(asked('eth_estimateGas')).toEqual([...refusedAsks, 2])
        expect(asked('eth_call').filter((n) => n !== 2)).toEqual(refusedAsks)
        behind.proxy.reset()
        const second = await ask()
        expect(second).toMatchObject({ verdict: 'sign', gas: { success: true } })
        expect(asked('eth_estimateGas')).toEqual([2])
        expect(asked('eth_call').every((n) => n === 2)).toBe(true)
      } finally {
        behind.proxy.limitParams('eth_call')
        behind.proxy.limitParams('eth_estimateGas')
      }
    },
  )

  it('keeps asking with them when the request itself was refused', async () => {
    const account = await fundedAccount()
    const chain = createJsonRpcChainReader({ rpcUrl: behind.proxy.url, timeoutMs: 5_000 })
    try {
      const at = await chain.latestBlock()
      const next = { number: at.number + 1n, timestamp: at.timestamp + 2n }
      const request = { from: account.address, ...swap() }
      // Refused with and without the overrides: not the overrides' doing.
      behind.proxy.limitParams('eth_estimateGas', 1)
      behind.proxy.reset()
      await expect(chain.estimateGas(request, at, next)).rejects.toThrow(/too many arguments/)
      expect(asked('eth_estimateGas')).toEqual([4, 2])
      behind.proxy.limitParams('eth_estimateGas')
      behind.proxy.reset()
      expect(await chain.estimateGas(request, at, next)).toMatchObject({ status: 'success' })
      expect(asked('eth_estimateGas')).toEqual([4])
    } finally {
      behind.proxy.limitParams('eth_estimateGas')
      chain.close()
    }
  })
})
