import { pino } from 'pino'
import {
  type Address,
  concat,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  type Hex,
  http,
  numberToHex,
  parseAbi,
  parseAbiParameters,
  parseEther,
  parseUnits,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AnvilInstance, startAnvil } from '../../src/adapters/devnet/anvil.js'
import { BASE_CONTRACTS, WETH_USDC_V3_FEE } from '../../src/adapters/devnet/base-world.js'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { devnetStateFile } from '../../src/adapters/devnet/devnet-state.js'
import { createDevnetFaucet } from '../../src/adapters/devnet/faucet.js'
import { lazyMetaMaskPhishingList } from '../../src/adapters/phishing/metamask-phishing-list.js'
import { createJinaReader } from '../../src/adapters/reader/jina-reader.js'
import { createJsonRpcChainReader } from '../../src/adapters/rpc/json-rpc-chain-reader.js'
import { DEFAULT_SCREEN_CONFIG } from '../../src/domain/screen/screen-transaction.js'
import { createApp } from '../../src/http/create-app.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

// Issue 29 item 2: the devnet behaves like Base. Its anvil starts from the built state file
// (base-world.ts placed once, then loaded), holding Base's infrastructure at Base's addresses;
// a swap through the Universal Router and a WETH wrap are `sign` and execute; the faucet funds
// any address; a fork of another RPC gets what its upstream lacks and leaves the upstream alone.

const PREFLIGHT = '/payanagent/v1/base-transaction-preflight'
const erc20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function deposit() payable',
])
const v3Factory = parseAbi(['function getPool(address, address, uint24) view returns (address)'])
const v3Pool = parseAbi(['function liquidity() view returns (uint128)'])
const universalRouter = parseAbi([
  'function execute(bytes commands, bytes[] inputs, uint256 deadline) payable',
])

/** Universal Router: WRAP_ETH to the router, then a v3 exact-in WETH -> USDC swap to the sender. */
function ethToUsdcSwap(amount: bigint, minOut: bigint): Hex {
  const ADDRESS_THIS = '0x0000000000000000000000000000000000000002'
  const MSG_SENDER = '0x0000000000000000000000000000000000000001'
  const wrap = encodeAbiParameters(parseAbiParameters('address, uint256'), [ADDRESS_THIS, amount])
  const path = encodePacked(
    ['address', 'uint24', 'address'],
    [BASE_CONTRACTS.weth9, WETH_USDC_V3_FEE, BASE_CONTRACTS.usdc],
  )
  const swap = encodeAbiParameters(parseAbiParameters('address, uint256, uint256, bytes, bool'), [
    MSG_SENDER,
    amount,
    minOut,
    path,
    false,
  ])
  return encodeFunctionData({
    abi: universalRouter,
    functionName: 'execute',
    args: [
      concat([numberToHex(0x0b, { size: 1 }), numberToHex(0x00, { size: 1 })]),
      [wrap, swap],
      BigInt(Math.floor(Date.now() / 1000) + 600),
    ],
  })
}

async function fundedWallet(devnet: Devnet, faucet = createDevnetFaucet(devnet.rpcUrl)) {
  const account = privateKeyToAccount(generatePrivateKey())
  await faucet({ address: account.address, ethWei: parseEther('5'), usdc: 0n })
  return account
}

/** Judges `tx` with the real app, sends it, and returns the verdict and the receipt status. */
async function judgeAndSend(
  devnet: Devnet,
  account: ReturnType<typeof privateKeyToAccount>,
  tx: { to: Address; data: Hex; value: bigint },
) {
  const app = preflightApp(devnet.rpcUrl)
  const res = await postJson(app, PREFLIGHT, {
    from: account.address,
    to: tx.to,
    data: tx.data,
    value: numberToHex(tx.value),
  })
  expect(res.status).toBe(200)
  const body = (await res.json()) as { verdict: string; findings: { id: string }[] }
  const wallet = createWalletClient({ account, chain: base, transport: http(devnet.rpcUrl) })
  const client = createPublicClient({ chain: base, transport: http(devnet.rpcUrl) })
  // The wallet's estimate, then the send in a later second, as an agent's lands in a later
  // block: what depends on the block's timestamp (a v3 pool's oracle write) fails here every
  // time, not in one run of many.
  const gas = await client.estimateGas({ account: account.address, ...tx })
  await new Promise((resolve) => setTimeout(resolve, 1050 - (Date.now() % 1000)))
  const hash = await wallet.sendTransaction({ ...tx, gas })
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  return {
    verdict: body.verdict,
    findings: body.findings.map((f) => f.id),
    status: receipt.status,
    // Out of gas shows as all of it used.
    ...(receipt.status === 'success' ? {} : { gas, gasUsed: receipt.gasUsed }),
  }
}

