import { createGuardClient, GuardError } from '@pre-send-guard/client'
import {
  GuardUnavailableError,
  SignatureBlockedError,
  TransactionBlockedError,
  TransactionNeedsReviewError,
  TransactionNotCheckableError,
} from '@pre-send-guard/client/viem'
import {
  type Address,
  type Chain,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  maxUint256,
  parseEther,
  parseUnits,
  verifyMessage,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { base, baseSepolia, mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createViemWalletProvider } from '../../packages/agentkit/src/create-viem-wallet-provider.js'
import {
  expectAnsweredOn,
  GUARD_NETWORKS,
  GuardNetworkMismatchError,
  UnsupportedNetworkError,
} from '../../packages/agentkit/src/guard-network.js'
import { withPreSendGuardWalletProvider } from '../../packages/agentkit/src/guarded-wallet-provider.js'
import type { SpendPolicy } from '../../packages/agentkit/src/spend-policy.js'
import { SpendPolicyError } from '../../packages/agentkit/src/spend-policy-error.js'
import type { WalletCheck } from '../../packages/agentkit/src/wallet-check.js'
import type { PreSendGuardWalletOptions } from '../../packages/agentkit/src/wallet-judge.js'
import { ANVIL_TEST_MNEMONIC } from '../../src/adapters/devnet/anvil.js'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import { type AgentKitAnalytics, routeAgentKitAnalytics } from '../support/agentkit-analytics.js'
import { DEAD_URL, type ServedGuard, startServedGuard } from '../support/served-guard.js'
import { ethToUsdcSwap, permit2Single } from './devnet-calls.js'

/**
 * `withPreSendGuardWalletProvider` around the real `@coinbase/agentkit` `ViemWalletProvider`,
 * on the devnet (Base's contracts at Base's addresses), asking the real guard over HTTP. What
 * was sent is read from the chain: a refusal leaves the agent's nonce where it was.
 */
let guard: ServedGuard
let analytics: AgentKitAnalytics

beforeAll(async () => {
  analytics = await routeAgentKitAnalytics()
  guard = await startServedGuard()
}, 120_000)

afterAll(async () => {
  await guard?.stop()
  await analytics?.restore()
})

/** anvil funds its first ten accounts; #5 and up play no devnet role. */
const agent = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 7 })
const friend = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 8 }).address
const stranger = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 9 }).address
const { usdc, universalRouter, multicall3 } = BASE_CONTRACTS

function viemProvider(chain: Chain = base) {
  const walletClient = createWalletClient({
    account: agent,
    chain,
    transport: http(guard.devnet.rpcUrl),
  })
  return createViemWalletProvider(walletClient, { rpcUrl: guard.devnet.rpcUrl })
}

/** The agent's wallet provider, guarded, with every check it made. */
function guarded(options: Partial<PreSendGuardWalletOptions> = {}, chain: Chain = base) {
  const checks: WalletCheck[] = []
  const provider = withPreSendGuardWalletProvider(viemProvider(chain), {
    guard: guard.baseUrl,
    ...options,
    onCheck: (check) => checks.push(check),
  })
  return { provider, checks }
}

const nonce = () => guard.rpc.getTransactionCount({ address: agent.address, blockTag: 'pending' })
const usdcOf = (owner: Address) =>
  guard.rpc.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
const allowance = (spender: Address) =>
  guard.rpc.readContract({
    address: usdc,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [agent.address, spender],
  })
/**
 * Waits for a sent transaction's receipt (success) before its effect is read: the hash comes
 * back from `eth_sendRawTransaction`, and a read made at once saw the state before it (once, in
 * a full run on 2 busy cores).
 */
const mined = async (sent: Promise<Hex>) => {
  const hash = await sent
  expect((await guard.rpc.waitForTransactionReceipt({ hash })).status).toBe('success')
}
const approve = (spender: Address, amount: bigint) => ({
  to: usdc,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
})
const inAnHour = () => BigInt(Math.floor(Date.now() / 1000) + 3600)

/** Pay a friend, swap on Uniswap: an agent's ordinary day. */
const policy: SpendPolicy = { recipients: [friend], limits: { eth: parseEther('2') } }

