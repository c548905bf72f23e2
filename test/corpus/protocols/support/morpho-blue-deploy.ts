import { readFileSync } from 'node:fs'
import {
  type Abi,
  type Address,
  createTestClient,
  encodeAbiParameters,
  getAddress,
  type Hex,
  http,
  keccak256,
  type LocalAccount,
  pad,
  parseAbiParameters,
  publicActions,
  toHex,
} from 'viem'
import { base } from 'viem/chains'
import { clients } from '../../../support/contracts.js'

/**
 * Morpho Blue on the devnet, from the artifacts in contracts/protocols/morpho-blue (rebuilt by
 * scripts/protocol-artifacts/morpho-blue.ts from `@morpho-org/morpho-blue@1.0.0` and
 * `@morpho-org/morpho-blue-bundlers@1.1.2`).
 */

/** Morpho Blue on Base (and Ethereum): `@morpho-org/morpho-ts@2.8.0` addresses[8453].morpho. */
export const MORPHO_BLUE: Address = '0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb'
/** Morpho's bundler (v2) on Base: `@morpho-org/blue-sdk@2.1.2` addresses[8453].bundler. */
export const MORPHO_BUNDLER_V2: Address = '0x23055618898e202386e6c13955a58D3C68200BFB'
/** WETH on Base, the bundler's wrapped native token (an immutable; no code needed here). */
export const BASE_WETH: Address = '0x4200000000000000000000000000000000000006'

export interface ProtocolArtifact {
  contractName: string
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
  immutableReferences?: Record<string, { start: number; length: number }[]>
}

