import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { createGuardClient } from '@pre-send-guard/client'
import {
  ChainMismatchError,
  withPreSendGuard,
  withPreSendGuardBundler,
} from '@pre-send-guard/client/viem'
import {
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  custom,
  encodeFunctionData,
  http,
  parseAbi,
  parseEther,
} from 'viem'
import { createBundlerClient, toSimple7702SmartAccount } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { base, baseSepolia } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/accounts.js'
import { startAnvil } from '../../src/adapters/devnet/anvil.js'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import {
  ENTRY_POINTS,
  SIMPLE_7702_ACCOUNT,
} from '../../src/domain/account-abstraction/entry-points.js'
import { keptAddresses } from '../../src/domain/delegation/delegate-probe.js'
import { NETWORK_PROFILES } from '../../src/domain/network/network-profile.js'
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

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

let guard: GuardProcess
let baseUrl: string
let rpcUrl: string
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
  const discovery = (await (await fetch(`${baseUrl}/.well-known/x402`)).json()) as {
    devnet: { rpcUrl: string }
  }
  rpcUrl = discovery.devnet.rpcUrl
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
    // The body with the status: a refusal says why.
    expect({ status: ok.status, body: await ok.json() }).toMatchObject({
      status: 200,
      body: { chainId: '0x14a34', network: 'eip155:84532' },
    })
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

/**
 * The buyer kit follows the service's network from its discovery (issue 40): on a Sepolia guard
 * its free calls carry 0x14a34, and a wallet on Base mainnet is refused before anything is
 * asked or sent, with an error naming both networks.
 */
