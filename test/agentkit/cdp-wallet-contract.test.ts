import { EvmWalletProvider, type Network } from '@coinbase/agentkit'
import {
  GuardUnavailableError,
  SignatureBlockedError,
  TransactionBlockedError,
} from '@pre-send-guard/client/viem'
import {
  type Address,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  parseAbi,
  parseEther,
  parseUnits,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UnsupportedNetworkError } from '../../packages/agentkit/src/guard-network.js'
import { withPreSendGuardWalletProvider } from '../../packages/agentkit/src/guarded-wallet-provider.js'
import type { WalletCheck } from '../../packages/agentkit/src/wallet-check.js'
import { ANVIL_TEST_MNEMONIC } from '../../src/adapters/devnet/anvil.js'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import { type AgentKitAnalytics, routeAgentKitAnalytics } from '../support/agentkit-analytics.js'
import {
  COINBASE_SMART_WALLET,
  coinbaseSmartAccount,
  deployCoinbaseSmartWallet,
} from '../support/coinbase-smart-wallet.js'
import { DEAD_URL, type ServedGuard, startServedGuard } from '../support/served-guard.js'
import { permit2Single } from './devnet-calls.js'

/**
 * The wrapper's contract with the wallet providers that need CDP keys (`CdpEvmWalletProvider`,
 * a server wallet; `CdpSmartWalletProvider`, whose `sendTransaction` becomes a user operation
 * built by CDP): a recording fake of AgentKit's `EvmWalletProvider` interface stands in for
 * each, shaped like the real one (its name, network, address, and the `getClient()` a CDP
 * provider adds). Its sends are carried out on the devnet as the account itself (impersonated:
 * what the server wallet, or the EntryPoint calling the smart account, would make happen), so
 * what the guard judged can be compared with what ran. The guard is the real one over HTTP.
 */
let guard: ServedGuard
let analytics: AgentKitAnalytics
let smartAccount: Address

const owner = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 5 })
const serverAccount = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 6 })
const friend = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 8 }).address
const stranger = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 9 }).address
const { usdc, universalRouter } = BASE_CONTRACTS

beforeAll(async () => {
  analytics = await routeAgentKitAnalytics()
  guard = await startServedGuard()
  await deployCoinbaseSmartWallet(guard.devnet.rpcUrl)
  const { sender } = await coinbaseSmartAccount(guard.devnet.rpcUrl, owner.address)
  const wallet = createWalletClient({
    account: owner,
    chain: base,
    transport: http(guard.devnet.rpcUrl),
  })
  const created = await wallet.writeContract({
    address: COINBASE_SMART_WALLET.factory,
    abi: parseAbi([
      'function createAccount(bytes[] owners, uint256 nonce) payable returns (address)',
    ]),
    functionName: 'createAccount',
    args: [[`0x${owner.address.slice(2).padStart(64, '0')}`], 0n],
    value: parseEther('5'),
  })
  await guard.rpc.waitForTransactionReceipt({ hash: created })
  smartAccount = sender
}, 120_000)

afterAll(async () => {
  await guard?.stop()
  await analytics?.restore()
})

/** A call the fake was asked to make, as it received it. */
type Recorded =
  | { method: 'sendTransaction'; transaction: Record<string, unknown> }
  | { method: 'nativeTransfer'; to: string; value: string }
  | { method: 'signTypedData'; typedData: unknown }
  | { method: 'getClient' }

/** A recording fake of a CDP wallet provider (AgentKit's `EvmWalletProvider` interface). */
class RecordingCdpProvider extends EvmWalletProvider {
  readonly calls: Recorded[] = []
  constructor(
    private readonly kind: 'cdp_evm_wallet_provider' | 'cdp_smart_wallet_provider',
    private readonly address: Address,
    private readonly network: Network,
  ) {
    super()
  }
  getName() {
    return this.kind
  }
  getAddress() {
    return this.address
  }
  getNetwork() {
    return this.network
  }
  /** The CDP client a CDP provider adds: a way around any wrapper. */
  getClient() {
    this.calls.push({ method: 'getClient' })
    return {}
  }
  async sendTransaction(transaction: Parameters<EvmWalletProvider['sendTransaction']>[0]) {
    this.calls.push({ method: 'sendTransaction', transaction: { ...transaction } })
    return this.execute(transaction.to!, transaction.data ?? '0x', transaction.value ?? 0n)
  }
  async nativeTransfer(to: string, value: string) {
    this.calls.push({ method: 'nativeTransfer', to, value })
    return this.execute(to as Address, '0x', BigInt(value))
  }
  async signTypedData(typedData: unknown) {
    this.calls.push({ method: 'signTypedData', typedData })
    return owner.signTypedData(typedData as never)
  }
  async sign(): Promise<Hex> {
    throw new Error('not used')
  }
  async signMessage(): Promise<Hex> {
    throw new Error('not used')
  }
  async signTransaction(): Promise<Hex> {
    throw new Error('not used')
  }
  async getBalance() {
    return guard.rpc.getBalance({ address: this.address })
  }
  getPublicClient(): ReturnType<EvmWalletProvider['getPublicClient']> {
    // cast: AgentKit types the client with its own copy of viem.
    return guard.rpc as never
  }
  async waitForTransactionReceipt(hash: Hex) {
    return guard.rpc.waitForTransactionReceipt({ hash })
  }
  async readContract(params: never): Promise<never> {
    // cast: as above; the wrapper hands reads on untouched.
    return (await guard.rpc.readContract(params)) as never
  }
  /** The account itself makes the call on the devnet, as CDP would have it made. */
  private async execute(to: Address, data: Hex, value: bigint): Promise<Hex> {
    const test = createTestClient({ mode: 'anvil', transport: http(guard.devnet.rpcUrl) })
    await test.impersonateAccount({ address: this.address })
    const hash = await createWalletClient({
      chain: base,
      transport: http(guard.devnet.rpcUrl),
    }).sendTransaction({ account: this.address, to, data, value })
    await guard.rpc.waitForTransactionReceipt({ hash })
    await test.stopImpersonatingAccount({ address: this.address })
    return hash
  }
}

