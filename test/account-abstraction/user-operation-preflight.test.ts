import type { UserOperationResult } from '@pre-send-guard/client/schemas'
import {
  type Abi,
  type Address,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  maxUint256,
  numberToHex,
  parseAbi,
  parseEther,
} from 'viem'
import {
  entryPoint06Abi,
  entryPoint07Abi,
  entryPoint08Abi,
  getUserOperationHash,
  toPackedUserOperation,
  type UserOperation,
} from 'viem/account-abstraction'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import factory06 from '../../contracts/protocols/account-abstraction/v0.6/SimpleAccountFactory.json' with {
  type: 'json',
}
import factory07 from '../../contracts/protocols/account-abstraction/v0.7/SimpleAccountFactory.json' with {
  type: 'json',
}
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import {
  ENTRY_POINTS,
  type EntryPointVersion,
  SIMPLE_7702_ACCOUNT,
} from '../../src/domain/account-abstraction/entry-points.js'
import {
  coinbaseSignature,
  coinbaseSmartAccount,
  deployCoinbaseSmartWallet,
} from '../support/coinbase-smart-wallet.js'
import { clients, deploy, testAccount } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

// The contract: the routes' published paths, spelled out.
const BASE_USER_OPERATION_PREFLIGHT_PATH = '/payanagent/v1/base-user-operation-preflight'

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
let counting: Awaited<ReturnType<typeof startCountingRpc>>
let token: Address
let vault: Address
const factories: Partial<Record<EntryPointVersion, Address>> = {}
const FRIEND = privateKeyToAccount(generatePrivateKey()).address
const STRANGER = privateKeyToAccount(generatePrivateKey()).address

const factoryAbi = parseAbi([
  'function createAccount(address owner, uint256 salt) returns (address)',
  'function getAddress(address owner, uint256 salt) view returns (address)',
])
const accountAbi = parseAbi([
  'function execute(address dest, uint256 value, bytes func)',
  'function executeBatch(address[] dest, uint256[] value, bytes[] func)',
  'function executeBatch((address target, uint256 value, bytes data)[] calls)',
])
const erc20 = parseAbi([
  'function approve(address spender, uint256 value) returns (bool)',
  'function mint(address to, uint256 amount)',
  'function balanceOf(address) view returns (uint256)',
])
const vaultAbi = parseAbi(['function deposit(uint256 assets, address receiver) returns (uint256)'])

