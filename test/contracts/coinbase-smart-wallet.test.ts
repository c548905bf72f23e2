import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createTestClient,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  hashTypedData,
  http,
  keccak256,
  pad,
  parseAbi,
  parseEther,
} from 'viem'
import {
  entryPoint06Abi,
  getUserOperationHash,
  toCoinbaseSmartAccount,
  type UserOperation,
} from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { ENTRY_POINTS } from '../../src/domain/account-abstraction/entry-points.js'
import {
  COINBASE_SMART_WALLET,
  coinbaseSignature,
  deployCoinbaseSmartWallet,
} from '../support/coinbase-smart-wallet.js'
import { clients, testAccount } from '../support/contracts.js'

// Our stand-in for Coinbase Smart Wallet v1 (contracts/test/CoinbaseSmartWallet.sol) held to
// the wallet's published behaviour as viem's `toCoinbaseSmartAccount({ version: '1' })` drives
// it, and to the EntryPoint v0.6 that runs it: what the tests built on it take for granted.

let devnet: Devnet
const { abi, factoryAbi, factory, implementation } = COINBASE_SMART_WALLET
const ENTRY_POINT = ENTRY_POINTS['0.6']
const ERC1271_VALID = '0x1626ba7e'
const ERC1271_INVALID = '0xffffffff'

beforeAll(async () => {
  devnet = await startDevnet()
  await deployCoinbaseSmartWallet(devnet.rpcUrl)
})
afterAll(async () => {
  await devnet?.stop()
})

const publicClient = () => clients(devnet.rpcUrl).publicClient
const read = <T>(address: Address, functionName: string, args: readonly unknown[] = []) =>
  publicClient().readContract({ address, abi, functionName, args } as never) as Promise<T>
/** An address owner as the account keeps it: one abi-encoded word (bytes come back lower-case). */
const word = (owner: Address): Hex => pad(owner.toLowerCase() as Hex)