describe('an agent with the wrapped ViemWalletProvider', () => {
  it('pays a friend and swaps ETH for USDC on Uniswap, as judged', async () => {
    const { provider, checks } = guarded({ policy })
    const friendBefore = await guard.rpc.getBalance({ address: friend })

    const paid = await provider.nativeTransfer(friend, parseEther('0.1').toString())
    expect((await guard.rpc.getTransactionReceipt({ hash: paid as `0x${string}` })).status).toBe(
      'success',
    )
    expect((await guard.rpc.getBalance({ address: friend })) - friendBefore).toBe(parseEther('0.1'))

    const swapped = await provider.sendTransaction({
      to: universalRouter,
      data: ethToUsdcSwap(parseEther('1'), parseUnits('2900', 6)),
      value: parseEther('1'),
    })
    expect((await guard.rpc.waitForTransactionReceipt({ hash: swapped })).status).toBe('success')
    expect(await usdcOf(agent.address)).toBeGreaterThan(parseUnits('2900', 6))

    expect(checks.map((c) => [c.kind, c.check.verdict, c.violations])).toEqual([
      ['transaction', 'sign', []],
      ['transaction', 'sign', []],
    ])
    // What was judged is what went out: the same from, to, data and value.
    const sent = await guard.rpc.getTransaction({ hash: swapped })
    const judged = checks[1]!.kind === 'transaction' ? checks[1]!.check.transaction : undefined
    expect(judged).toEqual({
      from: getAddress(sent.from),
      to: getAddress(sent.to!),
      data: sent.input,
      value: `0x${sent.value.toString(16)}`,
    })
    expect(provider.lastCheck()).toBe(checks[1])
  }, 60_000)

  it('cannot grant an unlimited USDC approval to a key: blocked, nothing sent', async () => {
    const { provider } = guarded()
    const before = await nonce()
    const error = await provider.sendTransaction(approve(stranger, maxUint256)).catch((e) => e)
    expect(error).toBeInstanceOf(TransactionBlockedError)
    expect((error as TransactionBlockedError).findings.map((f) => f.id)).toContain(
      'approval-to-eoa',
    )
    // What the agent reads: the error's text names the rule.
    expect(String(error)).toMatch(
      /^TransactionBlockedError: the guard blocked this transaction: approval-to-eoa/,
    )
    expect(await nonce()).toBe(before)
    expect(await allowance(stranger)).toBe(0n)
  })

  it('cannot sign a Permit2 to a stranger, directly or through its viem signer', async () => {
    const { provider } = guarded()
    const permit = permit2Single(stranger, 2n ** 160n - 1n, Number(inAnHour()), inAnHour())
    const error = await provider.signTypedData(permit).catch((e) => e)
    expect(error).toBeInstanceOf(SignatureBlockedError)
    expect((error as SignatureBlockedError).findings.map((f) => f.id)).toContain(
      'permit-spender-no-code',
    )
    // toSigner() (what x402 and other libraries sign with) signs through the wrapper too.
    await expect(provider.toSigner().signTypedData(permit as never)).rejects.toBeInstanceOf(
      SignatureBlockedError,
    )
  })
})

