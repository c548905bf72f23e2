import type { Address, Hex } from 'viem'
import { z } from 'zod'
import {
  ADDRESS_PATTERN,
  BYTES_PATTERN,
  BYTES32_PATTERN,
  HEX_PATTERN,
  isHexNumberText,
  NONEMPTY_BYTES_PATTERN,
  QUANTITY_PATTERN,
  WORD_PATTERN,
} from '../types/hex.js'

// The zod primitives of every shape, request and answer, built on the one set of hex and
// address patterns (`/types`, hex.ts): each check proves what its TypeScript type claims, so the
// schemas' types say `Hex` and `Address` where a check guarantees them. Messages differ by
// audience (a request's 422 speaks to the caller, an answer's to a buyer checking a guard), so
// the factories take one; the pattern never varies.

/**
 * A string schema whose check proves `T`: the one place a pattern's string becomes `Hex` or
 * `Address`. Without `message`, zod's own (which names the pattern).
 */
function proven<T extends string>(pattern: RegExp, message?: string): z.ZodType<T, T> {
  return z.string().regex(pattern, message) as unknown as z.ZodType<T, T>
}

/** A 20-byte address field, with the message a failed check gives. */
export const addressOf = (message?: string) => proven<Address>(ADDRESS_PATTERN, message)
/** A whole-bytes field (`0x` alone is empty), with the message a failed check gives. */
export const bytesOf = (message?: string) => proven<Hex>(BYTES_PATTERN, message)
/** A field of at least one whole byte, with the message a failed check gives. */
export const nonEmptyBytesOf = (message?: string) => proven<Hex>(NONEMPTY_BYTES_PATTERN, message)
/** A 32-byte field, with the message a failed check gives. */
export const bytes32Of = (message?: string) => proven<Hex>(BYTES32_PATTERN, message)
/** A `0x`-hex field of any length, with the message a failed check gives. */
export const hexOf = (message?: string) => proven<Hex>(HEX_PATTERN, message)

/**
 * A hex number that must fit in `maxBits`, checked by `pattern` (a hex number, or at most 32
 * bytes of digits). The size is computed only from what `BigInt` reads, so no input throws.
 */
export function boundedHexOf(pattern: RegExp, message: string, maxBits: number) {
  const limit = 2n ** BigInt(maxBits)
  return z
    .string()
    .regex(pattern, message)
    .refine((v) => !isHexNumberText(v) || BigInt(v) < limit, {
      message: `must fit in ${maxBits} bits`,
    }) as unknown as z.ZodType<Hex, Hex>
}

/** `0x`-prefixed hex of any length (calldata, return data, signatures, selectors). */
export const hex = hexOf('expected 0x-prefixed hex')

/** A 32-byte word: hashes, settlement transactions. */
export const bytes32 = bytes32Of('expected 32 bytes of hex')

/** A 20-byte address as plain text, where the value is typed elsewhere (x402's offer). */
export const addressText = z
  .string()
  .regex(ADDRESS_PATTERN, 'expected a 0x-prefixed 20-byte address')

/** A 20-byte address (any letter case; checksums are not enforced). */
export const address = addressText as unknown as z.ZodType<Address, Address>

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
    .regex(QUANTITY_PATTERN, 'must be a 0x-prefixed hex quantity (e.g. 0x0, 0x1a)')
    .refine((v) => !isHexNumberText(v) || BigInt(v) < 2n ** BigInt(maxBits), {
      message: `must fit in ${maxBits} bits`,
    })
    .meta({ description })

/** Up to 32 bytes of hex, leading zeros allowed (signature parts). */
export const word = (description: string) =>
  z
    .string()
    .regex(WORD_PATTERN, 'must be 0x-prefixed hex of at most 32 bytes')
    .meta({ description })

/** Bytes as hex: an even number of digits (`0x` alone is empty); typed `Hex` once checked. */
export const bytes = (description: string) =>
  z
    .string()
    .regex(BYTES_PATTERN, 'must be 0x-prefixed hex with an even number of digits')
    .meta({ description }) as unknown as z.ZodType<Hex, string>
