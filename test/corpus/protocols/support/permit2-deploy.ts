import { type Address, createTestClient, http, publicActions } from 'viem'
import { base } from 'viem/chains'
import { protocolArtifact } from './protocol-artifact.js'

/** Canonical Permit2 (the same address on every chain, Base included). */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
/** Runtime with its immutables as on Base: _CACHED_CHAIN_ID 8453 and Base's domain separator. */
export const permit2 = protocolArtifact('permit2', 'Permit2')

/**
 * Places Permit2's runtime at its canonical address. Permit2 needs no storage initialised (its
 * only constructor work is the two immutables, already in the runtime). Idempotent.
 */
export async function ensurePermit2(rpcUrl: string): Promise<Address> {
  const test = createTestClient({ chain: base, mode: 'anvil', transport: http(rpcUrl) }).extend(
    publicActions,
  )
  const code = await test.getCode({ address: PERMIT2_ADDRESS })
  if (code !== permit2.deployedBytecode)
    await test.setCode({ address: PERMIT2_ADDRESS, bytecode: permit2.deployedBytecode })
  return PERMIT2_ADDRESS
}
