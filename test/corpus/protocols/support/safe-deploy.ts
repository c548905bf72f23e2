import { readFileSync } from 'node:fs'
import {
  getCompatibilityFallbackHandlerDeployment,
  getMultiSendCallOnlyDeployment,
  getMultiSendDeployment,
  getProxyFactoryDeployment,
  getSafeL2SingletonDeployment,
  getSafeSingletonDeployment,
  type SingletonDeployment,
} from '@safe-global/safe-deployments'
import {
  type Abi,
  type Address,
  concat,
  createTestClient,
  encodeFunctionData,
  encodePacked,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  type LocalAccount,
  pad,
  publicActions,
  size,
  zeroAddress,
  zeroHash,
} from 'viem'
import { clients } from '../../../support/contracts.js'

/**
 * Safe's singleton factory (the deterministic-deployment proxy Safe deployed 1.4.1 with). Its
 * runtime code is the same as anvil's predeployed 0x4e59b448...; CREATE2 through it with salt 0
 * gives every Safe 1.4.1 contract its canonical address.
 */
export const SAFE_SINGLETON_FACTORY: Address = '0x914d7Fec6aaC8cd542e72Bca78B30650d45643d7'
const ANVIL_CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'

export type SafeContract =
  | 'Safe'
  | 'SafeL2'
  | 'SafeProxyFactory'
  | 'MultiSend'
  | 'MultiSendCallOnly'
  | 'CompatibilityFallbackHandler'

/** A committed artifact (contracts/protocols/safe/*.json, scripts/protocol-artifacts/safe.ts). */
interface ProtocolArtifact {
  contractName: string
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
}

export function safeArtifact(name: SafeContract): ProtocolArtifact {
  const url = new URL(`../../../../contracts/protocols/safe/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as ProtocolArtifact
}

/** Where `@safe-global/safe-deployments` lists each contract on Base (8453), with its code hash. */
const FILTER = { version: '1.4.1', network: '8453' }
const DEPLOYMENTS: Record<SafeContract, SingletonDeployment | undefined> = {
  Safe: getSafeSingletonDeployment(FILTER),
  SafeL2: getSafeL2SingletonDeployment(FILTER),
  SafeProxyFactory: getProxyFactoryDeployment(FILTER),
  MultiSend: getMultiSendDeployment(FILTER),
  MultiSendCallOnly: getMultiSendCallOnlyDeployment(FILTER),
  CompatibilityFallbackHandler: getCompatibilityFallbackHandlerDeployment(FILTER),
}

function deployment(name: SafeContract): { address: Address; codeHash: Hex } {
  const d = DEPLOYMENTS[name]
  const address = d?.networkAddresses['8453']
  const codeHash = d?.deployments.canonical?.codeHash
  if (!address || !codeHash) throw new Error(`safe-deployments lists no ${name} 1.4.1 on Base`)
  return { address: getAddress(address), codeHash: codeHash as Hex }
}

/** The canonical Base address of a Safe 1.4.1 contract (from `@safe-global/safe-deployments`). */
export const safeAddress = (name: SafeContract): Address => deployment(name).address

/**
 * Deploys Safe 1.4.1 (Safe, SafeL2, SafeProxyFactory, MultiSend, MultiSendCallOnly,
 * CompatibilityFallbackHandler) the way Safe did: CREATE2 through the Safe singleton factory with
 * salt 0, so every constructor runs at its canonical address (MultiSend's immutable
 * `multisendSingleton = address(this)` included). Checks each address and runtime code hash
 * against `@safe-global/safe-deployments`: the devnet runs byte-identical code.
 */
export async function deploySafe(rpcUrl: string, deployer: LocalAccount): Promise<void> {
  const { publicClient, walletClient } = clients(rpcUrl, deployer)
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).extend(publicActions)
  const factoryCode = await publicClient.getCode({ address: SAFE_SINGLETON_FACTORY })
  if (!factoryCode || factoryCode === '0x') {
    const code = await publicClient.getCode({ address: ANVIL_CREATE2_DEPLOYER })
    if (!code) throw new Error('the devnet has no deterministic deployer to copy')
    await test.setCode({ address: SAFE_SINGLETON_FACTORY, bytecode: code })
  }
  for (const name of Object.keys(DEPLOYMENTS) as SafeContract[]) {
    const { address, codeHash } = deployment(name)
    const { bytecode } = safeArtifact(name)
    const predicted = getContractAddress({
      opcode: 'CREATE2',
      from: SAFE_SINGLETON_FACTORY,
      salt: zeroHash,
      bytecode,
    })
    if (predicted !== address) throw new Error(`${name} would land at ${predicted}, not ${address}`)
    const existing = await publicClient.getCode({ address })
    if (!existing || existing === '0x') {
      const hash = await walletClient.sendTransaction({
        to: SAFE_SINGLETON_FACTORY,
        data: concat([zeroHash, bytecode]),
      })
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
      if (receipt.status !== 'success') throw new Error(`deploying ${name} reverted`)
    }
    const code = await publicClient.getCode({ address })
    if (!code || keccak256(code) !== codeHash)
      throw new Error(`${name} at ${address} does not have safe-deployments' code hash`)
  }
}

