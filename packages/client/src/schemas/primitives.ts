import type { Address, Hex } from 'viem'
import { z } from 'zod'

// The strings every answer is made of. Each regex proves what its TypeScript type claims, so
// the schemas' output types say `Hex` and `Address` where the checks guarantee them.

/** `0x`-prefixed hex of any length (calldata, return data, signatures, selectors). */
export const hex = z
  .string()
  .regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex') as unknown as z.ZodType<Hex, string>

/** A 32-byte word: hashes, settlement transactions. */
export const bytes32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'expected 32 bytes of hex') as unknown as z.ZodType<Hex, string>

/** A 20-byte address as plain text, where the value is typed elsewhere (x402's offer). */
export const addressText = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte address')

/** A 20-byte address (any letter case; checksums are not enforced). */
export const address = addressText as unknown as z.ZodType<Address, string>

/** A non-negative decimal integer string: wei, token units, block numbers, unix seconds. */
export const decimal = z.string().regex(/^[0-9]+$/, 'expected a decimal integer string')

/** An amount in wei as a decimal string (uint256 exceeds JSON numbers). */
export const wei = (description: string) =>
  decimal.meta({ description: `${description} Wei, decimal string.` })

/** The block every read of an answer was pinned to. */
export const PinnedBlockSchema = z
  .object({ number: decimal, hash: bytes32, timestamp: decimal })
  .meta({ description: 'The block every read was pinned to.' })

/** Signature y parity as a hex quantity; viem's user-operation formatter writes `0x00`/`0x01`. */
export const yParity = z
  .string()
  .regex(/^0x0?[01]$/, 'must be 0x0 or 0x1')
  .meta({ description: 'Signature y parity, hex.' })

/** A JSON-RPC quantity: `0x` then hex digits without leading zeros beyond one (`0x0`, `0x1a`). */
export const quantity = (description: string, maxBits: number) =>
  z
    .string()
    .regex(
      /^0x(?:0|[1-9a-fA-F][0-9a-fA-F]*)$/,
      'must be a 0x-prefixed hex quantity (e.g. 0x0, 0x1a)',
    )
    .refine((v) => !/^0x[0-9a-fA-F]+$/.test(v) || BigInt(v) < 2n ** BigInt(maxBits), {
      message: `must fit in ${maxBits} bits`,
    })
    .meta({ description })

/** Up to 32 bytes of hex, leading zeros allowed (signature parts). */
export const word = (description: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,64}$/, 'must be 0x-prefixed hex of at most 32 bytes')
    .meta({ description })

/** Bytes as hex: an even number of digits (`0x` alone is empty). */
export const bytes = (description: string) =>
  z
    .string()
    .regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex with an even number of digits')
    .meta({ description })