describe('the spend policy, on the simulated effects', () => {
  it('refuses paying someone not listed, though the guard would sign it', async () => {
    const { provider, checks } = guarded({ policy })
    const before = await nonce()
    const error = await provider.nativeTransfer(stranger, '1000').catch((e) => e)
    expect(error).toBeInstanceOf(SpendPolicyError)
    expect((error as SpendPolicyError).violations).toEqual([
      { rule: 'recipient_not_allowed', detail: expect.stringContaining(stranger) },
    ])
    expect(checks[0]?.check.verdict).toBe('sign')
    expect(await nonce()).toBe(before)
  })

  it('refuses more than the limit, and a token without one', async () => {
    const { provider } = guarded({ policy })
    const before = await nonce()
    const over = await provider.nativeTransfer(friend, parseEther('3').toString()).catch((e) => e)
    expect((over as SpendPolicyError).violations.map((v) => v.rule)).toEqual([
      'spend_limit_exceeded',
    ])
    const transfer = {
      to: usdc,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [friend, 1n] }),
    }
    const unlisted = await provider.sendTransaction(transfer).catch((e) => e)
    expect((unlisted as SpendPolicyError).violations.map((v) => v.rule)).toEqual([
      'asset_not_allowed',
    ])
    // With a USDC limit the same transfer goes out.
    const allowed = guarded({ policy: { ...policy, limits: { eth: 1n, [usdc]: 10n } } })
    await mined(allowed.provider.sendTransaction(transfer))
    expect(await nonce()).toBe(before + 1)
  })

  it('holds a budget across transactions: what already left counts against the window', async () => {
    const budget = { windowMs: 86_400_000, limits: { eth: parseEther('0.1') } }
    const { provider, checks } = guarded({ policy: { ...policy, budget } })
    const before = await nonce()
    await provider.nativeTransfer(friend, parseEther('0.06').toString())
    // Each fits the per-transaction limit; together they are over the day's budget.
    const over = await provider
      .nativeTransfer(friend, parseEther('0.06').toString())
      .catch((e) => e)
    expect(over).toBeInstanceOf(SpendPolicyError)
    expect((over as SpendPolicyError).violations).toEqual([
      { rule: 'budget_exceeded', detail: expect.stringContaining('over the budget of') },
    ])
    expect(checks.at(-1)?.check.verdict).toBe('sign')
    expect(await nonce()).toBe(before + 1)
    // What is left still goes, to the wei.
    await provider.nativeTransfer(friend, parseEther('0.04').toString())
    expect(await nonce()).toBe(before + 2)
    // Another wrapped provider (another agent) has its own budget.
    await guarded({ policy: { ...policy, budget } }).provider.nativeTransfer(
      friend,
      parseEther('0.06').toString(),
    )
    expect(await nonce()).toBe(before + 3)
  })

  it('refuses a swap whose output is paid to someone else: seen in the effects, not the calldata', async () => {
    const { provider, checks } = guarded({ policy })
    const before = await nonce()
    const error = await provider
      .sendTransaction({
        to: universalRouter,
        data: ethToUsdcSwap(parseEther('1'), parseUnits('2900', 6), stranger),
        value: parseEther('1'),
      })
      .catch((e) => e)
    expect(error).toBeInstanceOf(Error)
    expect(checks[0]?.violations).toEqual([
      { rule: 'recipient_not_allowed', detail: expect.stringContaining(stranger) },
    ])
    expect(await nonce()).toBe(before)
  })

  it('holds approvals and permits to the listed spenders and the limits', async () => {
    const { provider } = guarded({
      policy: { spenders: [multicall3], limits: { [usdc]: parseUnits('5', 6) } },
    })
    const unlisted = await provider
      .signTypedData(
        permit2Single(universalRouter, parseUnits('1', 6), Number(inAnHour()), inAnHour()),
      )
      .catch((e) => e)
    expect((unlisted as SpendPolicyError).violations.map((v) => v.rule)).toEqual([
      'spender_not_allowed',
    ])
    const tooMuch = await provider
      .sendTransaction(approve(multicall3, parseUnits('6', 6)))
      .catch((e) => e)
    expect((tooMuch as SpendPolicyError).violations.map((v) => v.rule)).toEqual([
      'spend_limit_exceeded',
    ])
    await mined(provider.sendTransaction(approve(multicall3, parseUnits('5', 6))))
    expect(await allowance(multicall3)).toBe(parseUnits('5', 6))
  })
})

describe('review', () => {
  it("refuses by default; goes ahead only when the builder's callback says exactly true", async () => {
    const unlimited = approve(multicall3, maxUint256)
    const refused = await guarded()
      .provider.sendTransaction(unlimited)
      .catch((e) => e)
    expect(refused).toBeInstanceOf(TransactionNeedsReviewError)
    expect((refused as TransactionNeedsReviewError).findings.map((f) => f.id)).toContain(
      'unlimited-allowance',
    )
    const truthy = guarded({ onReview: () => 'yes' as never })
    await expect(truthy.provider.sendTransaction(unlimited)).rejects.toBeInstanceOf(
      TransactionNeedsReviewError,
    )
    const reviewed: WalletCheck[] = []
    const approving = guarded({
      onReview: (check) => {
        reviewed.push(check)
        return true
      },
    })
    await mined(approving.provider.sendTransaction(unlimited))
    expect(await allowance(multicall3)).toBe(maxUint256)
    expect(reviewed.map((c) => [c.kind, c.check.verdict])).toEqual([['transaction', 'review']])
  })
})

