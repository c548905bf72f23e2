import { readFileSync } from 'node:fs'
import {
  type Abi,
  type Address,
  concat,
  createTestClient,
  domainSeparator,
  type Hex,
  http,
  type LocalAccount,
  publicActions,
  size,
  slice,
} from 'viem'
import { clients } from '../../../support/contracts.js'

/** Seaport 1.6 on Base (and every chain): `CROSS_CHAIN_SEAPORT_V1_6_ADDRESS` in `@opensea/seaport-js@4.3.0`. */
export const SEAPORT_ADDRESS: Address = '0x0000000000000068F116a894984e2DB1123eB395'
/** Seaport's ConduitController on Base (and every chain). */
export const CONDUIT_CONTROLLER_ADDRESS: Address = '0x00000000F9490004C11Cef243f5400493c00Ad63'

/** The EIP-712 domain Seaport 1.6 signs orders under. */
export const seaportDomain = (chainId: number, verifyingContract: Address = SEAPORT_ADDRESS) =>
  ({ name: 'Seaport', version: '1.6', chainId, verifyingContract }) as const

/** A committed protocol artifact (contracts/protocols/seaport/*.json, scripts/protocol-artifacts/seaport.ts). */
interface ProtocolArtifact {
  contractName: string
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
  immutableReferences: Record<string, { start: number; length: number }[]>
  immutableNames: Record<string, string>
}

export function seaportArtifact(name: 'Seaport' | 'ConduitController'): ProtocolArtifact {
  const url = new URL(`../../../../contracts/protocols/seaport/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as ProtocolArtifact
}

/** Replaces one immutable's every occurrence in runtime code (positions from the compiler). */
function setImmutable(code: Hex, artifact: ProtocolArtifact, name: string, value: Hex): Hex {
  const id = Object.entries(artifact.immutableNames).find(([, n]) => n.endsWith(`.${name}`))?.[0]
  const refs = id ? artifact.immutableReferences[id] : undefined
  if (!refs) throw new Error(`${artifact.contractName} has no immutable ${name}`)
  let out = code
  for (const { start, length } of refs) {
    if (size(value) !== length) throw new Error(`${name}: ${size(value)} bytes for ${length}`)
    out = concat([slice(out, 0, start), value, slice(out, start + length)])
  }
  return out
}

/**
 * Deploys Seaport 1.6 and its ConduitController from the committed artifacts (solc 0.8.24 viaIR
 * over `seaport-core@1.6.6`) at their canonical Base addresses:
 * - ConduitController: CREATE by the deployer, then its runtime code copied to the canonical
 *   address (its immutables are the conduit creation/runtime code hashes, independent of the
 *   address; its storage starts empty, i.e. no conduits, as the corpus needs none).
 * - Seaport: CREATE by the deployer with the canonical controller as constructor argument (so
 *   the constructor reads the real conduit code hashes), then its runtime code copied to the
 *   canonical address with the one address-bound immutable, `_DOMAIN_SEPARATOR`, rewritten to the
 *   canonical address's EIP-712 domain (what a constructor run there would have cached). All
 *   other immutables are address-independent. Storage starts empty (counters 0, no order status;
 *   the reentrancy guard is transient storage, as TSTORE is live on the devnet).
 */
export async function deploySeaport(rpcUrl: string, deployer: LocalAccount): Promise<void> {
  const { publicClient, walletClient } = clients(rpcUrl, deployer)
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).extend(publicActions)
  const controller = seaportArtifact('ConduitController')
  const seaport = seaportArtifact('Seaport')

  const existing = await publicClient.getCode({ address: SEAPORT_ADDRESS })
  if (existing && existing !== '0x') return

  const deployed = async (abi: Abi, bytecode: Hex, args: unknown[]): Promise<Address> => {
    const hash = await walletClient.deployContract({ abi, bytecode, args })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (!receipt.contractAddress || receipt.status !== 'success')
      throw new Error(`deploying ${hash} failed`)
    return receipt.contractAddress
  }

  const controllerAt = await deployed(controller.abi, controller.bytecode, [])
  const controllerCode = await publicClient.getCode({ address: controllerAt })
  if (!controllerCode) throw new Error('ConduitController has no code')
  await test.setCode({ address: CONDUIT_CONTROLLER_ADDRESS, bytecode: controllerCode })

  const seaportAt = await deployed(seaport.abi, seaport.bytecode, [CONDUIT_CONTROLLER_ADDRESS])
  const seaportCode = await publicClient.getCode({ address: seaportAt })
  if (!seaportCode) throw new Error('Seaport has no code')
  const chainId = await publicClient.getChainId()
  const expected = domainSeparator({ domain: seaportDomain(chainId) })
  await test.setCode({
    address: SEAPORT_ADDRESS,
    bytecode: setImmutable(seaportCode, seaport, '_DOMAIN_SEPARATOR', expected),
  })

  // The canonical Seaport must report the canonical domain and controller.
  const [version, reported, conduitController] = (await publicClient.readContract({
    address: SEAPORT_ADDRESS,
    abi: seaport.abi,
    functionName: 'information',
  })) as [string, Hex, Address]
  if (
    version !== '1.6' ||
    reported !== expected ||
    conduitController.toLowerCase() !== CONDUIT_CONTROLLER_ADDRESS.toLowerCase()
  )
    throw new Error(
      `Seaport at the canonical address reports ${version} ${reported} ${conduitController}`,
    )
}