export function loadProtocolArtifact(protocol: string, name: string): ProtocolArtifact {
  const url = new URL(`../../../../contracts/protocols/${protocol}/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as ProtocolArtifact
}

export const morphoArtifact = loadProtocolArtifact('morpho-blue', 'Morpho')
export const MORPHO_ABI = morphoArtifact.abi

export function testClient(rpcUrl: string) {
  return createTestClient({ chain: base, mode: 'anvil', transport: http(rpcUrl) }).extend(
    publicActions,
  )
}

/** Deploys an artifact from contracts/protocols with CREATE from `account`. */
export async function deployProtocol(
  rpcUrl: string,
  artifact: ProtocolArtifact,
  args: readonly unknown[],
  account: LocalAccount,
): Promise<Address> {
  const { publicClient, walletClient } = clients(rpcUrl, account)
  const hash = await walletClient.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: args as unknown[],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (!receipt.contractAddress) throw new Error(`deploying ${artifact.contractName} failed`)
  return receipt.contractAddress
}

/**
 * Sends a contract call from `account` with a fixed gas limit and waits for a successful receipt.
 * Not the node's estimate: anvil estimates at the latest block's timestamp, and Morpho accrues
 * interest (an IRM call and several stores) only when the mined block's timestamp is later than
 * the market's last update; a transaction estimated in one second and mined in the next ran out
 * of gas.
 */
export async function send(
  rpcUrl: string,
  account: LocalAccount,
  address: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[],
): Promise<void> {
  const { publicClient, walletClient } = clients(rpcUrl, account)
  const hash = await walletClient.writeContract({
    address,
    abi,
    functionName,
    args: args as unknown[],
    gas: 6_000_000n,
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error(`${functionName} reverted (${hash})`)
}

/** `DOMAIN_SEPARATOR` as Morpho's constructor computes it (ConstantsLib.DOMAIN_TYPEHASH). */
export function morphoDomainSeparator(chainId: number, morpho: Address): Hex {
  return keccak256(
    encodeAbiParameters(parseAbiParameters('bytes32, uint256, address'), [
      keccak256(toHex('EIP712Domain(uint256 chainId,address verifyingContract)')),
      BigInt(chainId),
      morpho,
    ]),
  )
}

/**
 * Places Morpho Blue's runtime code at its canonical address: the compiler's deployedBytecode
 * with its one immutable (DOMAIN_SEPARATOR, at the offsets solc reported) filled in exactly as
 * the constructor would have for that address on chain 8453, and slot 0 (`owner`) written
 * as the constructor would. Everything else (IRMs, LLTVs, markets) the owner then does with
 * real transactions.
 */
export async function placeMorphoBlue(rpcUrl: string, owner: Address): Promise<void> {
  const test = testClient(rpcUrl)
  const separator = morphoDomainSeparator(base.id, MORPHO_BLUE).slice(2)
  let code = morphoArtifact.deployedBytecode.slice(2)
  const references = Object.values(morphoArtifact.immutableReferences ?? {}).flat()
  if (references.length === 0) throw new Error('Morpho artifact lacks immutableReferences')
  for (const { start, length } of references) {
    if (length !== 32) throw new Error('unexpected immutable size')
    code = code.slice(0, start * 2) + separator + code.slice((start + length) * 2)
  }
  await test.setCode({ address: MORPHO_BLUE, bytecode: `0x${code}` })
  await test.setStorageAt({
    address: MORPHO_BLUE,
    index: toHex(0, { size: 32 }),
    value: pad(owner),
  })
  const [onChainOwner, onChainSeparator] = await Promise.all([
    test.readContract({ address: MORPHO_BLUE, abi: MORPHO_ABI, functionName: 'owner' }),
    test.readContract({ address: MORPHO_BLUE, abi: MORPHO_ABI, functionName: 'DOMAIN_SEPARATOR' }),
  ])
  if (getAddress(onChainOwner as Address) !== getAddress(owner))
    throw new Error('Morpho owner not set')
  if (onChainSeparator !== `0x${separator}`) throw new Error('Morpho DOMAIN_SEPARATOR mismatch')
}

/**
 * Deploys BaseBundlerV2 (constructor(morpho, weth)) with CREATE, then copies the runtime code
 * that deployment produced (immutables MORPHO and WRAPPED_NATIVE included) and its one storage
 * word (slot 0, `initiator` = 1, "unset") to `at`. Returns the CREATE address too: a second,
 * real bundler instance.
 */
export async function placeBundler(
  rpcUrl: string,
  deployer: LocalAccount,
  at: Address = MORPHO_BUNDLER_V2,
): Promise<{ canonical: Address; created: Address }> {
  const test = testClient(rpcUrl)
  const artifact = loadProtocolArtifact('morpho-blue', 'BaseBundlerV2')
  const created = await deployProtocol(rpcUrl, artifact, [MORPHO_BLUE, BASE_WETH], deployer)
  const [runtime, slot0] = await Promise.all([
    test.getCode({ address: created }),
    test.getStorageAt({ address: created, slot: toHex(0, { size: 32 }) }),
  ])
  if (!runtime) throw new Error('BaseBundlerV2 has no code')
  await test.setCode({ address: at, bytecode: runtime })
  await test.setStorageAt({
    address: at,
    index: toHex(0, { size: 32 }),
    value: slot0 ?? pad('0x0'),
  })
  return { canonical: at, created }
}

export interface MarketParams {
  loanToken: Address
  collateralToken: Address
  oracle: Address
  irm: Address
  lltv: bigint
}

/** A market's id: keccak256 of the ABI-encoded MarketParams (MarketParamsLib.id). */
export function marketId(params: MarketParams): Hex {
  return keccak256(
    encodeAbiParameters(parseAbiParameters('address, address, address, address, uint256'), [
      params.loanToken,
      params.collateralToken,
      params.oracle,
      params.irm,
      params.lltv,
    ]),
  )
}

/** Storage slot of `position[id][user]` word `offset` (0 supplyShares; 1 borrowShares|collateral). */
export function positionSlot(id: Hex, user: Address, offset: 0n | 1n): Hex {
  const inner = keccak256(encodeAbiParameters(parseAbiParameters('bytes32, uint256'), [id, 2n]))
  const outer = keccak256(
    encodeAbiParameters(parseAbiParameters('address, bytes32'), [user, inner]),
  )
  return toHex(BigInt(outer) + offset, { size: 32 })
}

/** Storage slot of `market[id]` word `offset` (0 supply assets|shares; 1 borrow; 2 lastUpdate|fee). */
export function marketSlot(id: Hex, offset: 0n | 1n | 2n): Hex {
  const slot = keccak256(encodeAbiParameters(parseAbiParameters('bytes32, uint256'), [id, 3n]))
  return toHex(BigInt(slot) + offset, { size: 32 })
}
