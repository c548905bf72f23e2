import {
  type Abi,
  type Address,
  concat,
  createPublicClient,
  createTestClient,
  custom,
  decodeFunctionData,
  encodeFunctionData,
  type Hex,
  http,
  maxUint256,
  parseAbi,
  parseEther,
} from 'viem'
import {
  createBundlerClient,
  entryPoint06Abi,
  entryPoint07Abi,
  getUserOperationHash,
  type SmartAccount,
  toCoinbaseSmartAccount,
  toSimple7702SmartAccount,
  toSmartAccount,
} from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import factory06 from '../../contracts/protocols/account-abstraction/v0.6/SimpleAccountFactory.json' with {
  type: 'json',
}
import factory07 from '../../contracts/protocols/account-abstraction/v0.7/SimpleAccountFactory.json' with {
  type: 'json',
}
import {
  type UserOperationCheck,
  withPreSendGuardBundler,
} from '../../packages/client/src/viem/bundler-guard.js'
import {
  TransactionNotCheckableError,
  UserOperationBlockedError,
  UserOperationNeedsReviewError,
} from '../../packages/client/src/viem/pre-send-guard-errors.js'
import {
  ENTRY_POINTS,
  SIMPLE_7702_ACCOUNT,
} from '../../src/domain/account-abstraction/entry-points.js'
import { deployCoinbaseSmartWallet } from '../support/coinbase-smart-wallet.js'
import { clients, deploy } from '../support/contracts.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * ERC-4337 through `withPreSendGuardBundler`: viem's real smart accounts and bundler client on a
 * real devnet (canonical EntryPoints v0.6/v0.7/v0.8, Simple7702Account), the real guard over
 * real HTTP judging each operation on its user-operation route. The "bundler" is a recording
 * viem transport: it answers gas estimation with fixed gas, records every
 * `eth_sendUserOperation` and forwards everything else to the devnet, so "nothing reached the
 * bundler" is read off the recording.
 */
let guard: ServedGuard
let token: Address
let vault: Address
const factories: { '0.6'?: Address; '0.7'?: Address } = {}
const FRIEND = privateKeyToAccount(generatePrivateKey()).address
const STRANGER = privateKeyToAccount(generatePrivateKey()).address
const erc20 = parseAbi(['function approve(address spender, uint256 value) returns (bool)'])
const FAKE_HASH = `0x${'ab'.repeat(32)}` as Hex

beforeAll(async () => {
  guard = await startServedGuard()
  token = (await deploy(guard.devnet.rpcUrl, 'TestERC20', ['Token', 'TKN'])).address
  vault = (await deploy(guard.devnet.rpcUrl, 'TestVault', [token])).address
  const { publicClient, walletClient } = clients(guard.devnet.rpcUrl)
  for (const [version, artifact] of [
    ['0.6', factory06],
    ['0.7', factory07],
  ] as const) {
    const hash = await walletClient.deployContract({
      abi: artifact.abi as Abi,
      bytecode: artifact.bytecode as Hex,
      args: [ENTRY_POINTS[version]],
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    factories[version] = receipt.contractAddress as Address
  }
}, 120_000)

afterAll(async () => {
  await guard?.stop()
})

function publicClient() {
  return createPublicClient({ chain: base, transport: http(guard.devnet.rpcUrl), cacheTime: 0 })
}

/** The stand-in bundler: fixed gas, chain id 8453, sends recorded (never run), rest forwarded. */
function recordingBundler() {
  const sent: { userOperation: Record<string, unknown>; entryPoint: Address }[] = []
  const chain = publicClient()
  const transport = custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      const args = (params ?? []) as unknown[]
      if (method === 'eth_chainId') return '0x2105'
      if (method === 'eth_estimateUserOperationGas') {
        return {
          callGasLimit: '0x7a120',
          verificationGasLimit: '0xc3500',
          preVerificationGas: '0xea60',
        }
      }
      if (method === 'eth_sendUserOperation') {
        sent.push({
          userOperation: args[0] as Record<string, unknown>,
          entryPoint: args[1] as Address,
        })
        return FAKE_HASH
      }
      return chain.request({ method, params } as never)
    },
  })
  return { sent, transport }
}

function guarded(
  account: SmartAccount,
  transport: ReturnType<typeof custom>,
  options: Omit<Parameters<typeof withPreSendGuardBundler>[1], 'guard'> = {},
) {
  const bundler = createBundlerClient({
    account,
    chain: base,
    client: publicClient(),
    transport,
  })
  return withPreSendGuardBundler(bundler, { guard: guard.baseUrl, ...options })
}