/** Creates the account of `owners` and `nonce` through the factory, from a funded test account. */
async function create(owners: Hex[], nonce = 0n, value = 0n): Promise<Address> {
  const { publicClient, walletClient } = clients(devnet.rpcUrl, testAccount(7))
  const hash = await walletClient.writeContract({
    address: factory,
    abi: factoryAbi,
    functionName: 'createAccount',
    args: [owners, nonce],
    value,
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  expect(receipt.status).toBe('success')
  return publicClient.readContract({
    address: factory,
    abi: factoryAbi,
    functionName: 'getAddress',
    args: [owners, nonce],
  }) as Promise<Address>
}

/** The custom error a simulated call reverts with (its name and arguments). */
async function revertOf(
  from: Address,
  address: Address,
  functionName: string,
  args: readonly unknown[],
) {
  try {
    await publicClient().simulateContract({
      account: from,
      address,
      abi: [...abi, ...factoryAbi],
      functionName,
      args,
    } as never)
  } catch (error) {
    const reverted =
      error instanceof BaseError
        ? error.walk((e) => e instanceof ContractFunctionRevertedError)
        : null
    if (reverted instanceof ContractFunctionRevertedError) {
      return { errorName: reverted.data?.errorName, args: reverted.data?.args }
    }
    throw error
  }
  throw new Error(`${functionName} did not revert`)
}

describe('the factory', () => {
  it('creates the account viem expects, as a proxy of the implementation, once', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toCoinbaseSmartAccount({
      client: publicClient(),
      owners: [owner],
      version: '1',
    })
    expect(await publicClient().getCode({ address: account.address })).toBeUndefined()
    const created = await create([word(owner.address)], 0n, parseEther('0.5'))
    expect(created).toBe(account.address)
    expect(await read(created, 'implementation')).toBe(implementation)
    expect(await read(created, 'ownerAtIndex', [0n])).toBe(word(owner.address))
    expect(await read(created, 'isOwnerAddress', [owner.address])).toBe(true)
    expect(await read(created, 'entryPoint')).toBe(ENTRY_POINT)
    expect(await publicClient().getBalance({ address: created })).toBe(parseEther('0.5'))

    // Again: the same account, unchanged but for the ETH forwarded to it.
    expect(await create([word(owner.address)], 0n, parseEther('0.25'))).toBe(created)
    expect(await read(created, 'nextOwnerIndex')).toBe(1n)
    expect(await publicClient().getBalance({ address: created })).toBe(parseEther('0.75'))
    // Another nonce, another account.
    expect(await create([word(owner.address)], 1n)).not.toBe(created)
  })

  it('refuses an account without owners, and a second initialisation', async () => {
    const from = testAccount(7).address
    expect(await revertOf(from, factory, 'createAccount', [[], 0n])).toMatchObject({
      errorName: 'OwnerRequired',
    })
    const owner = privateKeyToAccount(generatePrivateKey()).address
    const account = await create([word(owner)])
    expect(await revertOf(from, account, 'initialize', [[word(from)]])).toMatchObject({
      errorName: 'Initialized',
    })
    // The implementation is never an account of its own.
    expect(await revertOf(from, implementation, 'initialize', [[word(from)]])).toMatchObject({
      errorName: 'Initialized',
    })
    // An owner is 32 bytes (an address) or 64 (a P-256 public key).
    expect(
      await revertOf(from, factory, 'createAccount', [[`0x${'11'.repeat(20)}`], 0n]),
    ).toMatchObject({ errorName: 'InvalidOwnerBytesLength' })
    expect(
      await revertOf(from, factory, 'createAccount', [[`0x${'ff'.repeat(32)}`], 0n]),
    ).toMatchObject({ errorName: 'InvalidEthereumAddressOwner' })
  })
})

describe('ERC-1271', () => {
  it("approves what viem's account signs, over the replay-safe hash of this account only", async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toCoinbaseSmartAccount({
      client: publicClient(),
      owners: [owner],
      version: '1',
    })
    await create([word(owner.address)])
    const twin = await toCoinbaseSmartAccount({
      client: publicClient(),
      owners: [owner],
      nonce: 1n,
      version: '1',
    })
    await create([word(owner.address)], 1n)

    const hash = keccak256('0x1234')
    expect(await read(account.address, 'replaySafeHash', [hash])).toBe(
      hashTypedData({
        domain: {
          name: 'Coinbase Smart Wallet',
          version: '1',
          chainId: 8453,
          verifyingContract: account.address,
        },
        types: { CoinbaseSmartWalletMessage: [{ name: 'hash', type: 'bytes32' }] },
        primaryType: 'CoinbaseSmartWalletMessage',
        message: { hash },
      }),
    )
    expect(await read(account.address, 'eip712Domain')).toEqual([
      '0x0f',
      'Coinbase Smart Wallet',
      '1',
      8453n,
      account.address,
      pad('0x'),
      [],
    ])

    const signature = await account.sign({ hash })
    expect(await read(account.address, 'isValidSignature', [hash, signature])).toBe(ERC1271_VALID)
    expect(await read(account.address, 'isValidSignature', [keccak256('0x12'), signature])).toBe(
      ERC1271_INVALID,
    )
    // The same owner's signature for its other account is no signature of this one.
    expect(await read(account.address, 'isValidSignature', [hash, await twin.sign({ hash })])).toBe(
      ERC1271_INVALID,
    )
    // Nor is the owner's signature of the bare hash, nor a stranger's of the replay-safe one.
    expect(
      await read(account.address, 'isValidSignature', [hash, await coinbaseSignature(owner, hash)]),
    ).toBe(ERC1271_INVALID)
    const stranger = await toCoinbaseSmartAccount({
      client: publicClient(),
      owners: [privateKeyToAccount(generatePrivateKey())],
      address: account.address,
      version: '1',
    })
    expect(
      await read(account.address, 'isValidSignature', [hash, await stranger.sign({ hash })]),
    ).toBe(ERC1271_INVALID)
    // viem's own check (ERC-1271 through its universal validator) agrees.
    expect(
      await publicClient().verifyMessage({
        address: account.address,
        message: 'hello',
        signature: await account.signMessage({ message: 'hello' }),
      }),
    ).toBe(true)
  })

  it('never approves a passkey (WebAuthn) owner: this stand-in does not verify P-256', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const passkey: Hex = `0x${'a1'.repeat(32)}${'b2'.repeat(32)}`
    const account = await create([passkey, word(owner.address)])
    expect(
      await read(account, 'isOwnerPublicKey', [`0x${'a1'.repeat(32)}`, `0x${'b2'.repeat(32)}`]),
    ).toBe(true)
    const hash = keccak256('0xabcd')
    const safe = await read<Hex>(account, 'replaySafeHash', [hash])
    // The EOA at index 1 signs for the account; whatever names index 0 is refused.
    expect(
      await read(account, 'isValidSignature', [hash, await coinbaseSignature(owner, safe, 1n)]),
    ).toBe(ERC1271_VALID)
    expect(
      await read(account, 'isValidSignature', [hash, await coinbaseSignature(owner, safe, 0n)]),
    ).toBe(ERC1271_INVALID)
  })
})