describe('the buyer kit on a Base Sepolia guard', () => {
  const sender = privateKeyToAccount(DEVNET_ACCOUNTS.payTo.privateKey)
  const walletOn = (chain: typeof base | typeof baseSepolia) =>
    createWalletClient({ account: sender, chain, transport: http(rpcUrl) })
  const reader = () => createPublicClient({ transport: http(rpcUrl) })
  const nonce = () => reader().getTransactionCount({ address: sender.address })

  it('the viem guard asks on Sepolia, and sends what it judged', async () => {
    const wallet = withPreSendGuard(walletOn(baseSepolia), { guard: baseUrl })
    const check = await wallet.preSendGuard.check({
      account: sender,
      chain: baseSepolia,
      to: BODY.from,
      value: 1n,
    })
    expect(check.transaction.chainId).toBe('0x14a34')
    expect(check.result).toMatchObject({ chainId: '0x14a34', network: 'eip155:84532' })
    expect(check.verdict).toBe('sign')
    const before = await nonce()
    const hash = await wallet.sendTransaction({ to: BODY.from, value: 1n })
    // Its receipt first: a read right after the send can meet anvil's state from before it.
    expect((await reader().waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await nonce()).toBe(before + 1)
    expect(wallet.preSendGuard.lastCheck()?.result.network).toBe('eip155:84532')
  })

  it('a wallet on Base mainnet (8453) is refused, naming both networks; nothing is sent', async () => {
    const wallet = withPreSendGuard(walletOn(base), { guard: baseUrl })
    const before = await nonce()
    const error = await wallet
      .sendTransaction({ to: BODY.from, value: 1n })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ChainMismatchError)
    expect(error).toMatchObject({
      walletChainId: 8453,
      guardNetwork: { id: 'eip155:84532', chainId: 84532 },
    })
    expect((error as Error).message).toContain('Base mainnet (chain 8453)')
    expect((error as Error).message).toContain('Base Sepolia (eip155:84532, chain 84532)')
    expect(await nonce()).toBe(before)
    await expect(
      wallet.preSendGuard.check({ account: sender, chain: base, to: BODY.from, value: 1n }),
    ).rejects.toBeInstanceOf(ChainMismatchError)
  })

  it('the CLI (spawned) asks on Sepolia and gets a sign', async () => {
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          'packages/client/dist/cli/bin.js',
          'check',
          '--url',
          baseUrl,
          '--json',
          '--from',
          BODY.from,
          '--to',
          BODY.to,
        ],
        { cwd: ROOT, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
      ),
    )
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({
      verdict: 'sign',
      chainId: '0x14a34',
      network: 'eip155:84532',
    })
  })

  it('npm run demo (scripts/buyer.mjs flow) completes on Sepolia: one payment in its USDC, a verified receipt', async () => {
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ['scripts/buyer.mjs', 'flow', '--url', baseUrl, '--json'],
        { cwd: ROOT, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
      ),
    )
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      paid: true,
      discovery: { network: 'eip155:84532', asset: SEPOLIA_USDC },
      settlement: { success: true, network: 'eip155:84532' },
      balances: { asset: SEPOLIA_USDC, debit: '10000', matches: true },
      receiptVerification: { valid: true },
      offerReceiptVerification: { valid: true },
    })
  })

  it('the CLI flow refuses an RPC on Base mainnet for balances, naming both, before paying', async () => {
    const mainnetRpc = await startAnvil({ chainId: NETWORK_PROFILES.base.chainId })
    try {
      const usdc = () =>
        createPublicClient({ transport: http(rpcUrl) }).readContract({
          address: SEPOLIA_USDC,
          abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
          functionName: 'balanceOf',
          args: [BODY.from],
        })
      const before = await usdc()
      const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          ['scripts/buyer.mjs', 'flow', '--url', baseUrl, '--rpc-url', mainnetRpc.rpcUrl],
          { cwd: ROOT, timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
        ),
      )
      expect(run.code, run.stdout).toBe(3)
      expect(run.stderr).toContain('is chain 8453, the guard serves Base Sepolia (eip155:84532')
      expect(await usdc()).toBe(before)
    } finally {
      await mainnetRpc.stop()
    }
  })

  it("MCP over stdio lists and calls the tools on Sepolia; the service's /mcp does too", async () => {
    const {
      BUYER_PRIVATE_KEY: _k,
      PRE_SEND_GUARD_URL: _u,
      ...env
    } = process.env as Record<string, string>
    const stdio = new Client({ name: 'base-sepolia-test', version: '1.0.0' })
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'packages/client/bin/pre-send-guard-mcp.js')],
        env: { ...env, PRE_SEND_GUARD_URL: baseUrl },
        stderr: 'pipe',
      }),
    )
    const http_ = new Client({ name: 'base-sepolia-test', version: '1.0.0' })
    await http_.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)))
    try {
      const status = (await stdio.callTool({
        name: 'guard_status',
        arguments: {},
      })) as CallToolResult
      expect(status.structuredContent).toMatchObject({ network: 'eip155:84532' })
      for (const client of [stdio, http_]) {
        const { tools } = await client.listTools()
        const preflight = tools.find((t) => t.name === 'preflight_transaction')
        expect(preflight?.inputSchema.properties?.chainId).toMatchObject({ const: '0x14a34' })
        expect(preflight?.description).toContain('Base Sepolia (chain id 0x14a34)')
        const answer = (await client.callTool({
          name: 'preflight_transaction',
          arguments: { ...BODY, chainId: '0x14a34' },
        })) as CallToolResult
        expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy()
        expect(answer.structuredContent).toMatchObject({
          verdict: 'sign',
          chainId: '0x14a34',
          network: 'eip155:84532',
        })
        const mainnet = (await client.callTool({
          name: 'preflight_transaction',
          arguments: { ...BODY, chainId: '0x2105' },
        })) as CallToolResult
        expect(mainnet.isError).toBe(true)
      }
    } finally {
      await stdio.close()
      await http_.close()
    }
  })
})