const testClient = () => createTestClient({ mode: 'anvil', transport: http(guard.devnet.rpcUrl) })

/** A fresh owner with 1 ETH, already delegated to Simple7702Account (anvil setCode) or not. */
async function simple7702Owner(delegated: boolean) {
  const owner = privateKeyToAccount(generatePrivateKey())
  await testClient().setBalance({ address: owner.address, value: parseEther('1') })
  if (delegated) {
    await testClient().setCode({
      address: owner.address,
      bytecode: concat(['0xef0100', SIMPLE_7702_ACCOUNT]),
    })
  }
  const account = await toSimple7702SmartAccount({ client: publicClient(), owner })
  return { owner, account }
}

const simpleAccountAbi = parseAbi([
  'function execute(address dest, uint256 value, bytes func)',
  'function executeBatch(address[] dest, uint256[] value, bytes[] func)',
])
const factoryAbi = parseAbi([
  'function createAccount(address owner, uint256 salt) returns (address)',
  'function getAddress(address owner, uint256 salt) view returns (address)',
])

/**
 * eth-infinitism's SimpleAccount (v0.6 or v0.7) as a viem smart account: made by the reference
 * factory on first use, signing the operation hash as an EIP-191 message, as the account checks.
 */
async function simpleAccount(version: '0.6' | '0.7'): Promise<SmartAccount> {
  const owner = privateKeyToAccount(generatePrivateKey())
  const client = publicClient()
  const factory = factories[version] as Address
  const sender = await client.readContract({
    address: factory,
    abi: factoryAbi,
    functionName: 'getAddress',
    args: [owner.address, 0n],
  })
  await testClient().setBalance({ address: sender, value: parseEther('1') })
  const entryPoint =
    version === '0.6'
      ? ({ abi: entryPoint06Abi, address: ENTRY_POINTS['0.6'], version: '0.6' } as const)
      : ({ abi: entryPoint07Abi, address: ENTRY_POINTS['0.7'], version: '0.7' } as const)
  return toSmartAccount({
    client,
    entryPoint,
    async getAddress() {
      return sender
    },
    async getFactoryArgs() {
      return {
        factory,
        factoryData: encodeFunctionData({
          abi: factoryAbi,
          functionName: 'createAccount',
          args: [owner.address, 0n],
        }),
      }
    },
    async encodeCalls(calls) {
      const [call] = calls
      if (calls.length === 1 && call) {
        return encodeFunctionData({
          abi: simpleAccountAbi,
          functionName: 'execute',
          args: [call.to, call.value ?? 0n, call.data ?? '0x'],
        })
      }
      return encodeFunctionData({
        abi: simpleAccountAbi,
        functionName: 'executeBatch',
        args: [
          calls.map((c) => c.to),
          calls.map((c) => c.value ?? 0n),
          calls.map((c) => c.data ?? '0x'),
        ],
      })
    },
    async decodeCalls(data) {
      const { functionName, args } = decodeFunctionData({ abi: simpleAccountAbi, data })
      if (functionName === 'execute') return [{ to: args[0], value: args[1], data: args[2] }]
      return args[0].map((to, i) => ({ to, value: args[1][i] ?? 0n, data: args[2][i] ?? '0x' }))
    },
    async getStubSignature() {
      return '0xfffffffffffffffffffffffffffffff0000000000000000000000000000000007aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1c'
    },
    async signMessage({ message }) {
      return owner.signMessage({ message })
    },
    async signTypedData(parameters) {
      return owner.signTypedData(parameters as never)
    },
    async signUserOperation(parameters) {
      const { chainId = 8453, ...userOperation } = parameters
      const hash = getUserOperationHash({
        chainId,
        entryPointAddress: entryPoint.address,
        entryPointVersion: version,
        userOperation: { ...userOperation, sender } as never,
      })
      return owner.signMessage({ message: { raw: hash } })
    },
  }) as Promise<SmartAccount>
}

/** The operation the guard judged is the one the bundler got (up to yParity's spelling). */
function expectJudgedAsSent(
  check: UserOperationCheck | undefined,
  sent: { userOperation: Record<string, unknown>; entryPoint: Address },
) {
  const { eip7702Auth, ...rest } = sent.userOperation as { eip7702Auth?: { yParity: Hex } }
  expect(check?.entryPoint).toBe(sent.entryPoint)
  expect(check?.userOperation).toMatchObject(rest)
  if (eip7702Auth) {
    expect(check?.userOperation.eip7702Auth).toMatchObject({
      ...eip7702Auth,
      yParity: BigInt(eip7702Auth.yParity) === 1n ? '0x1' : '0x0',
    })
  }
}