const BASE: Network = { protocolFamily: 'evm', networkId: 'base-mainnet', chainId: '8453' }

describe.each([
  [
    'CdpEvmWalletProvider (a server wallet)',
    'cdp_evm_wallet_provider',
    () => serverAccount.address,
  ],
  ['CdpSmartWalletProvider (a smart account)', 'cdp_smart_wallet_provider', () => smartAccount],
] as const)('the wrapper around a recording %s', (_, kind, address) => {
  function wrapped(guardUrl = guard.baseUrl) {
    const inner = new RecordingCdpProvider(kind, address(), BASE)
    const checks: WalletCheck[] = []
    const provider = withPreSendGuardWalletProvider(inner, {
      guard: guardUrl,
      onCheck: (check) => checks.push(check),
    })
    return { inner, provider, checks }
  }

  it('judges the call as the account makes it, then hands on exactly that call', async () => {
    const { inner, provider, checks } = wrapped()
    const friendBefore = await guard.rpc.getBalance({ address: friend })
    const hash = await provider.sendTransaction({
      to: friend,
      value: parseEther('0.5'),
      gas: 1n,
      nonce: 7,
    } as never)
    expect(checks.map((c) => c.kind === 'transaction' && c.check.transaction)).toEqual([
      { from: address(), to: friend, data: '0x', value: '0x6f05b59d3b20000' },
    ])
    // Only to, data and value reach the provider: nothing it was not judged on.
    expect(inner.calls).toEqual([
      {
        method: 'sendTransaction',
        transaction: { to: friend, data: '0x', value: parseEther('0.5') },
      },
    ])
    const sent = await guard.rpc.getTransaction({ hash })
    expect(sent.from.toLowerCase()).toBe(address().toLowerCase())
    expect((await guard.rpc.getBalance({ address: friend })) - friendBefore).toBe(parseEther('0.5'))

    await provider.nativeTransfer(friend, '1000')
    expect(inner.calls.at(-1)).toEqual({ method: 'nativeTransfer', to: friend, value: '1000' })
    expect(checks).toHaveLength(2)
  })

  it('never hands a drain or a dangerous permit to the provider', async () => {
    const { inner, provider } = wrapped()
    await expect(
      provider.sendTransaction({
        to: usdc,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [stranger, maxUint256],
        }),
      }),
    ).rejects.toBeInstanceOf(TransactionBlockedError)
    const now = BigInt(Math.floor(Date.now() / 1000))
    await expect(
      provider.signTypedData(
        permit2Single(stranger, 2n ** 160n - 1n, Number(now + 3600n), now + 60n),
      ),
    ).rejects.toBeInstanceOf(SignatureBlockedError)
    expect(inner.calls).toEqual([])
  })

  it('signs the very typed data it judged, a copy the caller cannot change afterwards', async () => {
    const { inner, provider, checks } = wrapped()
    const now = BigInt(Math.floor(Date.now() / 1000))
    const permit = permit2Single(
      universalRouter,
      parseUnits('5', 6),
      Number(now + 3600n),
      now + 600n,
    )
    const signature = await provider.signTypedData(permit)
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/)
    expect(checks.map((c) => [c.kind, c.check.verdict])).toEqual([['typed-data', 'sign']])
    const [call] = inner.calls
    expect(call).toEqual({ method: 'signTypedData', typedData: permit })
    expect((call as { typedData: unknown }).typedData).not.toBe(permit)
  })

  it('refuses without reaching the provider when the guard is down, and offers no way around', async () => {
    const { inner, provider } = wrapped(DEAD_URL)
    await expect(provider.nativeTransfer(friend, '1')).rejects.toBeInstanceOf(GuardUnavailableError)
    expect('getClient' in provider).toBe(false)
    expect('exportWallet' in provider).toBe(false)
    expect(provider.getName()).toBe(`${kind}+pre_send_guard`)
    expect(provider.getAddress()).toBe(address())
    expect(inner.calls).toEqual([])
  })
})

describe('a CDP wallet on a network the guard does not judge', () => {
  it('is refused when wrapped, before anything is asked of it', () => {
    const inner = new RecordingCdpProvider('cdp_evm_wallet_provider', serverAccount.address, {
      protocolFamily: 'evm',
      networkId: 'ethereum-mainnet',
      chainId: '1',
    })
    expect(() => withPreSendGuardWalletProvider(inner, { guard: guard.baseUrl })).toThrow(
      UnsupportedNetworkError,
    )
    // A provider that names one Base network and the other's chain id is confused: refused too.
    const confused = new RecordingCdpProvider('cdp_evm_wallet_provider', serverAccount.address, {
      protocolFamily: 'evm',
      networkId: 'base-mainnet',
      chainId: '84532',
    })
    expect(() => withPreSendGuardWalletProvider(confused, { guard: guard.baseUrl })).toThrow(
      UnsupportedNetworkError,
    )
    expect(inner.calls).toEqual([])
  })
})