/**
 * Creates a 1-of-1 SafeL2 proxy owned by `owner` (sent by the owner, through the canonical
 * SafeProxyFactory, with the canonical CompatibilityFallbackHandler); returns its address.
 */
export async function createSafe(
  rpcUrl: string,
  owner: LocalAccount,
  saltNonce = 0n,
): Promise<Address> {
  const { publicClient, walletClient } = clients(rpcUrl, owner)
  const initializer = encodeFunctionData({
    abi: safeArtifact('SafeL2').abi,
    functionName: 'setup',
    args: [
      [owner.address],
      1n,
      zeroAddress,
      '0x',
      safeAddress('CompatibilityFallbackHandler'),
      zeroAddress,
      0n,
      zeroAddress,
    ],
  })
  const factory = {
    address: safeAddress('SafeProxyFactory'),
    abi: safeArtifact('SafeProxyFactory').abi,
  }
  const { result, request } = await publicClient.simulateContract({
    ...factory,
    account: owner,
    functionName: 'createProxyWithNonce',
    args: [safeAddress('SafeL2'), initializer, saltNonce],
  })
  const hash = await walletClient.writeContract(request)
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error('creating the Safe reverted')
  return result as Address
}

/**
 * `execTransaction` signed by the one owner who also sends it: Safe's pre-validated signature
 * (v = 1, r = the owner), accepted because `msg.sender` is that owner. No refund (gas fields 0).
 */
export function execTransaction(
  owner: Address,
  to: Address,
  data: Hex,
  operation: 0 | 1,
  value = 0n,
): Hex {
  const signature = concat([pad(owner), zeroHash, '0x01'])
  return encodeFunctionData({
    abi: safeArtifact('SafeL2').abi,
    functionName: 'execTransaction',
    args: [to, value, data, operation, 0n, 0n, 0n, zeroAddress, zeroAddress, signature],
  })
}

/** One transaction of a MultiSend batch. */
export interface BatchCall {
  to: Address
  data: Hex
  value?: bigint
  /** 0 = call, 1 = delegatecall (MultiSend only; MultiSendCallOnly reverts on 1). */
  operation?: 0 | 1
}

/** `multiSend(bytes)`: per transaction, packed (uint8 operation, address to, uint256 value, uint256 length, bytes data). */
export function multiSend(calls: readonly BatchCall[]): Hex {
  const packed = concat(
    calls.map((c) =>
      encodePacked(
        ['uint8', 'address', 'uint256', 'uint256', 'bytes'],
        [c.operation ?? 0, c.to, c.value ?? 0n, BigInt(size(c.data)), c.data],
      ),
    ),
  )
  return encodeFunctionData({
    abi: safeArtifact('MultiSendCallOnly').abi,
    functionName: 'multiSend',
    args: [packed],
  })
}