describe('withPreSendGuardBundler: Simple7702Account (EntryPoint v0.8)', () => {
  it('sends paying a friend from an owner already delegated, judged exactly as sent', async () => {
    const { account } = await simple7702Owner(true)
    const { sent, transport } = recordingBundler()
    const checks: UserOperationCheck[] = []
    const bundler = guarded(account, transport, { onUserOperationCheck: (c) => checks.push(c) })

    const hash = await bundler.sendUserOperation({
      calls: [{ to: FRIEND, value: parseEther('0.01') }],
    })

    expect(hash).toBe(FAKE_HASH)
    expect(sent).toHaveLength(1)
    expect(sent[0]?.entryPoint).toBe(ENTRY_POINTS['0.8'])
    expect(checks).toHaveLength(1)
    const [check] = checks
    expect(check?.verdict, JSON.stringify(check?.findings)).toBe('sign')
    expect(check?.result.validation).toMatchObject({ simulated: true, signature: 'valid' })
    expect(check?.result.execution.success).toBe(true)
    expect(check?.result.userOperation).toMatchObject({
      sender: account.address,
      entryPointVersion: '0.8',
      // Delegated already: the operation carries no authorization.
      eip7702Delegate: null,
    })
    expectJudgedAsSent(check, sent[0]!)
    expect(bundler.preSendGuard.lastCheck()).toBe(check)
  })

  it('sends an operation carrying its signed EIP-7702 authorization (eip7702Auth)', async () => {
    const { owner, account } = await simple7702Owner(false)
    const { sent, transport } = recordingBundler()
    const checks: UserOperationCheck[] = []
    const bundler = guarded(account, transport, { onUserOperationCheck: (c) => checks.push(c) })
    const authorization = await owner.signAuthorization({
      address: SIMPLE_7702_ACCOUNT,
      chainId: 8453,
      nonce: 0,
    })

    await bundler.sendUserOperation({
      calls: [{ to: FRIEND, value: parseEther('0.01') }],
      authorization,
    })

    expect(sent).toHaveLength(1)
    expect(sent[0]?.userOperation).toMatchObject({ factory: '0x7702' })
    expect(sent[0]?.userOperation.eip7702Auth).toMatchObject({ address: SIMPLE_7702_ACCOUNT })
    expect(checks[0]?.verdict, JSON.stringify(checks[0]?.findings)).toBe('sign')
    expect(checks[0]?.result.validation.signature).toBe('valid')
    expect(checks[0]?.result.userOperation.eip7702Delegate).toBe(SIMPLE_7702_ACCOUNT)
    expectJudgedAsSent(checks[0], sent[0]!)
  })

  it('refuses an unlimited approval to a fresh key (block): it never reaches the bundler', async () => {
    const { account } = await simple7702Owner(true)
    const { sent, transport } = recordingBundler()
    const bundler = guarded(account, transport)

    const error = await bundler
      .sendUserOperation({
        calls: [{ to: token, abi: erc20, functionName: 'approve', args: [STRANGER, maxUint256] }],
      })
      .catch((e: unknown) => e)

    expect(error).toBeInstanceOf(UserOperationBlockedError)
    const { check } = error as UserOperationBlockedError
    expect(check.verdict).toBe('block')
    expect(check.findings.map((f) => f.id)).toContain('approval-to-eoa')
    expect(check.result.validation.signature).toBe('valid')
    expect(sent).toHaveLength(0)
  })

  it('raises on review unless onUserOperationReview approves (exactly true)', async () => {
    const { account } = await simple7702Owner(true)
    const calls = [
      { to: token, abi: erc20, functionName: 'approve', args: [vault, maxUint256] },
    ] as const
    const refusing = recordingBundler()
    const error = await guarded(account, refusing.transport)
      .sendUserOperation({ calls })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UserOperationNeedsReviewError)
    const { check } = error as UserOperationNeedsReviewError
    expect(check.verdict).toBe('review')
    expect(refusing.sent).toHaveLength(0)

    const approving = recordingBundler()
    const reviewed: UserOperationCheck[] = []
    await guarded(account, approving.transport, {
      onUserOperationReview: (c) => {
        reviewed.push(c)
        return true
      },
    }).sendUserOperation({ calls })
    expect(reviewed).toHaveLength(1)
    expect(approving.sent).toHaveLength(1)
  })

  it('judges a prepared operation passed on to sendUserOperation, and checks without sending', async () => {
    const { account } = await simple7702Owner(true)
    const { sent, transport } = recordingBundler()
    const bundler = guarded(account, transport)
    const calls = [
      { to: token, abi: erc20, functionName: 'approve', args: [STRANGER, maxUint256] },
    ] as const

    const check = await bundler.preSendGuard.checkUserOperation({ calls } as never)
    expect(check.verdict).toBe('block')
    expect(check.result.validation.signature).toBe('valid')
    expect(sent).toHaveLength(0)

    const prepared = await bundler.prepareUserOperation({ calls })
    // viem's types for a generic SmartAccount cannot tell which EntryPoint's fields it has.
    const signature = await account.signUserOperation(prepared as never)
    const error = await bundler
      .sendUserOperation({ ...prepared, signature } as never)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UserOperationBlockedError)
    expect(sent).toHaveLength(0)
  })

  it('refuses a vendor send method and a raw transaction through the guarded bundler', async () => {
    const { account } = await simple7702Owner(true)
    const { transport } = recordingBundler()
    const bundler = guarded(account, transport)
    for (const method of ['pimlico_sendUserOperationNow', 'eth_sendRawTransaction']) {
      const error = await bundler.request({ method, params: [] } as never).catch((e: unknown) => e)
      expect(error, method).toBeInstanceOf(TransactionNotCheckableError)
    }
  })
})