describe('the devnet holds Base infrastructure', () => {
  let devnet: Devnet
  beforeAll(async () => {
    devnet = await startDevnet()
  })
  afterAll(async () => {
    await devnet?.stop()
  })
  const client = () => createPublicClient({ chain: base, transport: http(devnet.rpcUrl) })

  it('starts from the built state file, with code at every Base address', async () => {
    expect(devnet.origin).toEqual({ kind: 'state', path: devnetStateFile().path })
    for (const [name, address] of Object.entries(BASE_CONTRACTS)) {
      const code = await client().getCode({ address })
      expect(code?.length ?? 0, name).toBeGreaterThan(2)
    }
    const weth = BASE_CONTRACTS.weth9
    const read = (functionName: 'name' | 'symbol' | 'decimals') =>
      client().readContract({ address: weth, abi: erc20, functionName })
    expect([await read('name'), await read('symbol'), await read('decimals')]).toEqual([
      'Wrapped Ether',
      'WETH',
      18,
    ])
    const pool = await client().readContract({
      address: BASE_CONTRACTS.uniswapV3Factory,
      abi: v3Factory,
      functionName: 'getPool',
      args: [BASE_CONTRACTS.weth9, BASE_CONTRACTS.usdc, WETH_USDC_V3_FEE],
    })
    expect(BigInt(pool)).not.toBe(0n)
    expect(
      await client().readContract({ address: pool, abi: v3Pool, functionName: 'liquidity' }),
    ).toBeGreaterThan(0n)
  })

  it('an ETH -> USDC swap through the Universal Router is sign and executes', async () => {
    const account = await fundedWallet(devnet)
    const result = await judgeAndSend(devnet, account, {
      to: BASE_CONTRACTS.universalRouter,
      data: ethToUsdcSwap(parseEther('1'), parseUnits('2900', 6)),
      value: parseEther('1'),
    })
    expect(result).toMatchObject({ verdict: 'sign', status: 'success' })
    const usdc = await client().readContract({
      address: BASE_CONTRACTS.usdc,
      abi: erc20,
      functionName: 'balanceOf',
      args: [account.address],
    })
    // 3,000 USDC per ETH, less the 0.05 % fee and the price impact on a 100 ETH pool.
    expect(usdc).toBeGreaterThan(parseUnits('2900', 6))
    expect(usdc).toBeLessThan(parseUnits('3000', 6))
  })

  it('a WETH wrap at 0x4200...0006 is sign and executes', async () => {
    const account = await fundedWallet(devnet)
    const result = await judgeAndSend(devnet, account, {
      to: BASE_CONTRACTS.weth9,
      data: encodeFunctionData({ abi: erc20, functionName: 'deposit' }),
      value: parseEther('0.5'),
    })
    expect(result).toMatchObject({ verdict: 'sign', status: 'success' })
    expect(
      await client().readContract({
        address: BASE_CONTRACTS.weth9,
        abi: erc20,
        functionName: 'balanceOf',
        args: [account.address],
      }),
    ).toBe(parseEther('0.5'))
  })

  it('the faucet route funds an arbitrary address with ETH and USDC, and refuses bad input', async () => {
    const app = preflightApp(devnet.rpcUrl, { devnetFaucet: createDevnetFaucet(devnet.rpcUrl) })
    const address = privateKeyToAccount(generatePrivateKey()).address
    const res = await postJson(app, '/devnet/faucet', { address, eth: '2.5', usdc: '1234.5' })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({
      address,
      environment: 'devnet',
      added: { ethWei: parseEther('2.5').toString(), usdc: '1234500000' },
      balances: { ethWei: parseEther('2.5').toString(), usdc: '1234500000' },
    })
    // On chain, not only in the answer.
    expect(await client().getBalance({ address })).toBe(parseEther('2.5'))
    expect(
      await client().readContract({
        address: BASE_CONTRACTS.usdc,
        abi: erc20,
        functionName: 'balanceOf',
        args: [address],
      }),
    ).toBe(1_234_500_000n)
    // Defaults: 10 ETH and 1,000 USDC more.
    const again = await postJson(app, '/devnet/faucet', { address })
    expect(((await again.json()) as { balances: unknown }).balances).toEqual({
      ethWei: parseEther('12.5').toString(),
      usdc: '2234500000',
    })
    for (const bad of [
      { address: '0x1234' },
      { address, eth: '-1' },
      { address, eth: '1e3' },
      { address, usdc: '0.0000001' },
      { address, eth: '1000000' },
      { address, extra: true },
    ]) {
      const refused = await postJson(app, '/devnet/faucet', bad)
      expect(refused.status, JSON.stringify(bad)).toBe(422)
    }
  })

  it('has no faucet in mainnet mode (404), even if one were wired', async () => {
    const app = createApp({
      logger: pino({ level: 'silent' }),
      environment: 'mainnet',
      // Required on mainnet: a mainnet app never takes its links from the Host header.
      publicBaseUrl: 'https://guard.example',
      maxBodyBytes: 64 * 1024,
      preflight: {
        chain: createJsonRpcChainReader({ rpcUrl: devnet.rpcUrl, timeoutMs: 3000 }),
        chainId: 8453,
        environment: 'mainnet',
        screen: DEFAULT_SCREEN_CONFIG,
      },
      reader: createJinaReader({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 }),
      phishingList: lazyMetaMaskPhishingList(),
      devnetFaucet: createDevnetFaucet(devnet.rpcUrl),
    })
    const address = privateKeyToAccount(generatePrivateKey()).address
    const res = await postJson(app, '/devnet/faucet', { address })
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: string }).error).toBe('not_found')
    expect(await client().getBalance({ address })).toBe(0n)
  })
})

