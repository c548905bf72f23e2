import {
  AgentKit,
  type EvmWalletProvider,
  erc20ActionProvider,
  walletActionProvider,
} from '@coinbase/agentkit'
import { getLangChainTools } from '@coinbase/agentkit-langchain'
import { getVercelAITools } from '@coinbase/agentkit-vercel-ai-sdk'
import { toJsonSchema } from '@langchain/core/utils/json_schema'
import { zodSchema } from 'ai'
import {
  type Address,
  type Chain,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  http,
  maxUint256,
  parseEther,
  parseUnits,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { base, baseSepolia, mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preSendGuardActionProvider } from '../../packages/agentkit/src/action-provider.js'
import { createViemWalletProvider } from '../../packages/agentkit/src/create-viem-wallet-provider.js'
import { withPreSendGuardWalletProvider } from '../../packages/agentkit/src/guarded-wallet-provider.js'
import { ANVIL_TEST_MNEMONIC } from '../../src/adapters/devnet/anvil.js'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import { createDevnetFaucet } from '../../src/adapters/devnet/faucet.js'
import { type AgentKitAnalytics, routeAgentKitAnalytics } from '../support/agentkit-analytics.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'
import { ethToUsdcSwap, permit2Single } from './devnet-calls.js'

/**
 * The action provider and the guarded wallet provider in a real AgentKit, reached the way an
 * agent's framework reaches them: through the real `@coinbase/agentkit-vercel-ai-sdk` and
 * `@coinbase/agentkit-langchain` tools, whose execute/invoke functions are called directly
 * (no model). A tool call reaches the guard over HTTP; a drain through AgentKit's own ERC-20
 * and wallet actions is refused and the model reads why.
 */
let guard: ServedGuard
let analytics: AgentKitAnalytics

beforeAll(async () => {
  analytics = await routeAgentKitAnalytics()
  guard = await startServedGuard()
  await createDevnetFaucet(guard.devnet.rpcUrl)({
    address: agent.address,
    ethWei: 0n,
    usdc: parseUnits('100', 6),
  })
}, 120_000)

afterAll(async () => {
  await guard?.stop()
  await analytics?.restore()
})

const agent = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 5 })
const friend = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 6 }).address
const stranger = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 9 }).address
const { usdc, universalRouter } = BASE_CONTRACTS
const ACTIONS = [
  'preflight_transaction',
  'preflight_bundle',
  'preflight_typed_data',
  'preflight_user_operation',
  'preflight_authorization',
  'public_page_evidence',
  'guard_status',
].map((name) => `PreSendGuardActionProvider_${name}`)

function viemProvider(chain: Chain = base) {
  return createViemWalletProvider(
    createWalletClient({ account: agent, chain, transport: http(guard.devnet.rpcUrl) }),
    { rpcUrl: guard.devnet.rpcUrl },
  )
}

async function agentKit(walletProvider: EvmWalletProvider) {
  return AgentKit.from({
    walletProvider,
    actionProviders: [
      preSendGuardActionProvider({ guard: guard.baseUrl }),
      walletActionProvider(),
      erc20ActionProvider(),
    ],
  })
}

function guardedAgentKit() {
  return agentKit(
    withPreSendGuardWalletProvider(viemProvider(), {
      guard: guard.baseUrl,
      policy: {
        recipients: [friend],
        limits: { eth: parseEther('1'), [usdc]: parseUnits('10', 6) },
      },
    }),
  )
}

const nonce = () => guard.rpc.getTransactionCount({ address: agent.address, blockTag: 'pending' })
const allowance = (spender: Address) =>
  guard.rpc.readContract({
    address: usdc,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [agent.address, spender],
  })

/** The guard's full answer, as the action appends it after the summary. */
function fullAnswer(text: string): Record<string, unknown> {
  const [, json] = text.split('\nFull answer (JSON):\n')
  expect(json).toBeDefined()
  return JSON.parse(json!) as Record<string, unknown>
}