beforeAll(async () => {
  devnet = await startDevnet()
  counting = await startCountingRpc(devnet.rpcUrl, { holdMs: 40 })
  app = preflightApp(counting.url)
  token = (await deploy(devnet.rpcUrl, 'TestERC20', ['Token', 'TKN'])).address
  vault = (await deploy(devnet.rpcUrl, 'TestVault', [token])).address
  const { publicClient, walletClient } = clients(devnet.rpcUrl)
  for (const [version, artifact] of [
    ['0.6', factory06],
    ['0.7', factory07],
  ] as const) {
    const hash = await walletClient.sendTransaction({
      data: encodeDeployData({
        abi: artifact.abi as Abi,
        bytecode: artifact.bytecode as Hex,
        args: [ENTRY_POINTS[version]],
      }),
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    factories[version] = receipt.contractAddress as Address
  }
}, 120_000)

afterAll(async () => {
  await counting?.close()
  await devnet?.stop()
})

/** A SimpleAccount (v0.6 or v0.7) owned by a fresh key, funded but not deployed. */
async function simpleAccount(version: '0.6' | '0.7', funded = parseEther('1')) {
  const owner = privateKeyToAccount(generatePrivateKey())
  const { publicClient, walletClient } = clients(devnet.rpcUrl)
  const factory = factories[version] as Address
  const sender = await publicClient.readContract({
    address: factory,
    abi: factoryAbi,
    functionName: 'getAddress',
    args: [owner.address, 0n],
  })
  const hash = await walletClient.sendTransaction({ to: sender, value: funded })
  await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  const initCode = encodeFunctionData({
    abi: factoryAbi,
    functionName: 'createAccount',
    args: [owner.address, 0n],
  })
  return { owner, sender, factory, initCode }
}

const GAS = {
  callGasLimit: 500_000n,
  verificationGasLimit: 800_000n,
  preVerificationGas: 60_000n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000n,
}

/** The operation in viem's shape, signed by `signer` as the reference accounts expect. */
async function signedOperation(
  version: EntryPointVersion,
  op: Record<string, unknown>,
  signer: PrivateKeyAccount | undefined,
) {
  const userOperation = { ...GAS, signature: '0x', ...op } as unknown as UserOperation
  if (signer === undefined) return userOperation
  const hash = getUserOperationHash({
    chainId: 8453,
    entryPointAddress: ENTRY_POINTS[version],
    entryPointVersion: version,
    userOperation: userOperation as UserOperation<typeof version>,
  })
  const signature =
    version === '0.8'
      ? await signer.sign({ hash })
      : await signer.signMessage({ message: { raw: hash } })
  return { ...userOperation, signature } as UserOperation
}

/** viem's user operation as `eth_sendUserOperation` takes it (hex quantities, eip7702Auth). */
function rpcForm(op: UserOperation): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(op)) {
    if (v === undefined) continue
    if (k === 'authorization') {
      const a = v as {
        address: Address
        chainId: number
        nonce: number
        yParity: number
        r: Hex
        s: Hex
      }
      out.eip7702Auth = {
        address: a.address,
        chainId: numberToHex(a.chainId),
        nonce: numberToHex(a.nonce),
        yParity: numberToHex(a.yParity),
        r: a.r,
        s: a.s,
      }
    } else out[k] = typeof v === 'bigint' ? numberToHex(v) : v
  }
  return out
}

async function judge(version: EntryPointVersion, op: UserOperation): Promise<UserOperationResult> {
  const response = await postJson(app, BASE_USER_OPERATION_PREFLIGHT_PATH, {
    entryPoint: ENTRY_POINTS[version],
    userOperation: rpcForm(op),
  })
  expect(response.status, await response.clone().text()).toBe(200)
  return (await response.json()) as UserOperationResult
}

/** Runs the operation for real: a bundler's handleOps from a test account. */
async function handleOps(version: EntryPointVersion, op: UserOperation, authorization?: unknown) {
  const { publicClient, walletClient } = clients(devnet.rpcUrl, testAccount(8))
  const beneficiary = testAccount(8).address
  const hash =
    version === '0.6'
      ? await walletClient.writeContract({
          address: ENTRY_POINTS['0.6'],
          abi: entryPoint06Abi,
          functionName: 'handleOps',
          args: [[op as never], beneficiary],
        })
      : await walletClient.writeContract({
          address: ENTRY_POINTS[version],
          abi: version === '0.7' ? entryPoint07Abi : entryPoint08Abi,
          functionName: 'handleOps',
          args: [[toPackedUserOperation(op)], beneficiary],
          ...(authorization !== undefined ? { authorizationList: [authorization as never] } : {}),
        })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  expect(receipt.status).toBe('success')
  return receipt
}

const ids = (r: UserOperationResult) => r.findings.map((f) => f.id)
const pay = (to: Address, value: bigint) =>
  encodeFunctionData({ abi: accountAbi, functionName: 'execute', args: [to, value, '0x'] })