describe("a test's opt-out", () => {
  it("world: 'minimal' is an empty anvil with only the payment side's contracts", async () => {
    const minimal = await startDevnet({ world: 'minimal' })
    try {
      expect(minimal.origin).toEqual({ kind: 'empty' })
      const rpc = createPublicClient({ chain: base, transport: http(minimal.rpcUrl) })
      expect((await rpc.getCode({ address: BASE_CONTRACTS.usdc }))?.length).toBeGreaterThan(2)
      expect(await rpc.getCode({ address: BASE_CONTRACTS.universalRouter })).toBeUndefined()
      expect(await rpc.getCode({ address: BASE_CONTRACTS.weth9 })).toBeUndefined()
    } finally {
      await minimal.stop()
    }
  })
})

describe('DEVNET_FORK_URL: a fork of another RPC', () => {
  let upstream: AnvilInstance
  let fork: Devnet
  /** Only the upstream knows this account's balance: the fork must read it from there. */
  const marker = privateKeyToAccount(generatePrivateKey()).address
  beforeAll(async () => {
    upstream = await startAnvil()
    await fetch(upstream.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [marker, '0x1234'],
      }),
    })
    fork = await startDevnet({ forkUrl: upstream.rpcUrl })
  }, 60_000)
  afterAll(async () => {
    await fork?.stop()
    await upstream?.stop()
  })

  it('places what the upstream lacks, swaps on the fork, and leaves the upstream untouched', async () => {
    expect(fork.origin).toEqual({ kind: 'fork', url: upstream.rpcUrl })
    const at = (rpcUrl: string) => createPublicClient({ chain: base, transport: http(rpcUrl) })
    expect(
      (await at(fork.rpcUrl).getCode({ address: BASE_CONTRACTS.universalRouter }))?.length,
    ).toBeGreaterThan(2)
    expect(
      await at(upstream.rpcUrl).getCode({ address: BASE_CONTRACTS.universalRouter }),
    ).toBeUndefined()
    expect(await at(fork.rpcUrl).getBalance({ address: marker })).toBe(0x1234n)
    const account = await fundedWallet(fork)
    const result = await judgeAndSend(fork, account, {
      to: BASE_CONTRACTS.universalRouter,
      data: ethToUsdcSwap(parseEther('1'), parseUnits('2900', 6)),
      value: parseEther('1'),
    })
    expect(result).toMatchObject({ verdict: 'sign', status: 'success' })
  })
})