describe('through the Vercel AI SDK extension', () => {
  it('lists the actions with schemas a model can read', async () => {
    const tools = getVercelAITools(await guardedAgentKit())
    expect(Object.keys(tools)).toEqual(expect.arrayContaining(ACTIONS))
    const schema = zodSchema(
      tools.PreSendGuardActionProvider_preflight_transaction!.parameters as never,
    ).jsonSchema as { properties: Record<string, { description?: string }>; required?: string[] }
    expect(Object.keys(schema.properties).sort()).toEqual(['data', 'from', 'to', 'value'])
    expect(schema.required).toEqual(['to'])
    expect(schema.properties.value?.description).toContain('in wei')
    expect(tools.PreSendGuardActionProvider_preflight_transaction!.description).toContain(
      'BEFORE sending or signing',
    )
  })

  it('a preflight call reaches the guard: the summary for the model, then the full answer', async () => {
    const tools = getVercelAITools(await guardedAgentKit())
    const preflight = tools.PreSendGuardActionProvider_preflight_transaction!
    const swap = (await preflight.execute!(
      {
        to: universalRouter,
        data: ethToUsdcSwap(parseEther('1'), parseUnits('2900', 6)),
        value: parseEther('1').toString(),
      },
      { toolCallId: '1', messages: [] },
    )) as string
    expect(swap).toMatch(/^Pre-Send Guard verdict: SIGN/)
    expect(swap).toContain('What moves for the sender: - 1 ETH, + 2,9')
    expect(fullAnswer(swap)).toMatchObject({
      verdict: 'sign',
      transaction: { from: agent.address, to: universalRouter, value: parseEther('1').toString() },
    })

    const drain = (await preflight.execute!(
      {
        to: usdc,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [stranger, maxUint256],
        }),
      },
      { toolCallId: '2', messages: [] },
    )) as string
    expect(drain).toMatch(/^Pre-Send Guard verdict: BLOCK: do not sign or send it\./)
    expect(drain).toContain(
      '- [critical] Approval to an address without contract code: approve lets',
    )
    expect(drain).toContain('(approval-to-eoa)')
  })

  it("refuses a drain through AgentKit's own ERC-20 and wallet actions, and says why", async () => {
    const tools = getVercelAITools(await guardedAgentKit())
    const before = await nonce()
    const approved = (await tools.ERC20ActionProvider_approve!.execute!(
      { amount: '1000000', tokenAddress: usdc, spenderAddress: stranger },
      { toolCallId: '3', messages: [] },
    )) as string
    expect(approved).toMatch(
      /^Error approving tokens: TransactionBlockedError: the guard blocked this transaction: approval-to-eoa/,
    )
    const sent = (await tools.WalletActionProvider_native_transfer!.execute!(
      { to: stranger, value: '5' },
      { toolCallId: '4', messages: [] },
    )) as string
    expect(sent).toContain('SpendPolicyError: the spend policy refuses this transaction')
    expect(sent).toContain('recipient_not_allowed')
    expect(sent).toContain('spend_limit_exceeded')
    expect(await nonce()).toBe(before)
    expect(await allowance(stranger)).toBe(0n)

    const paid = (await tools.WalletActionProvider_native_transfer!.execute!(
      { to: friend, value: '0.01' },
      { toolCallId: '5', messages: [] },
    )) as string
    expect(paid).toContain('Transferred 0.01 ETH')
    expect(await nonce()).toBe(before + 1)
  }, 60_000)
})

