import { type Address, createPublicClient, erc20Abi, http, type PublicClient } from 'viem'
import type { Discovery } from '../client/guard-responses.js'
import { DEFAULT_NETWORK } from '../types/networks.js'
import { redactUrls, shortMessage, UsageError } from './cli-output.js'

/** viem's default public Base RPC, used for balances when BASE_RPC_URL is unset (mainnet). */
export const PUBLIC_BASE_RPC = 'https://mainnet.base.org'

/** The chain the flow reads balances and the settlement from, and how to name it in output. */
export interface ChainReader {
  client: PublicClient
  label: string
}

/**
 * The chain to read balances from: `rpcUrl` (--rpc-url), else BASE_RPC_URL, else public Base. The RPC a
 * devnet discovery names is used only for anvil's demo account: a guard never picks the chain a
 * user's own payment is verified on. Labels never carry more of a URL than its origin.
 */
export async function chainReader(
  discovery: Discovery,
  rpcUrl: string | undefined,
  env: Record<string, string | undefined>,
  demo: boolean,
): Promise<ChainReader> {
  const [url, label] = rpcUrl
    ? [rpcUrl, '--rpc-url']
    : demo && discovery.devnet
      ? [discovery.devnet.rpcUrl, `devnet RPC ${redactUrls(discovery.devnet.rpcUrl)}`]
      : env.BASE_RPC_URL
        ? [env.BASE_RPC_URL, 'BASE_RPC_URL']
        : [PUBLIC_BASE_RPC, PUBLIC_BASE_RPC]
  let client: PublicClient
  let chainId: number
  try {
    client = createPublicClient({ transport: http(url, { retryCount: 1 }), cacheTime: 0 })
    chainId = await client.getChainId()
  } catch (error) {
    throw new UsageError(
      `the RPC for balances (${label}) does not answer, nothing was paid: ${shortMessage(error)}`,
    )
  }
  if (chainId !== DEFAULT_NETWORK.chainId) {
    throw new UsageError(
      `the RPC for balances (${label}) is chain ${chainId}, not Base (${DEFAULT_NETWORK.chainId})`,
    )
  }
  return { client, label }
}

/** `owner`'s balance of the ERC-20 `asset` at `blockNumber`. */
export function usdcBalance(
  client: PublicClient,
  asset: Address,
  owner: Address,
  blockNumber: bigint,
): Promise<bigint> {
  return client.readContract({
    address: asset,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
    blockNumber,
  })
}
