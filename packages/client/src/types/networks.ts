/**
 * The networks the guard serves, as data: what a buyer needs to know of each to pay and to ask
 * (its CAIP-2 id, chain id, and the USDC it is paid in, with the EIP-712 domain an EIP-3009
 * authorization is signed under). The service's network profiles (`src/domain/network/`) extend
 * these with what only the service needs. Values as `@x402/evm`'s `DEFAULT_ASSETS` and viem's
 * chain definitions hold them (a test holds them together).
 */

/** What a buyer knows of one network. */
export interface NetworkFacts {
  /** The name `NETWORK` takes. */
  name: string
  /** For people: "Base mainnet", "Base Sepolia". */
  label: string
  /** CAIP-2 id, as x402 names the network (`eip155:<chain id>`). */
  id: `eip155:${number}`
  chainId: number
  /** The chain id as 0x-hex, as the request bodies carry it. */
  chainIdHex: `0x${string}`
  /** USDC on this network: its address and the EIP-712 domain name/version of EIP-3009. */
  usdc: { address: `0x${string}`; name: string; version: string; decimals: number }
  /** WETH9, the OP-stack predeploy (one address on every Base network). */
  weth: `0x${string}`
  /** The network's public RPC (viem's chain definition's default), for reads when none is given. */
  publicRpcUrl: string
}

/** One network the guard serves, as a buyer knows it. */
export type ServedNetwork = (typeof NETWORKS)[keyof typeof NETWORKS]

/** Every network the guard can serve, by the name `NETWORK` takes. Base mainnet is the default. */
export const NETWORKS = {
  base: {
    name: 'base',
    label: 'Base mainnet',
    id: 'eip155:8453',
    chainId: 8453,
    chainIdHex: '0x2105',
    usdc: {
      address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      name: 'USD Coin',
      version: '2',
      decimals: 6,
    },
    weth: '0x4200000000000000000000000000000000000006',
    publicRpcUrl: 'https://mainnet.base.org',
  },
  'base-sepolia': {
    name: 'base-sepolia',
    label: 'Base Sepolia',
    id: 'eip155:84532',
    chainId: 84532,
    chainIdHex: '0x14a34',
    usdc: {
      address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      name: 'USDC',
      version: '2',
      decimals: 6,
    },
    weth: '0x4200000000000000000000000000000000000006',
    publicRpcUrl: 'https://sepolia.base.org',
  },
} as const satisfies Record<string, NetworkFacts>

/** A network's name, as `NETWORK` takes it. */
export type NetworkName = keyof typeof NETWORKS
/** A served network by its CAIP-2 id. */
export type NetworkId = (typeof NETWORKS)[NetworkName]['id']
/** The names, default first. */
export const NETWORK_NAMES = Object.keys(NETWORKS) as [NetworkName, ...NetworkName[]]
/** Base mainnet: the default network. */
export const DEFAULT_NETWORK = NETWORKS.base

/** The network of a CAIP-2 id; undefined for one the guard does not serve. */
export function networkById(id: string): (typeof NETWORKS)[NetworkName] | undefined {
  return Object.values(NETWORKS).find((n) => n.id === id)
}

/** The network of a chain id; undefined for one the guard does not serve. */
export function networkByChainId(chainId: number): (typeof NETWORKS)[NetworkName] | undefined {
  return Object.values(NETWORKS).find((n) => n.chainId === chainId)
}