describe('through the LangChain extension', () => {
  it('screens typed data and refuses a token drain', async () => {
    const tools = await getLangChainTools(await guardedAgentKit())
    const byName = (name: string) => {
      const found = tools.find((t) => t.name === name)
      expect(found, name).toBeDefined()
      return found!
    }
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(ACTIONS))
    const typed = byName('PreSendGuardActionProvider_preflight_typed_data')
    const json = toJsonSchema(typed.schema as never) as { properties: Record<string, unknown> }
    expect(Object.keys(json.properties).sort()).toEqual(['signer', 'typedData'])

    const now = BigInt(Math.floor(Date.now() / 1000))
    const permit = permit2Single(stranger, 2n ** 160n - 1n, Number(now + 3600n), now + 1800n)
    const asText = JSON.stringify(permit, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
    const screened = (await typed.invoke({ typedData: asText })) as string
    expect(screened).toMatch(
      /^Pre-Send Guard verdict on signing this permit2-permit-single typed data \(PermitSingle\)/,
    )
    expect(screened).toContain('BLOCK')
    expect(screened).toContain(
      `Signing lets ${stranger} spend 1461501637330902918203684832716283019655932.542975 USDC (token ${usdc})`,
    )
    expect(fullAnswer(screened)).toMatchObject({ verdict: 'block', signer: agent.address })

    const before = await nonce()
    const drained = (await byName('ERC20ActionProvider_transfer').invoke({
      amount: '50',
      tokenAddress: usdc,
      destinationAddress: friend,
    })) as string
    // 50 USDC is over the agent's 10 USDC limit: the effects say so, whatever the calldata.
    expect(drained).toMatch(
      /^Error transferring the asset: SpendPolicyError: .*spend_limit_exceeded/,
    )
    expect(await nonce()).toBe(before)
    const paid = (await byName('ERC20ActionProvider_transfer').invoke({
      amount: '5',
      tokenAddress: usdc,
      destinationAddress: friend,
    })) as string
    expect(paid).toMatch(/^Transferred 5 of USD Coin/)
    expect(await nonce()).toBe(before + 1)
  }, 60_000)
})

describe('the other actions', () => {
  it('answer bundles, authorizations and status, and hand refusals back as text', async () => {
    const kit = await guardedAgentKit()
    const actions = new Map(kit.getActions().map((a) => [a.name, a]))
    const run = (name: string, args: unknown) =>
      actions.get(`PreSendGuardActionProvider_${name}`)!.invoke(args as never)

    const bundle = await run('preflight_bundle', {
      transactions: [
        {
          to: usdc,
          data: encodeFunctionData({
            abi: erc20Abi,
            functionName: 'approve',
            args: [universalRouter, 1n],
          }),
        },
        { to: friend, value: '1000' },
      ],
    })
    expect(bundle).toMatch(/^Pre-Send Guard verdict for the 2 transactions in order: /)
    expect(fullAnswer(bundle)).toMatchObject({ transactions: [{}, {}] })

    // Simple7702Account v0.8, deployed on the devnet at its canonical address.
    const authorization = await run('preflight_authorization', {
      authorization: {
        address: '0xe6Cae83BdE06E4c305530e199D7217f42808555B',
        chainId: '0x2105',
        nonce: `0x${(await nonce()).toString(16)}`,
      },
    })
    expect(authorization).toMatch(
      new RegExp(
        `^Pre-Send Guard verdict on delegating ${agent.address} to 0xe6Cae83BdE06E4c305530e199D7217f42808555B`,
      ),
    )
    expect(fullAnswer(authorization)).toMatchObject({ authorization: { authority: agent.address } })

    const userOperation = await run('preflight_user_operation', {
      entryPoint: stranger,
      userOperation: { sender: agent.address, nonce: '0x0', callData: '0x' },
    })
    expect(userOperation).toMatch(
      /^Pre-Send Guard refused or failed \(unsupported_entry_point\): .* is not a canonical EntryPoint/,
    )

    const page = await run('public_page_evidence', { url: 'http://127.0.0.1/' })
    expect(page).toMatch(/^Pre-Send Guard refused or failed \(unsafe_url\)/)

    const status = await run('guard_status', {})
    expect(status).toContain('(devnet) judges eip155:8453')
    expect(status).toContain(`This agent's wallet is ${agent.address} on base-mainnet`)

    expect(await run('preflight_transaction', { to: 'nobody' })).toMatch(
      /^Invalid input for preflight_transaction: to: must be a 0x-prefixed 20-byte hex address/,
    )
  }, 60_000)

  it('are left out on other networks, and refuse a guard serving another chain before asking it', async () => {
    const onEthereum = await agentKit(viemProvider(mainnet))
    expect(onEthereum.getActions().map((a) => a.name)).not.toContain(ACTIONS[0])
    const onSepolia = await agentKit(viemProvider(baseSepolia))
    const preflight = onSepolia.getActions().find((a) => a.name === ACTIONS[0])!
    expect(await preflight.invoke({ to: friend })).toMatch(
      /^Pre-Send Guard: GuardNetworkMismatchError: the guard serves eip155:8453 \(chain 0x2105\), the wallet is on eip155:84532; nothing was asked/,
    )
  })
})
