import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, http, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, describe, expect, it } from 'vitest'
import { type AnvilInstance, startAnvil } from '../../src/adapters/devnet/anvil.js'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import { type GuardProcess, spawnGuard } from '../support/guard-process.js'
import { freePort } from '../support/net.js'
import { contractFetch } from '../support/openapi-contract.js'

// The devnet's options as a user sets them on the real service: DEVNET_FORK_URL (here a second
// local anvil stands in for a Base RPC) with DEVNET_PORT, and the faucet over real HTTP.

describe('the service with DEVNET_FORK_URL and DEVNET_PORT', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'psg-devnet-options-'))
  let upstream: AnvilInstance | undefined
  let guard: GuardProcess | undefined
  afterAll(async () => {
    await guard?.stop()
    await upstream?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('forks the upstream on the fixed port, holds Base infrastructure, and funds any address', async () => {
    upstream = await startAnvil()
    const port = await freePort()
    const devnetPort = await freePort()
    guard = spawnGuard({
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      DEVNET_FORK_URL: upstream.rpcUrl,
      DEVNET_PORT: String(devnetPort),
    })
    const started = await guard.waitForLine(
      (l) => l.msg === 'embedded devnet started (anvil, chain id 8453)',
      60_000,
    )
    expect(started).toMatchObject({
      rpcUrl: `http://127.0.0.1:${devnetPort}`,
      origin: `fork of http://127.0.0.1:${upstream.port}`,
    })
    await guard.waitForLine((l) => String(l.msg).includes('listening'), 30_000)

    const rpc = createPublicClient({
      chain: base,
      transport: http(`http://127.0.0.1:${devnetPort}`),
    })
    expect(
      (await rpc.getCode({ address: BASE_CONTRACTS.universalRouter }))?.length,
    ).toBeGreaterThan(2)

    const address = privateKeyToAddress(generatePrivateKey())
    const res = await contractFetch(`http://127.0.0.1:${port}/devnet/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, eth: '1', usdc: '25' }),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      address,
      balances: { ethWei: parseEther('1').toString(), usdc: '25000000' },
    })
    expect(await rpc.getBalance({ address })).toBe(parseEther('1'))
  }, 120_000)
})