describe('POST /payanagent/v1/base-user-operation-preflight: EntryPoint v0.7', () => {
  it('signs paying a friend from a not-yet-deployed SimpleAccount, in one RPC wave; handleOps then does exactly that', async () => {
    const { owner, sender, factory, initCode } = await simpleAccount('0.7')
    const op = await signedOperation(
      '0.7',
      {
        sender,
        nonce: 0n,
        factory,
        factoryData: initCode,
        callData: pay(FRIEND, parseEther('0.1')),
      },
      owner,
    )
    await judge('0.7', op) // the first request of an app reads `latest` first
    counting.reset()
    const r = await judge('0.7', op)
    expect(counting.waves).toBe(1)
    expect(r.verdict, JSON.stringify(r.findings)).toBe('sign')
    expect(r.userOperation).toMatchObject({
      sender,
      deploysAccount: true,
      entryPointVersion: '0.7',
    })
    expect(r.validation).toMatchObject({ simulated: true, signature: 'valid', failure: null })
    expect(r.execution.success).toBe(true)
    expect(r.prefund.checked).toBe(true)
    expect(BigInt(r.prefund.paid ?? '0')).toBeGreaterThan(0n)
    expect(r.decoded).toMatchObject({ known: true, name: 'execute' })
    expect(r.effects.available && r.effects.senderNet.summary).toContain('ETH')

    const { publicClient } = clients(devnet.rpcUrl)
    const before = await publicClient.getBalance({ address: FRIEND })
    await handleOps('0.7', op)
    expect((await publicClient.getBalance({ address: FRIEND })) - before).toBe(parseEther('0.1'))
  })

  it('blocks an operation signed by a key that is not the owner', async () => {
    const { sender, factory, initCode } = await simpleAccount('0.7')
    const intruder = privateKeyToAccount(generatePrivateKey())
    const op = await signedOperation(
      '0.7',
      { sender, nonce: 0n, factory, factoryData: initCode, callData: pay(FRIEND, 1n) },
      intruder,
    )
    const r = await judge('0.7', op)
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('userop-signature-invalid')
    expect(r.validation.signature).toBe('invalid')
  })

  it('blocks an unlimited approval to a key-controlled address, unsigned (a stub stands in)', async () => {
    const { sender, factory, initCode } = await simpleAccount('0.7')
    const callData = encodeFunctionData({
      abi: accountAbi,
      functionName: 'execute',
      args: [
        token,
        0n,
        encodeFunctionData({ abi: erc20, functionName: 'approve', args: [STRANGER, maxUint256] }),
      ],
    })
    const r = await judge(
      '0.7',
      await signedOperation(
        '0.7',
        { sender, nonce: 0n, factory, factoryData: initCode, callData },
        undefined,
      ),
    )
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('approval-to-eoa')
    expect(ids(r)).toContain('userop-signature-not-checked')
    expect(r.validation.signature).toBe('not-checked')
  })

  it('signs a batch approve then vault deposit to the account itself; not to a stranger', async () => {
    const { owner, sender, factory, initCode } = await simpleAccount('0.7')
    const { walletClient, publicClient } = clients(devnet.rpcUrl)
    const minted = await walletClient.writeContract({
      address: token,
      abi: erc20,
      functionName: 'mint',
      args: [sender, parseEther('100')],
    })
    await publicClient.waitForTransactionReceipt({ hash: minted, pollingInterval: 50 })
    const batch = (receiver: Address) =>
      encodeFunctionData({
        abi: accountAbi,
        functionName: 'executeBatch',
        args: [
          [token, vault],
          [],
          [
            encodeFunctionData({
              abi: erc20,
              functionName: 'approve',
              args: [vault, parseEther('10')],
            }),
            encodeFunctionData({
              abi: vaultAbi,
              functionName: 'deposit',
              args: [parseEther('10'), receiver],
            }),
          ],
        ],
      })
    const ownOp = await signedOperation(
      '0.7',
      { sender, nonce: 0n, factory, factoryData: initCode, callData: batch(sender) },
      owner,
    )
    const own = await judge('0.7', ownOp)
    expect(own.verdict, JSON.stringify(own.findings)).toBe('sign')
    const stranger = await judge(
      '0.7',
      await signedOperation(
        '0.7',
        { sender, nonce: 0n, factory, factoryData: initCode, callData: batch(STRANGER) },
        owner,
      ),
    )
    expect(stranger.verdict, JSON.stringify(stranger.findings)).not.toBe('sign')
    // The benign batch, run for real: the account ends up holding the vault shares.
    await handleOps('0.7', ownOp)
    const shares = await publicClient.readContract({
      address: vault,
      abi: erc20,
      functionName: 'balanceOf',
      args: [sender],
    })
    expect(shares).toBe(parseEther('10'))
  })

  it('reports a failed inner call as a revert the screen blocks', async () => {
    const { owner, sender, factory, initCode } = await simpleAccount('0.7', parseEther('0.01'))
    const op = await signedOperation(
      '0.7',
      { sender, nonce: 0n, factory, factoryData: initCode, callData: pay(FRIEND, parseEther('5')) },
      owner,
    )
    const r = await judge('0.7', op)
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('call-reverts')
    expect(r.execution.success).toBe(false)
  })
})