describe('calls', () => {
  it("runs an owner's calls and refuses anyone else's; a failed call reverts with its own reason", async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const test = createTestClient({ mode: 'anvil', transport: http(devnet.rpcUrl) })
    await test.setBalance({ address: owner.address, value: parseEther('1') })
    const account = await create([word(owner.address)], 0n, parseEther('1'))
    const friend = privateKeyToAccount(generatePrivateKey()).address
    const stranger = testAccount(7).address

    expect(
      await revertOf(stranger, account, 'execute', [friend, parseEther('0.1'), '0x']),
    ).toMatchObject({ errorName: 'Unauthorized' })
    expect(await revertOf(stranger, account, 'addOwnerAddress', [stranger])).toMatchObject({
      errorName: 'Unauthorized',
    })

    const { publicClient, walletClient } = clients(devnet.rpcUrl, owner)
    const hash = await walletClient.writeContract({
      address: account,
      abi,
      functionName: 'executeBatch',
      args: [
        [
          { target: friend, value: parseEther('0.1'), data: '0x' },
          {
            target: account,
            value: 0n,
            data: encodeFunctionData({ abi, functionName: 'addOwnerAddress', args: [stranger] }),
          },
        ],
      ],
    })
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(await publicClient.getBalance({ address: friend })).toBe(parseEther('0.1'))
    expect(await read(account, 'isOwnerAddress', [stranger])).toBe(true)
    expect(await read(account, 'ownerCount')).toBe(2n)

    // The inner call's own error comes out of execute: the account removing an owner it
    // does not have at that index.
    expect(
      await revertOf(owner.address, account, 'execute', [
        account,
        0n,
        encodeFunctionData({
          abi,
          functionName: 'removeOwnerAtIndex',
          args: [1n, word(owner.address)],
        }),
      ]),
    ).toEqual({
      errorName: 'WrongOwnerAtIndex',
      args: [1n, word(owner.address), word(stranger)],
    })
  })

  it('answers the ERC-721 and ERC-1155 receiver hooks', async () => {
    const account = await create([word(privateKeyToAccount(generatePrivateKey()).address)])
    const hooks = parseAbi([
      'function onERC721Received(address, address, uint256, bytes) returns (bytes4)',
      'function onERC1155Received(address, address, uint256, uint256, bytes) returns (bytes4)',
    ])
    const zero = pad('0x', { size: 20 })
    expect(
      await publicClient().readContract({
        address: account,
        abi: hooks,
        functionName: 'onERC721Received',
        args: [zero, zero, 1n, '0x'],
      }),
    ).toBe('0x150b7a02')
    expect(
      await publicClient().readContract({
        address: account,
        abi: hooks,
        functionName: 'onERC1155Received',
        args: [zero, zero, 1n, 1n, '0x'],
      }),
    ).toBe('0xf23a6e61')
  })
})

