import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import { runPreflight } from '../../src/domain/preflight/run-preflight.js'
import { DEFAULT_SCREEN_CONFIG } from '../../src/domain/screen/screen-transaction.js'
import { clients } from '../support/contracts.js'
import { devnetBehindCountingRpc } from '../support/counting-rpc.js'

/**
 * The chain reader's head tracking: the background poll keeps the head current (so a preflight
 * after a new block is still one wave), stops on close, and never keeps a process alive.
 */
const behind = devnetBehindCountingRpc({ holdMs: 40 })

const until = async (what: () => boolean, ms: number) => {
  const deadline = performance.now() + ms
  while (!what() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  return what()
}
const latestReads = () => behind.proxy.methods.filter((m) => m === 'eth_getBlockByNumber').length

describe('the head tracker', () => {
  it('polls the head in the background, so a new block costs no extra wave; stops on close', async () => {
    behind.proxy.reset()
    const chain = createJsonRpcChainReader({
      rpcUrl: behind.proxy.url,
      timeoutMs: 5_000,
      headPollMs: 50,
    })
    try {
      expect(chain.head()).toBeUndefined()
      expect(await until(() => chain.head() !== undefined, 5_000)).toBe(true)
      const { publicClient } = clients(behind.devnet.rpcUrl)
      await publicClient.request({ method: 'evm_mine' } as never)
      const mined = await publicClient.getBlock()
      // The poll sees the new block without any request of ours.
      expect(await until(() => chain.head()?.hash === mined.hash, 5_000)).toBe(true)
      behind.proxy.reset()
      const deps = {
        chain,
        chainId: 8453,
        environment: 'devnet' as const,
        screen: DEFAULT_SCREEN_CONFIG,
      }
      const answer = await runPreflight(deps, {
        from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        data: '0x',
        value: 1n,
      })
      expect(answer.block.hash).toBe(mined.hash)
      // The poll may overlap the wave; the preflight's own reads were one wave.
      expect(behind.proxy.methods.filter((m) => m === 'eth_simulateV1')).toHaveLength(1)
      expect(behind.proxy.waves).toBeLessThanOrEqual(2)
    } finally {
      chain.close()
    }
    await new Promise((r) => setTimeout(r, 200))
    const after = latestReads()
    await new Promise((r) => setTimeout(r, 400))
    expect(latestReads()).toBe(after)
  })

  it('never keeps the process alive (unref), even when not closed', async () => {
    const script = `
      import { createJsonRpcChainReader } from './src/adapters/rpc/json-rpc-chain-reader.ts'
      const chain = createJsonRpcChainReader({ rpcUrl: ${JSON.stringify(behind.proxy.url)}, timeoutMs: 2000, headPollMs: 20 })
      for (let i = 0; i < 500 && chain.head() === undefined; i++) await new Promise((r) => setTimeout(r, 20))
      if (chain.head() === undefined) process.exit(3)
      // Nothing more to do: the poll timer and the pooled socket must not hold the process.
    `
    // Asynchronous: the proxy the child polls lives in this process.
    const started = performance.now()
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: new URL('../..', import.meta.url).pathname,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    const code = await new Promise<number | null>((resolve) =>
      child.once('exit', (exitCode) => resolve(exitCode)),
    )
    clearTimeout(killer)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(performance.now() - started).toBeLessThan(30_000)
  })
})