describe('POST /payanagent/v1/base-user-operation-preflight: EntryPoint v0.6 (execution only)', () => {
  it('judges v0.6 execution the same way: paying a friend signs, an approval to a key blocks', async () => {
    const { owner, sender, factory, initCode } = await simpleAccount('0.6')
    const v06 = (callData: Hex) =>
      signedOperation(
        '0.6',
        {
          sender,
          nonce: 0n,
          initCode: `${factory}${initCode.slice(2)}`,
          callData,
          paymasterAndData: '0x',
        },
        owner,
      )
    const paying = await v06(pay(FRIEND, parseEther('0.1')))
    const r = await judge('0.6', paying)
    expect(r.verdict, JSON.stringify(r.findings)).toBe('sign')
    expect(ids(r)).toEqual(['userop-execution-only'])
    expect(r.validation).toMatchObject({ simulated: false, signature: 'not-simulated' })
    expect(r.userOperation.deploysAccount).toBe(true)
    await handleOps('0.6', paying)

    const approving = await judge(
      '0.6',
      await v06(
        encodeFunctionData({
          abi: accountAbi,
          functionName: 'execute',
          args: [
            token,
            0n,
            encodeFunctionData({
              abi: erc20,
              functionName: 'approve',
              args: [STRANGER, maxUint256],
            }),
          ],
        }),
      ),
    )
    expect(approving.verdict).toBe('block')
    expect(ids(approving)).toContain('approval-to-eoa')
  })
})

describe('POST /payanagent/v1/base-user-operation-preflight: Coinbase Smart Wallet v1 (EntryPoint v0.6)', () => {
  // The wallet and its factory (contracts of our own implementing v1's interface) placed at
  // their Base addresses (0x0BA5ED0c…, the factory viem's toCoinbaseSmartAccount version '1' uses).
  beforeAll(() => deployCoinbaseSmartWallet(devnet.rpcUrl), 60_000)

  it('signs paying a friend from a wallet its factory creates, blocks an unlimited approval to a key; handleOps pays', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const { sender, initCode } = await coinbaseSmartAccount(devnet.rpcUrl, owner.address)
    const { publicClient, walletClient } = clients(devnet.rpcUrl)
    const funded = await walletClient.sendTransaction({ to: sender, value: parseEther('1') })
    await publicClient.waitForTransactionReceipt({ hash: funded, pollingInterval: 50 })
    const operation = async (callData: Hex) => {
      const op = {
        ...GAS,
        sender,
        nonce: 0n,
        initCode,
        callData,
        paymasterAndData: '0x',
        signature: '0x',
      } as UserOperation<'0.6'>
      const hash = getUserOperationHash({
        chainId: 8453,
        entryPointAddress: ENTRY_POINTS['0.6'],
        entryPointVersion: '0.6',
        userOperation: op,
      })
      return { ...op, signature: await coinbaseSignature(owner, hash) } as UserOperation
    }

    const paying = await operation(pay(FRIEND, parseEther('0.1')))
    const r = await judge('0.6', paying)
    expect(r.verdict, JSON.stringify(r.findings)).toBe('sign')
    expect(ids(r)).toEqual(['userop-execution-only'])
    expect(r.userOperation).toMatchObject({
      sender,
      deploysAccount: true,
      entryPointVersion: '0.6',
    })
    expect(r.execution.success).toBe(true)

    const approving = await judge(
      '0.6',
      await operation(
        encodeFunctionData({
          abi: accountAbi,
          functionName: 'execute',
          args: [
            token,
            0n,
            encodeFunctionData({
              abi: erc20,
              functionName: 'approve',
              args: [STRANGER, maxUint256],
            }),
          ],
        }),
      ),
    )
    expect(approving.verdict).toBe('block')
    expect(ids(approving)).toContain('approval-to-eoa')

    // The benign one, run for real: the EntryPoint creates the wallet, validates the owner's
    // signature and the wallet pays the friend.
    const before = await publicClient.getBalance({ address: FRIEND })
    await handleOps('0.6', paying)
    expect((await publicClient.getBalance({ address: FRIEND })) - before).toBe(parseEther('0.1'))
    expect(await publicClient.getCode({ address: sender })).toBeTruthy()
  })
})