describe('ERC-4337 v0.6', () => {
  /** Runs `op` through the EntryPoint's handleOps; returns the receipt. */
  async function handleOps(op: UserOperation<'0.6'>) {
    const { publicClient, walletClient } = clients(devnet.rpcUrl, testAccount(8))
    const hash = await walletClient.writeContract({
      address: ENTRY_POINT,
      abi: entryPoint06Abi,
      functionName: 'handleOps',
      args: [[op as never], testAccount(8).address],
    })
    return publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  }

  const GAS = {
    callGasLimit: 300_000n,
    verificationGasLimit: 800_000n,
    preVerificationGas: 60_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    paymasterAndData: '0x',
  } as const

  it('creates the account and runs what viem signed, paying its prefund; refuses another signer', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toCoinbaseSmartAccount({
      client: publicClient(),
      owners: [owner],
      version: '1',
    })
    const test = createTestClient({ mode: 'anvil', transport: http(devnet.rpcUrl) })
    await test.setBalance({ address: account.address, value: parseEther('1') })
    const friend = privateKeyToAccount(generatePrivateKey()).address
    const { factory: f, factoryData } = await account.getFactoryArgs()
    const unsigned = {
      ...GAS,
      sender: account.address,
      nonce: 0n,
      initCode: `${f}${factoryData?.slice(2)}` as Hex,
      callData: await account.encodeCalls([{ to: friend, value: parseEther('0.1') }]),
      signature: '0x',
    } satisfies UserOperation<'0.6'>

    // A stranger's signature: the EntryPoint refuses the whole (AA24 signature error).
    const stranger = await toCoinbaseSmartAccount({
      client: publicClient(),
      owners: [privateKeyToAccount(generatePrivateKey())],
      address: account.address,
      version: '1',
    })
    await expect(
      handleOps({ ...unsigned, signature: await stranger.signUserOperation(unsigned) }),
    ).rejects.toThrow(/AA24 signature error/)

    const receipt = await handleOps({
      ...unsigned,
      signature: await account.signUserOperation(unsigned),
    })
    expect(receipt.status).toBe('success')
    expect(await publicClient().getBalance({ address: friend })).toBe(parseEther('0.1'))
    // The account paid the EntryPoint exactly what it was missing: the operation's most gas
    // at its most fee (it had no deposit). What the gas did not cost stays deposited there.
    const prefund =
      (GAS.callGasLimit + GAS.verificationGasLimit + GAS.preVerificationGas) * GAS.maxFeePerGas
    expect(await publicClient().getBalance({ address: account.address })).toBe(
      parseEther('0.9') - prefund,
    )
    const deposit = await publicClient().readContract({
      address: ENTRY_POINT,
      abi: entryPoint06Abi,
      functionName: 'balanceOf',
      args: [account.address],
    })
    expect(deposit).toBeGreaterThan(0n)
    expect(deposit).toBeLessThan(prefund)
  })

  it('runs owner changes meant for every chain under their own nonce key, and nothing else there', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await create([word(owner.address)], 0n, parseEther('1'))
    const added = privateKeyToAccount(generatePrivateKey()).address
    const key = (await read<bigint>(account, 'REPLAYABLE_NONCE_KEY')) << 64n
    expect(key >> 64n).toBe(8453n)
    const op = {
      ...GAS,
      sender: account,
      nonce: key,
      initCode: '0x',
      callData: encodeFunctionData({
        abi,
        functionName: 'executeWithoutChainIdValidation',
        args: [[encodeFunctionData({ abi, functionName: 'addOwnerAddress', args: [added] })]],
      }),
      signature: '0x',
    } satisfies UserOperation<'0.6'>
    // The EntryPoint's hash of the operation is keccak(pack(op), entryPoint, chainId); the one
    // without the chain id leaves the last out.
    const packed = keccak256(
      encodeAbiParameters(
        [
          { type: 'address' },
          { type: 'uint256' },
          { type: 'bytes32' },
          { type: 'bytes32' },
          { type: 'uint256' },
          { type: 'uint256' },
          { type: 'uint256' },
          { type: 'uint256' },
          { type: 'uint256' },
          { type: 'bytes32' },
        ],
        [
          op.sender,
          op.nonce,
          keccak256(op.initCode),
          keccak256(op.callData),
          op.callGasLimit,
          op.verificationGasLimit,
          op.preVerificationGas,
          op.maxFeePerGas,
          op.maxPriorityFeePerGas,
          keccak256(op.paymasterAndData),
        ],
      ),
    )
    expect(
      keccak256(
        encodeAbiParameters(
          [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }],
          [packed, ENTRY_POINT, 8453n],
        ),
      ),
    ).toBe(
      getUserOperationHash({
        chainId: 8453,
        entryPointAddress: ENTRY_POINT,
        entryPointVersion: '0.6',
        userOperation: op,
      }),
    )
    const withoutChainId = keccak256(
      encodeAbiParameters([{ type: 'bytes32' }, { type: 'address' }], [packed, ENTRY_POINT]),
    )
    expect(await read(account, 'getUserOpHashWithoutChainId', [op])).toBe(withoutChainId)

    const receipt = await handleOps({
      ...op,
      signature: await coinbaseSignature(owner, withoutChainId),
    })
    expect(receipt.status).toBe('success')
    expect(await read(account, 'isOwnerAddress', [added])).toBe(true)

    // Only the EntryPoint validates; the replayable key is for that one function only, and
    // it runs owner changes and upgrades only.
    const stranger = testAccount(7).address
    const hash = keccak256('0x01')
    expect(await revertOf(stranger, account, 'validateUserOp', [op, hash, 0n])).toMatchObject({
      errorName: 'Unauthorized',
    })
    const paying = {
      ...op,
      callData: encodeFunctionData({
        abi,
        functionName: 'execute',
        args: [stranger, 1n, '0x'],
      }),
    }
    expect(await revertOf(ENTRY_POINT, account, 'validateUserOp', [paying, hash, 0n])).toEqual({
      errorName: 'InvalidNonceKey',
      args: [8453n],
    })
    const payingCall = encodeFunctionData({
      abi,
      functionName: 'execute',
      args: [stranger, 1n, '0x'],
    })
    expect(
      await revertOf(ENTRY_POINT, account, 'executeWithoutChainIdValidation', [[payingCall]]),
    ).toEqual({ errorName: 'SelectorNotAllowed', args: [payingCall.slice(0, 10)] })
    // With the chain id, the owner's signature validates (0) and a stranger's does not (1).
    const sameChain = { ...paying, nonce: 0n }
    const userOpHash = getUserOperationHash({
      chainId: 8453,
      entryPointAddress: ENTRY_POINT,
      entryPointVersion: '0.6',
      userOperation: sameChain,
    })
    const validate = async (signer: typeof owner) =>
      (
        await publicClient().simulateContract({
          account: ENTRY_POINT,
          address: account,
          abi,
          functionName: 'validateUserOp',
          args: [
            { ...sameChain, signature: await coinbaseSignature(signer, userOpHash) },
            userOpHash,
            0n,
          ],
        } as never)
      ).result
    expect(await validate(owner)).toBe(0n)
    expect(await validate(privateKeyToAccount(generatePrivateKey()))).toBe(1n)
  })
})
