import type { Address } from 'viem'

/** A network by its CAIP-2 id: Base mainnet, Base Sepolia. */
export type NetworkId = 'eip155:8453' | 'eip155:84532'

/** A value per network; a network left out has none (no deployment at a known address there). */
export type ByNetwork<T> = Readonly<Partial<Record<NetworkId, T>>>

/**
 * The network whose addresses every lookup of protocol knowledge uses. The service judges Base
 * mainnet transactions only; when the network becomes a value of the request (issue 40), this is
 * the one place that reads it.
 */
export const SERVED_NETWORK: NetworkId = 'eip155:8453'

/** `byNetwork`'s value on the {@link SERVED_NETWORK}; undefined where it has none. */
export function onServedNetwork<T>(byNetwork: ByNetwork<T>): T | undefined {
  return byNetwork[SERVED_NETWORK]
}

/** Addresses on Base mainnet only (another deployment, or none, on Base Sepolia). */
export function onBase(...addresses: Address[]): ByNetwork<readonly Address[]> {
  return { 'eip155:8453': addresses }
}

/**
 * Addresses shared by Base mainnet and Base Sepolia: the OP-stack predeploys, and contracts
 * deployed by CREATE2 at one address on every chain (Permit2, Multicall3, the EntryPoints,
 * Safe's singletons).
 */
export function onBaseAndSepolia(...addresses: Address[]): ByNetwork<readonly Address[]> {
  return { 'eip155:8453': addresses, 'eip155:84532': addresses }
}