describe('POST /payanagent/v1/base-user-operation-preflight: EntryPoint v0.8 with EIP-7702', () => {
  it('signs a Simple7702Account operation carrying its eip7702Auth; handleOps with the authorization does it', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const { walletClient, publicClient } = clients(devnet.rpcUrl)
    const funded = await walletClient.sendTransaction({ to: owner.address, value: parseEther('1') })
    await publicClient.waitForTransactionReceipt({ hash: funded, pollingInterval: 50 })
    const authorization = await owner.signAuthorization({
      address: SIMPLE_7702_ACCOUNT,
      chainId: 8453,
      nonce: 0,
    })
    const callData = encodeFunctionData({
      abi: accountAbi,
      functionName: 'executeBatch',
      args: [[{ target: FRIEND, value: parseEther('0.05'), data: '0x' }]],
    })
    const op = await signedOperation(
      '0.8',
      {
        sender: owner.address,
        nonce: 0n,
        factory: '0x7702',
        factoryData: '0x',
        callData,
        authorization,
      },
      owner,
    )
    const r = await judge('0.8', op)
    expect(r.verdict, JSON.stringify(r.findings)).toBe('sign')
    expect(r.userOperation.eip7702Delegate).toBe(SIMPLE_7702_ACCOUNT)
    expect(r.validation.signature).toBe('valid')
    const before = await publicClient.getBalance({ address: FRIEND })
    await handleOps('0.8', op, authorization)
    expect((await publicClient.getBalance({ address: FRIEND })) - before).toBe(parseEther('0.05'))
  })

  it('blocks an eip7702Auth whose nonce the chain would skip', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const authorization = await owner.signAuthorization({
      address: SIMPLE_7702_ACCOUNT,
      chainId: 8453,
      nonce: 3,
    })
    const op = await signedOperation(
      '0.8',
      {
        sender: owner.address,
        nonce: 0n,
        factory: '0x7702',
        factoryData: '0x',
        callData: pay(FRIEND, 0n),
        authorization,
      },
      owner,
    )
    const r = await judge('0.8', op)
    expect(r.verdict).toBe('block')
    expect(r.findings.find((f) => f.id === 'userop-eip7702-auth-invalid')?.detail).toMatch(
      /nonce is 3 but the sender's is 0/,
    )
  })

  it('blocks an eip7702Auth signed by another key than the sender', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const other = privateKeyToAccount(generatePrivateKey())
    const authorization = await other.signAuthorization({
      address: SIMPLE_7702_ACCOUNT,
      chainId: 8453,
      nonce: 0,
    })
    const op = await signedOperation(
      '0.8',
      {
        sender: owner.address,
        nonce: 0n,
        factory: '0x7702',
        factoryData: '0x',
        callData: pay(FRIEND, 0n),
        authorization,
      },
      owner,
    )
    const r = await judge('0.8', op)
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('userop-eip7702-auth-invalid')
  })
})