describe('failing closed', () => {
  it('refuses when the guard is down, unless the builder opted out (and never with a policy)', async () => {
    const before = await nonce()
    const down = guarded({ guard: DEAD_URL })
    await expect(down.provider.nativeTransfer(friend, '1')).rejects.toBeInstanceOf(
      GuardUnavailableError,
    )
    const withPolicy = guarded({ guard: DEAD_URL, failClosed: false, policy })
    await expect(withPolicy.provider.nativeTransfer(friend, '1')).rejects.toBeInstanceOf(
      GuardUnavailableError,
    )
    expect(await nonce()).toBe(before)

    const told: GuardError[] = []
    const open = guarded({
      guard: DEAD_URL,
      failClosed: false,
      onGuardUnavailable: (e) => told.push(e),
    })
    await open.provider.nativeTransfer(friend, '1')
    expect(await nonce()).toBe(before + 1)
    expect(told.map((e) => e.code)).toEqual(['guard_unreachable'])
  })

  it('refuses an answer from another environment than the one expected', async () => {
    const { provider } = guarded({ environment: 'mainnet' })
    const error = await provider.nativeTransfer(friend, '1').catch((e) => e)
    expect(error).toBeInstanceOf(GuardError)
    expect((error as GuardError).code).toBe('environment_mismatch')
  })
})

describe('networks', () => {
  it('takes Base and Base Sepolia wallets, and refuses any other network when wrapped', () => {
    expect(guarded().provider.guardNetwork.caip2).toBe('eip155:8453')
    expect(guarded({}, baseSepolia).provider.guardNetwork.caip2).toBe('eip155:84532')
    const error = (() => {
      try {
        return guarded({}, mainnet)
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(UnsupportedNetworkError)
    expect(String(error)).toContain('Base only (base-mainnet, base-sepolia)')
    expect(String(error)).toContain('ethereum-mainnet')
  })

  it('refuses a Base Sepolia wallet before asking a Base mainnet guard anything', async () => {
    const asked: string[] = []
    const client = createGuardClient({
      baseUrl: guard.baseUrl,
      fetch: (input, init) => {
        asked.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`)
        return fetch(input, init)
      },
    })
    const { provider } = guarded({ guard: client }, baseSepolia)
    const before = await nonce()
    const error = await provider.nativeTransfer(friend, '1').catch((e) => e)
    expect(error).toBeInstanceOf(GuardNetworkMismatchError)
    expect((error as GuardNetworkMismatchError).asked).toBe(false)
    expect(String(error)).toContain(
      'the guard serves eip155:8453 (chain 0x2105), the wallet is on eip155:84532; nothing was asked',
    )
    // Discovery only: no preflight, free or paid, was asked for.
    expect(asked).toEqual(['GET /.well-known/x402'])
    expect(await nonce()).toBe(before)
  })

  it('refuses an answer judged on another chain than the wallet expects', () => {
    const sepolia = GUARD_NETWORKS['base-sepolia']
    const error = (() => {
      try {
        expectAnsweredOn(sepolia, { chainId: '0x2105', network: 'eip155:8453' })
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(GuardNetworkMismatchError)
    expect((error as GuardNetworkMismatchError).asked).toBe(true)
    expect(String(error)).toContain('the guard judged this on eip155:8453 (chain 0x2105)')
    expect(() =>
      expectAnsweredOn(sepolia, { chainId: '0x14a34', network: 'eip155:84532' }),
    ).not.toThrow()
  })
})

describe('what cannot be judged', () => {
  it('refuses contract creation, a malformed call and a raw-hash signature; messages sign', async () => {
    const { provider } = guarded()
    await expect(provider.sendTransaction({ data: '0x6000' } as never)).rejects.toBeInstanceOf(
      TransactionNotCheckableError,
    )
    await expect(
      provider.sendTransaction({ to: friend, value: -1n } as never),
    ).rejects.toBeInstanceOf(TransactionNotCheckableError)
    await expect(
      provider.sendTransaction({ to: friend, data: '0x123' } as never),
    ).rejects.toBeInstanceOf(TransactionNotCheckableError)
    await expect(provider.sign(`0x${'11'.repeat(32)}`)).rejects.toBeInstanceOf(
      TransactionNotCheckableError,
    )
    const signature = await provider.signMessage('hello')
    expect(await verifyMessage({ address: agent.address, message: 'hello', signature })).toBe(true)
  })

  it("exposes EvmWalletProvider's interface only, under a marked name", () => {
    const { provider } = guarded()
    expect(provider.getName()).toBe('viem_wallet_provider+pre_send_guard')
    expect(provider.getAddress()).toBe(agent.address)
    expect(provider.getNetwork()).toEqual({
      protocolFamily: 'evm',
      chainId: '8453',
      networkId: 'base-mainnet',
    })
    expect('getClient' in provider).toBe(false)
    expect(analytics.events()).toContain('agent_initialization')
  })
})