/**
 * The Sepolia devnet is Sepolia-shaped (issue 40): what exists on Base Sepolia at the same
 * addresses as on Base is placed (WETH9, Permit2, the OP-stack predeploys initialised with
 * Sepolia's L1 counterparts, Multicall3, the GasPriceOracle, the EntryPoints), USDC is at
 * Sepolia's address, and nothing sits at mainnet-only addresses (Base's USDC, Uniswap). The
 * faucet mints Sepolia's USDC, and the known-code lists read Sepolia's addresses.
 */
describe('the Sepolia devnet', () => {
  const sepolia = NETWORK_PROFILES['base-sepolia']
  const chain = () => createPublicClient({ transport: http(rpcUrl) })
  const hasCode = async (address: `0x${string}`) =>
    ((await chain().getCode({ address })) ?? '0x') !== '0x'

  it("holds Sepolia's contracts at Sepolia's addresses, and no mainnet-only one", async () => {
    const shared = [
      BASE_CONTRACTS.weth9,
      BASE_CONTRACTS.permit2,
      BASE_CONTRACTS.l2CrossDomainMessenger,
      BASE_CONTRACTS.l2StandardBridge,
      BASE_CONTRACTS.optimismMintableErc20Factory,
      BASE_CONTRACTS.l1Block,
      BASE_CONTRACTS.l2ToL1MessagePasser,
      BASE_CONTRACTS.multicall3,
      BASE_CONTRACTS.gasPriceOracle,
      SEPOLIA_USDC,
    ] as const
    for (const address of shared) expect(await hasCode(address), address).toBe(true)
    for (const address of [
      BASE_CONTRACTS.usdc,
      BASE_CONTRACTS.universalRouter,
      BASE_CONTRACTS.uniswapV3Factory,
      BASE_CONTRACTS.swapRouter02,
    ]) {
      expect(await hasCode(address), address).toBe(false)
    }
    const bridgeAbi = parseAbi([
      'function OTHER_BRIDGE() view returns (address)',
      'function OTHER_MESSENGER() view returns (address)',
    ])
    expect(
      await chain().readContract({
        address: BASE_CONTRACTS.l2StandardBridge,
        abi: bridgeAbi,
        functionName: 'OTHER_BRIDGE',
      }),
    ).toBe(sepolia.l1.standardBridge)
    expect(
      await chain().readContract({
        address: BASE_CONTRACTS.l2CrossDomainMessenger,
        abi: bridgeAbi,
        functionName: 'OTHER_MESSENGER',
      }),
    ).toBe(sepolia.l1.crossDomainMessenger)
  })

  it("the faucet mints Sepolia's USDC", async () => {
    const address = '0x000000000000000000000000000000000000bEEF'
    const res = await fetch(`${baseUrl}/devnet/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, eth: '0', usdc: '5' }),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ balances: { usdc: '5000000' } })
    const balance = await chain().readContract({
      address: SEPOLIA_USDC,
      abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
      functionName: 'balanceOf',
      args: [address],
    })
    expect(balance).toBe(5_000_000n)
  })

  it('a WETH wrap at the predeploy is recognised and sign on Sepolia', async () => {
    const res = await fetch(`${baseUrl}/payanagent/v1/base-transaction-preflight`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        chainId: '0x14a34',
        from: BODY.from,
        to: BASE_CONTRACTS.weth9,
        data: encodeFunctionData({
          abi: parseAbi(['function deposit() payable']),
          functionName: 'deposit',
        }),
        value: `0x${parseEther('0.1').toString(16)}`,
      }),
    })
    expect(res.status).toBe(200)
    const answer = (await res.json()) as { verdict: string; call: { success: boolean } }
    expect(answer).toMatchObject({ verdict: 'sign', call: { success: true } })
  })

  it("the delegate probe keeps Sepolia's known addresses, not mainnet-only ones", () => {
    const onSepolia = keptAddresses(sepolia.id)
    const onMainnet = keptAddresses(NETWORK_PROFILES.base.id)
    expect(onSepolia).toContain(BASE_CONTRACTS.permit2)
    expect(onSepolia).toContain(BASE_CONTRACTS.weth9)
    expect(onMainnet).toContain(BASE_CONTRACTS.swapRouter02)
    expect(onSepolia).not.toContain(BASE_CONTRACTS.swapRouter02)
    expect(onSepolia).not.toContain(BASE_CONTRACTS.universalRouter)
  })
})

/**
 * The bundler guard on a Sepolia guard: a Simple7702Account operation (EntryPoint v0.8, both
 * placed on the Sepolia devnet) is judged with Sepolia's chain id and sent; a bundler on Base
 * mainnet is refused before the guard is asked and before anything reaches the bundler.
 */
describe('withPreSendGuardBundler on Sepolia', () => {
  const FAKE_HASH = `0x${'ab'.repeat(32)}` as const

  /** A fresh owner with 1 ETH, delegated to Simple7702Account, as a viem smart account. */
  async function delegatedOwner() {
    const owner = privateKeyToAccount(generatePrivateKey())
    const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
    await test.setBalance({ address: owner.address, value: parseEther('1') })
    await test.setCode({
      address: owner.address,
      bytecode: concat(['0xef0100', SIMPLE_7702_ACCOUNT]),
    })
    const client = createPublicClient({ chain: baseSepolia, transport: http(rpcUrl) })
    return { client, account: await toSimple7702SmartAccount({ client, owner }) }
  }

  /** A stand-in bundler on `chainIdHex`: fixed gas, sends recorded (never run), rest forwarded. */
  function recordingBundler(
    chainIdHex: string,
    client: { request: (args: never) => Promise<unknown> },
  ) {
    const sent: unknown[] = []
    const transport = custom({
      async request({ method, params }: { method: string; params?: unknown }) {
        if (method === 'eth_chainId') return chainIdHex
        if (method === 'eth_estimateUserOperationGas') {
          return {
            callGasLimit: '0x7a120',
            verificationGasLimit: '0xc3500',
            preVerificationGas: '0xea60',
          }
        }
        if (method === 'eth_sendUserOperation') {
          sent.push(params)
          return FAKE_HASH
        }
        return client.request({ method, params } as never)
      },
    })
    return { sent, transport }
  }

  it("judges an operation with Sepolia's chain id and sends it", async () => {
    const { client, account } = await delegatedOwner()
    const { sent, transport } = recordingBundler('0x14a34', client)
    const bundler = withPreSendGuardBundler(
      createBundlerClient({ account, chain: baseSepolia, client, transport }),
      { guard: baseUrl },
    )
    const hash = await bundler.sendUserOperation({
      calls: [{ to: BODY.to, value: parseEther('0.01') }],
    })
    expect(hash).toBe(FAKE_HASH)
    expect(sent).toHaveLength(1)
    const check = bundler.preSendGuard.lastCheck()
    expect(check?.entryPoint).toBe(ENTRY_POINTS['0.8'])
    expect(check?.verdict, JSON.stringify(check?.findings)).toBe('sign')
    expect(check?.result).toMatchObject({ chainId: '0x14a34', network: 'eip155:84532' })
    expect(check?.result.execution.success).toBe(true)
  })

  it('refuses a bundler on Base mainnet, naming both networks; nothing reaches it', async () => {
    const { client, account } = await delegatedOwner()
    const { sent, transport } = recordingBundler('0x2105', client)
    const bundler = withPreSendGuardBundler(
      createBundlerClient({ account, chain: base, client, transport }),
      { guard: baseUrl },
    )
    const error = await bundler
      .sendUserOperation({ calls: [{ to: BODY.to, value: parseEther('0.01') }] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ChainMismatchError)
    expect(error).toMatchObject({
      walletChainId: 8453,
      guardNetwork: { id: 'eip155:84532', chainId: 84532 },
    })
    expect(sent).toHaveLength(0)
    expect(bundler.preSendGuard.lastCheck()).toBeUndefined()
  })
})