describe('the validity window, at the block a bundler can include the operation in', () => {
  /** A funded TimeBoxedAccount (v0.7): it approves any operation within [validAfter, validUntil]. */
  async function timeBoxed(validAfter: bigint, validUntil: bigint) {
    const { address } = await deploy(devnet.rpcUrl, 'TimeBoxedAccount', [
      ENTRY_POINTS['0.7'],
      validAfter,
      validUntil,
    ])
    const { publicClient } = clients(devnet.rpcUrl)
    // Funded without a transaction: the deployment's block stays the head.
    await publicClient.request({
      method: 'anvil_setBalance',
      params: [address, numberToHex(parseEther('1'))],
    } as never)
    return address
  }
  // Any signature: the account checks none (and none is stubbed in for a given one).
  const operation = (sender: Address) =>
    signedOperation(
      '0.7',
      { sender, nonce: 0n, callData: pay(FRIEND, 1n), signature: '0x01' },
      undefined,
    )
  const mineAt = async (timestamp: bigint) => {
    const { publicClient } = clients(devnet.rpcUrl)
    await publicClient.request({
      method: 'evm_setNextBlockTimestamp',
      params: [numberToHex(timestamp)],
    } as never)
  }

  it('blocks an operation open at the pinned block whose window ends before the next', async () => {
    const { publicClient } = clients(devnet.rpcUrl)
    const t = (await publicClient.getBlock()).timestamp + 10n
    const open = await timeBoxed(0n, t + 600n)
    const later = await timeBoxed(t + 600n, 0n)
    // Mined at t and valid through t + 1: open at the pinned block, closed 2 s on.
    await mineAt(t)
    const expiring = await timeBoxed(0n, t + 1n)

    const r = await judge('0.7', await operation(expiring))
    expect(r.block.timestamp).toBe(t.toString())
    expect(r.verdict).toBe('block')
    expect(r.findings.find((f) => f.id === 'userop-expired')?.detail).toBe(
      `Valid until ${t + 1n}, before the next block's timestamp ${t + 2n}.`,
    )
    const stillOpen = await judge('0.7', await operation(open))
    expect(ids(stillOpen)).not.toContain('userop-expired')
    expect(ids(stillOpen)).not.toContain('userop-not-yet-valid')
    expect(stillOpen.verdict).toBe('sign')
    const notYet = await judge('0.7', await operation(later))
    expect(ids(notYet)).toContain('userop-not-yet-valid')

    // What was judged holds in the next block, at t + 2: the EntryPoint refuses the expiring
    // operation (AA22), and runs the open one.
    await mineAt(t + 2n)
    await publicClient.request({ method: 'evm_mine' } as never)
    await expect(
      publicClient.simulateContract({
        account: testAccount(8),
        address: ENTRY_POINTS['0.7'],
        abi: entryPoint07Abi,
        functionName: 'handleOps',
        args: [[toPackedUserOperation(await operation(expiring))], testAccount(8).address],
      }),
    ).rejects.toThrow(/AA22 expired or not due/)
    const before = await publicClient.getBalance({ address: FRIEND })
    await handleOps('0.7', await operation(open))
    expect((await publicClient.getBalance({ address: FRIEND })) - before).toBe(1n)
  })
})

describe('POST /payanagent/v1/base-user-operation-preflight: invalid input', () => {
  it('answers 422 unsupported_entry_point for an EntryPoint that is not canonical', async () => {
    const response = await postJson(app, BASE_USER_OPERATION_PREFLIGHT_PATH, {
      entryPoint: STRANGER,
      userOperation: { sender: FRIEND, nonce: '0x0', callData: '0x' },
    })
    expect(response.status).toBe(422)
    expect(((await response.json()) as { error: string }).error).toBe('unsupported_entry_point')
  })

  it('answers 422 invalid_request for v0.6 fields on a v0.7 operation', async () => {
    const response = await postJson(app, BASE_USER_OPERATION_PREFLIGHT_PATH, {
      entryPoint: ENTRY_POINTS['0.7'],
      userOperation: { sender: FRIEND, nonce: '0x0', callData: '0x', initCode: '0x' },
    })
    expect(response.status).toBe(422)
    const body = (await response.json()) as { error: string; issues: { path: string }[] }
    expect(body.error).toBe('invalid_request')
    expect(body.issues[0]?.path).toBe('userOperation.initCode')
  })
})