describe('withPreSendGuardBundler: SimpleAccount (EntryPoint v0.7 and v0.6)', () => {
  for (const version of ['0.7', '0.6'] as const) {
    it(`v${version}: deploys through the factory and pays a friend; an approval to a key is refused`, async () => {
      const account = await simpleAccount(version)
      const { sent, transport } = recordingBundler()
      const checks: UserOperationCheck[] = []
      const bundler = guarded(account, transport, { onUserOperationCheck: (c) => checks.push(c) })

      await bundler.sendUserOperation({ calls: [{ to: FRIEND, value: parseEther('0.01') }] })

      expect(sent).toHaveLength(1)
      expect(sent[0]?.entryPoint).toBe(ENTRY_POINTS[version])
      expect(checks[0]?.verdict, JSON.stringify(checks[0]?.findings)).toBe('sign')
      expect(checks[0]?.result.userOperation).toMatchObject({
        entryPointVersion: version,
        deploysAccount: true,
      })
      expect(checks[0]?.result.validation.signature).toBe(
        version === '0.6' ? 'not-simulated' : 'valid',
      )
      expectJudgedAsSent(checks[0], sent[0]!)

      const error = await bundler
        .sendUserOperation({
          calls: [{ to: token, abi: erc20, functionName: 'approve', args: [STRANGER, maxUint256] }],
        })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UserOperationBlockedError)
      expect(sent).toHaveLength(1)
    })
  }
})

describe('withPreSendGuardBundler: Coinbase Smart Wallet (EntryPoint v0.6)', () => {
  // Coinbase Smart Wallet v1 (contracts of our own implementing its interface) placed at its
  // Base addresses: viem's toCoinbaseSmartAccount hard-codes the factory (0x0BA5ED0c… for
  // version '1'), reads the account's address from it and deploys through it.
  beforeAll(() => deployCoinbaseSmartWallet(guard.devnet.rpcUrl), 60_000)

  it('is judged like any v0.6 account: paying a friend is sent, an unlimited approval to a key is not', async () => {
    const account = await toCoinbaseSmartAccount({
      client: publicClient(),
      owners: [privateKeyToAccount(generatePrivateKey())],
      version: '1',
    })
    expect(account.entryPoint.version).toBe('0.6')
    await testClient().setBalance({ address: account.address, value: parseEther('1') })
    const checks: UserOperationCheck[] = []
    const { sent, transport } = recordingBundler()
    const bundler = guarded(account, transport, { onUserOperationCheck: (c) => checks.push(c) })
    await bundler.sendUserOperation({ calls: [{ to: FRIEND, value: parseEther('0.01') }] })
    expect(sent).toHaveLength(1)
    expect(sent[0]?.entryPoint).toBe(ENTRY_POINTS['0.6'])
    expect(checks[0]?.verdict, JSON.stringify(checks[0]?.findings)).toBe('sign')
    expect(checks[0]?.result.userOperation).toMatchObject({
      sender: account.address,
      entryPointVersion: '0.6',
      deploysAccount: true,
    })
    expectJudgedAsSent(checks[0], sent[0]!)

    const error = await bundler
      .sendUserOperation({
        calls: [{ to: token, abi: erc20, functionName: 'approve', args: [STRANGER, maxUint256] }],
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UserOperationBlockedError)
    expect(sent).toHaveLength(1)
  })
})
