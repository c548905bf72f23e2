import { type Address, createPublicClient, erc20Abi, http, type PublicClient } from 'viem'
import type { Discovery } from '../client/guard-responses.js'
import { servedNetworkOf } from '../client/served-network.js'
import { redactUrls, shortMessage, UsageError } from './cli-output.js'

/** The chain the flow reads balances and the settlement from, and how to name it in output. */
export interface ChainReader {
  client: PublicClient
  label: string
}

/**
 * The chain to read balances from: `rpcUrl` (--rpc-url), else BASE_RPC_URL, else the public RPC
 * of the network the guard serves; it must be on that network (discovery's). The RPC a
 * devnet discovery names is used only for anvil's demo account: a guard never picks the chain a
 * user's own payment is verified on. Labels never carry more of a URL than its origin.
 */
export async function chainReader(
  discovery: Discovery,
  rpcUrl: string | undefined,
  env: Record<string, string | undefined>,
  demo: boolean,
): Promise<ChainReader> {
  const network = servedNetworkOf(discovery)
  const [url, label] = rpcUrl
    ? [rpcUrl, '--rpc-url']
    : demo && discovery.devnet
      ? [discovery.devnet.rpcUrl, `devnet RPC ${redactUrls(discovery.devnet.rpcUrl)}`]
      : env.BASE_RPC_URL
        ? [env.BASE_RPC_URL, 'BASE_RPC_URL']
        : [network.publicRpcUrl, network.publicRpcUrl]
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
  if (chainId !== network.chainId) {
    throw new UsageError(
      `the RPC for balances (${label}) is chain ${chainId}, the guard serves ${network.label} (${network.id}, chain ${network.chainId}); nothing was paid`,
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
