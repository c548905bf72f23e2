import { readFileSync } from 'node:fs'
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  publicActions,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'

// Smoke test of the fixture contracts other tests build on: each deploys from its committed
// artifact and fails in exactly the way its name promises.

type Artifact = { abi: Abi; bytecode: Hex }
const artifact = (name: string): Artifact =>
  JSON.parse(
    readFileSync(new URL(`../../contracts/artifacts/${name}.json`, import.meta.url), 'utf8'),
  ) as Artifact

let devnet: Devnet
let client: ReturnType<typeof makeClient>
const owner = privateKeyToAccount(DEVNET_ACCOUNTS.facilitator.privateKey)

function makeClient(rpcUrl: string) {
  return createWalletClient({
    account: owner,
    chain: base,
    transport: http(rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions)
}

async function deploy(name: string, args: readonly unknown[] = []): Promise<Address> {
  const { abi, bytecode } = artifact(name)
  const hash = await client.deployContract({ abi, bytecode, args })
  const receipt = await client.waitForTransactionReceipt({ hash })
  if (!receipt.contractAddress) throw new Error(`${name} not deployed`)
  return receipt.contractAddress
}

/** The decoded revert of a simulated call: error name and args. */
async function revertOf(address: Address, name: string, functionName: string, args: unknown[]) {
  try {
    await client.simulateContract({ address, abi: artifact(name).abi, functionName, args })
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

beforeAll(async () => {
  devnet = await startDevnet()
  client = makeClient(devnet.rpcUrl)
})
afterAll(async () => {
  await devnet?.stop()
})

describe('Reverter', () => {
  it('produces each kind of revert', async () => {
    const at = await deploy('Reverter')
    const { abi } = artifact('Reverter')
    expect(
      await client.readContract({ address: at, abi, functionName: 'succeed', args: [21n] }),
    ).toBe(42n)
    expect(await revertOf(at, 'Reverter', 'failRequire', [])).toEqual({
      errorName: 'Error',
      args: ['Reverter: require failed'],
    })
    expect(await revertOf(at, 'Reverter', 'failCustom', [7n])).toEqual({
      errorName: 'InsufficientQuota',
      args: [owner.address, 7n],
    })
    expect(await revertOf(at, 'Reverter', 'panicDivideByZero', [0n])).toEqual({
      errorName: 'Panic',
      args: [0x12n],
    })
    expect(await revertOf(at, 'Reverter', 'panicAssert', [])).toEqual({
      errorName: 'Panic',
      args: [0x01n],
    })
    expect(await revertOf(at, 'Reverter', 'panicOutOfBounds', [3n])).toEqual({
      errorName: 'Panic',
      args: [0x32n],
    })
  })
})

describe('OpenZeppelin fixtures', () => {
  it('TestERC20 mints and batches through multicall(bytes[])', async () => {
    const at = await deploy('TestERC20', ['Test Token', 'TT'])
    const { abi } = artifact('TestERC20')
    const mint = (amount: bigint) =>
      encodeFunctionData({ abi, functionName: 'mint', args: [owner.address, amount] })
    const hash = await client.writeContract({
      address: at,
      abi,
      functionName: 'multicall',
      args: [[mint(1n), mint(2n)]],
    })
    await client.waitForTransactionReceipt({ hash })
    expect(
      await client.readContract({
        address: at,
        abi,
        functionName: 'balanceOf',
        args: [owner.address],
      }),
    ).toBe(3n)
  })

  it('TestERC721, TestERC1155 and TestOwnable deploy; Ownable refuses strangers', async () => {
    await deploy('TestERC721')
    await deploy('TestERC1155')
    const stranger = DEVNET_ACCOUNTS.buyer.address
    const at = await deploy('TestOwnable', [stranger])
    expect(await revertOf(at, 'TestOwnable', 'setValue', [1n])).toEqual({
      errorName: 'OwnableUnauthorizedAccount',
      args: [owner.address],
    })
  })

  it('TestUUPS works behind ERC1967Proxy', async () => {
    const implementation = await deploy('TestUUPS')
    const { abi } = artifact('TestUUPS')
    const init = encodeFunctionData({ abi, functionName: 'initialize', args: [owner.address] })
    const proxy = await deploy('ERC1967Proxy', [implementation, init])
    expect(await client.readContract({ address: proxy, abi, functionName: 'owner' })).toBe(
      owner.address,
    )
    // The owner may upgrade (here: to a second copy of the implementation).
    const next = await deploy('TestUUPS')
    await expect(
      client.simulateContract({
        address: proxy,
        abi,
        functionName: 'upgradeToAndCall',
        args: [next, '0x'],
      }),
    ).resolves.toBeDefined()
  })

  it('TestSafe executes calls through execTransaction', async () => {
    const safe = await deploy('TestSafe')
    const token = await deploy('TestERC20', ['Test Token', 'TT'])
    const tokenAbi = artifact('TestERC20').abi
    const data = encodeFunctionData({ abi: tokenAbi, functionName: 'mint', args: [safe, 5n] })
    const zero = '0x0000000000000000000000000000000000000000'
    const hash = await client.writeContract({
      address: safe,
      abi: artifact('TestSafe').abi,
      functionName: 'execTransaction',
      args: [token, 0n, data, 0, 0n, 0n, 0n, zero, zero, '0x'],
    })
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(
      await client.readContract({
        address: token,
        abi: tokenAbi,
        functionName: 'balanceOf',
        args: [safe],
      }),
    ).toBe(5n)
  })
})
