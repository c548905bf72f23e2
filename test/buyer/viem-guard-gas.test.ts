import {
  createWalletClient,
  custom,
  type EIP1193RequestFn,
  type Hex,
  http,
  parseEther,
  parseUnits,
} from 'viem'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type GuardCheck, withPreSendGuard } from '../../packages/client/src/viem/viem-guard.js'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import { ethToUsdcSwap } from '../agentkit/devnet-calls.js'
import { ethFundedAccount } from '../support/funded-account.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * The viem guard's gas (`suggestedGas`): viem estimates in the latest block's context, the
 * transaction lands in a later block. A swap through a Uniswap v3 pool that the latest block
 * already traded in then writes an oracle observation (the pool's first swap of a new
 * timestamp) that viem's estimate skipped. The guard's estimate is made as in the next block:
 * the guarded send raises viem's estimate to it.
 *
 * The wallet's node here answers as Base's nodes (geth, reth) do, not as anvil: an
 * `eth_estimateGas` without a block runs in the latest block (anvil runs it in its pending
 * block), and the transaction is mined 2 s after the latest block (Base's block time; anvil
 * would mine it at once, often in the same second). It offers no `eth_fillTransaction`, so
 * viem's send estimates with `eth_estimateGas` (geth's `eth_fillTransaction` estimates in the
 * latest block too; anvil's in its pending block).
 */
let guard: ServedGuard

beforeAll(async () => {
  guard = await startServedGuard()
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

const swap = () => ({
  to: BASE_CONTRACTS.universalRouter,
  data: ethToUsdcSwap(parseEther('1'), parseUnits('2500', 6)),
  value: parseEther('1'),
})

const fundedAccount = () => ethFundedAccount(guard.devnet.rpcUrl)

/** The wallet's node: the devnet, answering estimates and mining as Base's nodes do (above). */
function baseLikeNode(): { request: EIP1193RequestFn; estimates: bigint[] } {
  const devnet = http(guard.devnet.rpcUrl)({ chain: base, retryCount: 0 })
  const estimates: bigint[] = []
  const request = (async ({ method, params }: { method: string; params?: unknown[] }) => {
    if (method === 'eth_estimateGas' && (params?.length ?? 0) < 2) {
      const gas = (await devnet.request({
        method,
        params: [params?.[0], 'latest'],
      } as never)) as Hex
      estimates.push(BigInt(gas))
      return gas
    }
    // Not offered (as by many providers): viem's send then estimates with eth_estimateGas.
    if (method === 'eth_fillTransaction') {
      throw Object.assign(new Error('the method eth_fillTransaction does not exist'), {
        code: -32601,
      })
    }
    if (method === 'eth_sendRawTransaction') {
      const latest = (await devnet.request({
        method: 'eth_getBlockByNumber',
        params: ['latest', false],
      } as never)) as { timestamp: Hex }
      await devnet.request({
        method: 'evm_setNextBlockTimestamp',
        params: [BigInt(latest.timestamp) + 2n],
      } as never)
    }
    return devnet.request({ method, params } as never)
  }) as EIP1193RequestFn
  return { request, estimates }
}

/** A swap mined through the pool: its oracle observation is at the latest block's timestamp. */
async function tradeThroughThePool() {
  const trader = await fundedAccount()
  const wallet = createWalletClient({
    account: trader,
    chain: base,
    transport: http(guard.devnet.rpcUrl),
  })
  const hash = await wallet.sendTransaction({ ...swap(), gas: 400_000n })
  const traded = await guard.rpc.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  expect(traded.status).toBe('success')
}

async function guardedSwap(suggestedGas?: boolean) {
  const node = baseLikeNode()
  const checks: GuardCheck[] = []
  const wallet = withPreSendGuard(
    createWalletClient({
      account: await fundedAccount(),
      chain: base,
      transport: custom({ request: node.request }),
    }),
    {
      guard: guard.baseUrl,
      onCheck: (check) => checks.push(check),
      ...(suggestedGas === undefined ? {} : { suggestedGas }),
    },
  )
  await tradeThroughThePool()
  const hash = await wallet.sendTransaction(swap())
  const receipt = await guard.rpc.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  const sent = await guard.rpc.getTransaction({ hash })
  const [check] = checks
  expect(checks).toHaveLength(1)
  expect(check?.result.gas.success).toBe(true)
  return {
    receipt,
    sent,
    guardEstimate: BigInt(check?.result.gas.estimate as string),
    viemEstimates: node.estimates,
  }
}

describe('suggestedGas: the guarded send raises viem estimate to the guard one', () => {
  it('sends a swap with viem estimate alone (suggestedGas: false): out of gas', async () => {
    const { receipt, sent, guardEstimate, viemEstimates } = await guardedSwap(false)
    expect(viemEstimates).toHaveLength(1)
    const [viemEstimate] = viemEstimates as [bigint]
    expect(sent.gas).toBe(viemEstimate)
    // The guard saw the oracle write coming; viem's estimate did not.
    expect(guardEstimate).toBeGreaterThan(viemEstimate)
    // Out of gas: the swap undone, and all of the limit spent but what EIP-150 keeps back from
    // the call that ran out (at most 1/64 of the gas it was given).
    expect(receipt.status).toBe('reverted')
    expect(receipt.gasUsed).toBeLessThanOrEqual(viemEstimate)
    expect(receipt.gasUsed * 64n).toBeGreaterThanOrEqual(viemEstimate * 63n)
  }, 30_000)

  it('sends the same swap with the guard estimate by default: it executes', async () => {
    const { receipt, sent, guardEstimate, viemEstimates } = await guardedSwap()
    // One estimate of viem's, as an unguarded send makes; the send carries the guard's.
    expect(viemEstimates).toHaveLength(1)
    const [viemEstimate] = viemEstimates as [bigint]
    expect(guardEstimate).toBeGreaterThan(viemEstimate)
    expect(sent.gas).toBe(guardEstimate)
    expect(receipt.status).toBe('success')
    expect(receipt.gasUsed).toBeLessThanOrEqual(guardEstimate)
  }, 30_000)

  it("keeps the caller's gas", async () => {
    const node = baseLikeNode()
    const wallet = withPreSendGuard(
      createWalletClient({
        account: await fundedAccount(),
        chain: base,
        transport: custom({ request: node.request }),
      }),
      { guard: guard.baseUrl },
    )
    const hash = await wallet.sendTransaction({ ...swap(), gas: 350_000n })
    await guard.rpc.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect((await guard.rpc.getTransaction({ hash })).gas).toBe(350_000n)
    expect(node.estimates).toEqual([])
  }, 30_000)
})
