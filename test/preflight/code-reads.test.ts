import { describe, expect, it } from 'vitest'
import { MULTICALL3_ADDRESS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import { RpcUnavailableError } from '../../src/errors.js'
import { clients } from '../support/contracts.js'
import { devnetBehindCountingRpc, startCountingRpc } from '../support/counting-rpc.js'

/**
 * The chain reader's code reads: a read of an address's code at a block that is already on its
 * way (another preflight's, at the same pinned block) is shared, not sent again; nothing is kept
 * once its reply is in. Counted through a real proxy in front of a behind.devnet.
 */
const behind = devnetBehindCountingRpc({ holdMs: 50 })

const codeReads = () => behind.proxy.calls.filter((c) => c.method === 'eth_getCode')

describe('code reads', () => {
  it('shares a read on its way for the same address and block, and reads again after it', async () => {
    const chain = createJsonRpcChainReader({ rpcUrl: behind.proxy.url, timeoutMs: 5_000 })
    try {
      const at = await chain.latestBlock()
      behind.proxy.reset()
      // Two preflights at the same block asking for USDC's code (spelled differently), one for
      // another contract's: two reads.
      const [usdc, again, multicall] = await Promise.all([
        chain.code(USDC_ADDRESS, at),
        chain.code(USDC_ADDRESS.toLowerCase() as typeof USDC_ADDRESS, at),
        chain.code(MULTICALL3_ADDRESS, at),
      ])
      expect(usdc.length).toBeGreaterThan(1_000)
      expect(again).toBe(usdc)
      expect(multicall).not.toBe(usdc)
      expect(codeReads().map((c) => String(c.params[0]).toLowerCase())).toEqual([
        USDC_ADDRESS.toLowerCase(),
        MULTICALL3_ADDRESS.toLowerCase(),
      ])

      // Its reply is in: the next preflight reads again.
      behind.proxy.reset()
      expect(await chain.code(USDC_ADDRESS, at)).toBe(usdc)
      expect(codeReads()).toHaveLength(1)

      // Another block is another read, even while the first block's is on its way.
      const { publicClient } = clients(behind.devnet.rpcUrl)
      await publicClient.request({ method: 'evm_mine' } as never)
      const next = await chain.latestBlock()
      expect(next.hash).not.toBe(at.hash)
      behind.proxy.reset()
      const [atFirst, atNext] = await Promise.all([
        chain.code(USDC_ADDRESS, at),
        chain.code(USDC_ADDRESS, next),
      ])
      expect(atNext).toBe(atFirst)
      expect(codeReads().map((c) => c.params[1])).toEqual([
        { blockHash: at.hash },
        { blockHash: next.hash },
      ])
    } finally {
      chain.close()
    }
  }, 60_000)

  it('fails every caller of a shared read that failed, and the next caller asks again', async () => {
    const failing = await startCountingRpc(behind.devnet.rpcUrl, { holdMs: 50 })
    const chain = createJsonRpcChainReader({ rpcUrl: failing.url, timeoutMs: 5_000 })
    try {
      const at = await chain.latestBlock()
      failing.lack('eth_getCode')
      failing.reset()
      const both = await Promise.allSettled([
        chain.code(USDC_ADDRESS, at),
        chain.code(USDC_ADDRESS, at),
      ])
      expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected'])
      for (const r of both)
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(RpcUnavailableError)
      expect(failing.methods.filter((m) => m === 'eth_getCode')).toHaveLength(1)
      await expect(chain.code(USDC_ADDRESS, at)).rejects.toBeInstanceOf(RpcUnavailableError)
      expect(failing.methods.filter((m) => m === 'eth_getCode')).toHaveLength(2)
    } finally {
      chain.close()
      await failing.close()
    }
  }, 60_000)
})
