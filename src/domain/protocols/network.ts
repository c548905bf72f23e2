import type { NetworkId } from '@pre-send-guard/client/types'
import type { Address } from 'viem'
import {
  BASE_MAINNET,
  NETWORK_PROFILES,
  type NetworkProfile,
  profileById,
} from '../network/network-profile.js'

export type { NetworkId }

/** A value per network; a network left out has none (no deployment at a known address there). */
export type ByNetwork<T> = Readonly<Partial<Record<NetworkId, T>>>

/**
 * The network whose addresses every lookup of protocol knowledge uses: Base mainnet unless the
 * start-up chose another with {@link serveNetwork}. One process serves one network (`NETWORK`,
 * read by `config.ts`); the composition sets it once, before the app answers anything. This is
 * the one place the protocol modules' lookups read it.
 */
// An ESM live binding: importers read the value serveNetwork set.
export let SERVED_NETWORK: NetworkId = BASE_MAINNET.id

/** The served network's CAIP-2 id (for a caller that prefers a function to the binding). */
export function servedNetwork(): NetworkId {
  return SERVED_NETWORK
}

/**
 * Chooses the network the protocol knowledge is read on, for the whole process. Called once by
 * the start-up (`src/service/`) with the configured network, before the app is built.
 */
export function serveNetwork(id: NetworkId): void {
  SERVED_NETWORK = id
}

/** The served network's profile (its WETH, USDC, predeploys). */
export function servedProfile(): NetworkProfile {
  return profileById(SERVED_NETWORK)
}

/** `byNetwork`'s value on the served network; undefined where it has none. */
export function onServedNetwork<T>(byNetwork: ByNetwork<T>): T | undefined {
  return byNetwork[SERVED_NETWORK]
}

const MAINNET = NETWORK_PROFILES.base.id
const SEPOLIA = NETWORK_PROFILES['base-sepolia'].id

/** Addresses on Base mainnet only (another deployment, or none, on Base Sepolia). */
export function onBase(...addresses: Address[]): ByNetwork<readonly Address[]> {
  return { [MAINNET]: addresses }
}

/** Each network's value of `factOf(profile)`: a fact of every network profile (WETH, ...). */
export function onEveryNetwork<T>(factOf: (profile: NetworkProfile) => T): ByNetwork<T> {
  return Object.fromEntries(Object.values(NETWORK_PROFILES).map((p) => [p.id, factOf(p)]))
}

/** A value on Base mainnet only. */
export function onBaseOnly<T>(value: T): ByNetwork<T> {
  return { [MAINNET]: value }
}

/**
 * Addresses shared by Base mainnet and Base Sepolia: the OP-stack predeploys, and contracts
 * deployed by CREATE2 at one address on every chain (Permit2, Multicall3, the EntryPoints,
 * Safe's singletons).
 */
export function onBaseAndSepolia(...addresses: Address[]): ByNetwork<readonly Address[]> {
  return { [MAINNET]: addresses, [SEPOLIA]: addresses }
}
