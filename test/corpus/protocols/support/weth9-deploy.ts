import { type Address, createTestClient, type Hex, http, pad, publicActions, toHex } from 'viem'
import { base } from 'viem/chains'
import { protocolArtifact } from './protocol-artifact.js'

/** Base's WETH predeploy (not proxied): Dapphub WETH9. */
export const WETH9_ADDRESS: Address = '0x4200000000000000000000000000000000000006'
export const weth9 = protocolArtifact('weth9', 'WETH9')

/**
 * A Solidity short string (< 32 bytes) as its storage word: the bytes left-aligned, length * 2
 * in the lowest byte.
 */
function shortString(value: string): Hex {
  const bytes = toHex(value)
  const length = (bytes.length - 2) / 2
  if (length > 31) throw new Error(`${value} is not a short string`)
  return `${pad(bytes, { dir: 'right', size: 31 })}${(length * 2).toString(16).padStart(2, '0')}`
}

/**
 * WETH9's storage (solc 0.5 layout, `string public name` first): slot 0 name, slot 1 symbol,
 * slot 2 decimals (uint8), slot 3 balanceOf mapping, slot 4 allowance mapping.
 */
export const WETH9_SLOTS = { name: 0n, symbol: 1n, decimals: 2n, balanceOf: 3n, allowance: 4n }

/**
 * Places WETH9's runtime at 0x42..06 with `anvil_setCode` and writes the three storage slots its
 * constructor-less initialisers would have: "Wrapped Ether", "WETH", 18. Idempotent: when the
 * same code is already there nothing is touched (balances survive).
 */
export async function ensureWeth9(rpcUrl: string): Promise<Address> {
  const test = createTestClient({ chain: base, mode: 'anvil', transport: http(rpcUrl) }).extend(
    publicActions,
  )
  const code = await test.getCode({ address: WETH9_ADDRESS })
  if (code === weth9.deployedBytecode) return WETH9_ADDRESS
  await test.setCode({ address: WETH9_ADDRESS, bytecode: weth9.deployedBytecode })
  const slot = (n: bigint) => pad(toHex(n), { size: 32 })
  await test.setStorageAt({
    address: WETH9_ADDRESS,
    index: slot(WETH9_SLOTS.name),
    value: shortString('Wrapped Ether'),
  })
  await test.setStorageAt({
    address: WETH9_ADDRESS,
    index: slot(WETH9_SLOTS.symbol),
    value: shortString('WETH'),
  })
  await test.setStorageAt({
    address: WETH9_ADDRESS,
    index: slot(WETH9_SLOTS.decimals),
    value: pad(toHex(18), { size: 32 }),
  })
  return WETH9_ADDRESS
}
