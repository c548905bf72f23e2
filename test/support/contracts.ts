import { readFileSync } from 'node:fs'
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type LocalAccount,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { base } from 'viem/chains'

/** A compiled contract from contracts/artifacts (built by `npm run build:contracts`). */
export interface Artifact {
  contractName: string
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
}

export function loadArtifact(name: string): Artifact {
  const url = new URL(`../../contracts/artifacts/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as Artifact
}

const TEST_MNEMONIC = 'test test test test test test test test test test test junk'

/** Anvil's well-known test accounts by index (devnet only). Indexes 0-3 have service roles. */
export function testAccount(index: number): LocalAccount {
  return mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index })
}

/** Clients bound to one RPC URL on the chain-8453 devnet. */
export function clients(rpcUrl: string, account: LocalAccount = testAccount(9)) {
  const transport = http(rpcUrl)
  return {
    publicClient: createPublicClient({ chain: base, transport }),
    walletClient: createWalletClient({ chain: base, transport, account }),
    account,
  }
}

/** Deploys an artifact and waits for the receipt; returns its address. */
export async function deploy(
  rpcUrl: string,
  name: string,
  args: readonly unknown[] = [],
  account: LocalAccount = testAccount(9),
): Promise<{ address: Address; abi: Abi }> {
  const { publicClient, walletClient } = clients(rpcUrl, account)
  const artifact = loadArtifact(name)
  const hash = await walletClient.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: args as unknown[],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (!receipt.contractAddress) throw new Error(`deploying ${name} produced no contract`)
  return { address: receipt.contractAddress, abi: artifact.abi }
}
