import { describe, expect, it } from 'vitest'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import { runPreflightAtTrackedHead } from '../../src/domain/preflight/run-preflight.js'
import { DEFAULT_SCREEN_CONFIG } from '../../src/domain/screen/screen-transaction.js'
import { clients } from '../support/contracts.js'
import { devnetBehindCountingRpc } from '../support/counting-rpc.js'

/**
 * The paid call's preflight (`runPreflightAtTrackedHead`): one wave even when the chain moved
 * during it. Its answer at the tracked head comes at once, with the answer at the head the
 * wave saw already running beside what follows, never after it; a head too far behind is
 * read again first, as the read-only preflight does.
 */
const behind = devnetBehindCountingRpc({ holdMs: 60 })

const TRANSFER = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  data: '0x',
  value: 1n,
} as const

describe('a preflight at the tracked head', () => {
  it('answers at the tracked head in one wave and brings the answer at the head it moved to', async () => {
    const chain = createJsonRpcChainReader({ rpcUrl: behind.proxy.url, timeoutMs: 5_000 })
    const deps = {
      chain,
      chainId: 8453,
      environment: 'devnet' as const,
      screen: DEFAULT_SCREEN_CONFIG,
    }
    const { publicClient } = clients(behind.devnet.rpcUrl)
    try {
      // Current head: one answer, nothing more on its way.
      const first = await runPreflightAtTrackedHead(deps, TRANSFER)
      behind.proxy.reset()
      const current = await runPreflightAtTrackedHead(deps, TRANSFER)
      expect(current.atMovedHead).toBeUndefined()
      expect(current.result.block.hash).toBe(first.result.block.hash)
      expect(behind.proxy.waves).toBe(1)

      // One block later, unseen by the reader: the answer at the tracked head in the same one
      // wave, and the answer at the new head, started then.
      await publicClient.request({ method: 'evm_mine' } as never)
      const mined = await publicClient.getBlock({ blockTag: 'latest' })
      behind.proxy.reset()
      const moved = await runPreflightAtTrackedHead(deps, TRANSFER)
      expect(moved.result.block.hash).toBe(first.result.block.hash)
      const atMoved = await moved.atMovedHead
      expect(atMoved?.block.hash).toBe(mined.hash)
      expect(atMoved?.block.number).toBe(mined.number.toString())
      // Two preflights' simulations, the first in the first wave; one `latest` read.
      const simulations = behind.proxy.calls.filter((c) => c.method === 'eth_simulateV1')
      expect(simulations.map((c) => c.wave)[0]).toBe(1)
      expect(simulations).toHaveLength(2)
      expect(behind.proxy.calls.filter((c) => c.method === 'eth_getBlockByNumber')).toHaveLength(1)
      expect(atMoved?.verdict).toBe(moved.result.verdict)

      // Far behind (more than 6 blocks): read again at the head first, one answer.
      await publicClient.request({ method: 'anvil_mine', params: ['0x8'] } as never)
      const far = await publicClient.getBlock({ blockTag: 'latest' })
      const again = await runPreflightAtTrackedHead(deps, TRANSFER)
      expect(again.atMovedHead).toBeUndefined()
      expect(again.result.block.hash).toBe(far.hash)
    } finally {
      chain.close()
    }
  }, 60_000)
})
