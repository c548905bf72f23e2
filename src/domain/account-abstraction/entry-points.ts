import type { Address } from 'viem'

/** An ERC-4337 EntryPoint release the guard simulates. */
export type EntryPointVersion = '0.6' | '0.7' | '0.8'

/**
 * The canonical EntryPoints (eth-infinitism releases, CREATE2-deployed at the same address on
 * every chain, Base included). Only these are accepted: an operation for another "EntryPoint" is
 * an operation for code nobody audited.
 */
export const ENTRY_POINTS: Readonly<Record<EntryPointVersion, Address>> = {
  '0.6': '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789',
  '0.7': '0x0000000071727De22E5E9d8BAf0edAc6f37da032',
  '0.8': '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
}

/** The EntryPoint version at `address`, when it is a canonical one. */
export function entryPointVersion(address: string): EntryPointVersion | undefined {
  const wanted = address.toLowerCase()
  return (Object.keys(ENTRY_POINTS) as EntryPointVersion[]).find(
    (v) => ENTRY_POINTS[v].toLowerCase() === wanted,
  )
}

/** eth-infinitism's Simple7702Account (v0.8), the reference EIP-7702 wallet delegate. */
export const SIMPLE_7702_ACCOUNT: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B'
