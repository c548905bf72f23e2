import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createGuardClient } from '@pre-send-guard/client'
import { createPublicClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/accounts.js'
import { type GuardProcess, spawnGuard } from '../support/guard-process.js'
import { freePort } from '../support/net.js'

/**
 * `NETWORK=base-sepolia` end to end (issue 40 item 2): the service on its Sepolia-shaped devnet
 * (chain id 84532, DevnetSepoliaUSDC at Sepolia's USDC address), read by the real buyer client,
 * which follows the network discovery names and pays once.
 */
const SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
const BODY = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  data: '0x',
  value: '0x0',
} as const

let guard: GuardProcess
let baseUrl: string
const dataDir = mkdtempSync(join(tmpdir(), 'guard-sepolia-'))

beforeAll(async () => {
  const port = await freePort()
  guard = spawnGuard({
    NETWORK: 'base-sepolia',
    PORT: String(port),
    DATA_DIR: dataDir,
    PRE_SEND_GUARD_INSTANCES: '',
    LOG_LEVEL: 'info',
  })
  await guard.waitForLine((l) => String(l.msg).includes('listening'), 90_000)
  baseUrl = `http://127.0.0.1:${port}`
}, 120_000)

afterAll(async () => {
  await guard?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('NETWORK=base-sepolia', () => {
  it('discovery and the 402 name eip155:84532 and Sepolia USDC ("USDC", version 2)', async () => {
    const discovery = (await (await fetch(`${baseUrl}/.well-known/x402`)).json()) as Record<
      string,
      unknown
    > & {
      accepts: { network: string; asset: string; extra: unknown }[]
      devnet: { chainId: string }
    }
    expect(discovery.network).toBe('eip155:84532')
    expect(discovery.asset).toBe(SEPOLIA_USDC)
    expect(discovery.accepts[0]).toMatchObject({
      network: 'eip155:84532',
      asset: SEPOLIA_USDC,
      extra: { name: 'USDC', version: '2' },
    })
    expect(discovery.devnet.chainId).toBe('0x14a34')
    const unpaid = await fetch(`${baseUrl}/simulate/transaction-preflight`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BODY),
    })
    expect(unpaid.status).toBe(402)
    expect(((await unpaid.json()) as { network: string }).network).toBe('eip155:84532')
    const header = JSON.parse(
      Buffer.from(unpaid.headers.get('payment-required') ?? '', 'base64').toString('utf8'),
    ) as { accepts: { network: string; asset: string }[] }
    expect(header.accepts[0]).toMatchObject({ network: 'eip155:84532', asset: SEPOLIA_USDC })
  })

  it("accepts Sepolia's chain id and refuses mainnet's with a clear 422", async () => {
    const ask = (chainId: string) =>
      fetch(`${baseUrl}/payanagent/v1/base-transaction-preflight`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...BODY, chainId }),
      })
    const ok = await ask('0x14a34')
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ chainId: '0x14a34', network: 'eip155:84532' })
    const refused = await ask('0x2105')
    expect(refused.status).toBe(422)
    expect(await refused.json()).toMatchObject({
      error: 'invalid_request',
      issues: [{ path: 'chainId', message: 'only Base Sepolia (0x14a34) is supported' }],
    })
  })

  it('the real client pays once on eip155:84532 and the receipt verifies', async () => {
    const discoveryDoc = (await (await fetch(`${baseUrl}/.well-known/x402`)).json()) as {
      devnet: { rpcUrl: string }
    }
    const client = createGuardClient({
      baseUrl,
      payer: {
        account: privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey),
        publicClient: createPublicClient({ transport: http(discoveryDoc.devnet.rpcUrl) }),
      },
    })
    const discovery = await client.discovery()
    const paid = await client.paidPreflight(BODY, { discovery })
    expect(paid.challenge?.ok).toBe(true)
    expect(paid.settlement).toMatchObject({ success: true, network: 'eip155:84532' })
    expect(paid.receipt).toMatchObject({ network: 'eip155:84532', chainId: '84532' })
    const verification = await client.verifyReceipt(paid.receipt, discovery, {
      request: paid.request,
      result: paid.result,
      settlementTx: paid.settlement.transaction,
    })
    expect(verification.checks.filter((c) => !c.ok)).toEqual([])
  })
})
