import type { Address, Hex } from 'viem'

// The hex and address rules of every shape, request and answer, declared once: each pattern
// is the only spelling of its rule in the service and this package. The zod primitives
// (`/schemas`) check with these patterns; code that is not parsing with zod (the service's
// domain, the CLI) tests with the guards, which narrow to `Hex` and `Address` so no cast is
// needed after them. No runtime dependency.

/** `0x` and any number of hex digits, either letter case (`0x` alone included). */
export const HEX_PATTERN = /^0x[0-9a-fA-F]*$/
/** `0x` and whole bytes: an even number of hex digits (`0x` alone is empty). */
export const BYTES_PATTERN = /^0x(?:[0-9a-fA-F]{2})*$/
/** `0x` and at least one whole byte (a signature). */
export const NONEMPTY_BYTES_PATTERN = /^0x(?:[0-9a-fA-F]{2})+$/
/** A 20-byte address, either letter case (an EIP-55 checksum is not enforced here). */
export const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/
/** 32 bytes: hashes, storage slots and values, EIP-3009 nonces, private keys. */
export const BYTES32_PATTERN = /^0x[0-9a-fA-F]{64}$/
/** A hex number: `0x` and at least one digit, leading zeros allowed (what `BigInt` reads). */
export const HEX_NUMBER_PATTERN = /^0x[0-9a-fA-F]+$/
/** A hex number of 1 to 64 digits (at most 32 bytes; signature parts, override quantities). */
export const WORD_PATTERN = /^0x[0-9a-fA-F]{1,64}$/
/** A JSON-RPC quantity: hex digits without leading zeros beyond one (`0x0`, `0x1a`). */
export const QUANTITY_PATTERN = /^0x(?:0|[1-9a-fA-F][0-9a-fA-F]*)$/

/** `0x`-prefixed hex of any length (`0x` alone included). */
export function isHexText(value: unknown): value is Hex {
  return typeof value === 'string' && HEX_PATTERN.test(value)
}

/** `0x`-prefixed whole bytes (`0x` alone included): calldata, return data, code. */
export function isBytesText(value: unknown): value is Hex {
  return typeof value === 'string' && BYTES_PATTERN.test(value)
}

/** `0x` and at least one whole byte. */
export function isNonEmptyBytesText(value: unknown): value is Hex {
  return typeof value === 'string' && NONEMPTY_BYTES_PATTERN.test(value)
}

/** Exactly 32 bytes of hex: a hash, a storage word, a nonce, a private key. */
export function isBytes32Text(value: unknown): value is Hex {
  return typeof value === 'string' && BYTES32_PATTERN.test(value)
}

/**
 * A 20-byte address in either letter case; the checksum is not checked (viem's
 * `isAddress(value, { strict: false })`, without its cache).
 */
export function isAddressText(value: unknown): value is Address {
  return typeof value === 'string' && value.length === 42 && ADDRESS_PATTERN.test(value)
}

/** A hex number (`0x` and at least one digit): what `BigInt` reads without throwing. */
export function isHexNumberText(value: unknown): value is Hex {
  return typeof value === 'string' && HEX_NUMBER_PATTERN.test(value)
}

/**
 * `value` in lower case: still hex (the `0x` prefix is lower case already), so still `Hex`.
 *
 * @example lowerHex('0xABcd') // '0xabcd'
 */
export function lowerHex<T extends Hex>(value: T): T {
  return value.toLowerCase() as T
}

/**
 * The bytes `start` to `end` (byte offsets, `end` exclusive, to the end when absent) of `value`,
 * as `0x` hex: a slice of hex digits is hex digits. Like `String.slice` past the end: no throw.
 *
 * @example hexSlice('0xa9059cbb0000', 0, 4) // '0xa9059cbb'
 */
export function hexSlice(value: Hex, start: number, end?: number): Hex {
  return `0x${value.slice(2 + start * 2, end === undefined ? undefined : 2 + end * 2)}`
}

/**
 * A non-negative integer as `0x` hex digits, left-padded with zeros to `digits` (no `size`
 * check, unlike viem's `numberToHex`: a wider number keeps all its digits).
 *
 * @example hexNumber(10, 2) // '0x0a'
 */
export function hexNumber(value: number | bigint, digits = 1): Hex {
  return `0x${value.toString(16).padStart(digits, '0')}`
}

/**
 * `value` as `Hex` once it is whole bytes (`0x` alone included); a `TypeError` naming `what`
 * otherwise. For values the code did not build and no schema parsed (a committed artifact):
 * a failure there is a broken build, not a caller's mistake.
 */
export function expectBytes(value: unknown, what: string): Hex {
  if (isBytesText(value)) return value
  throw new TypeError(`${what}: expected 0x-prefixed whole bytes`)
}

/** `value` as `Address` once it is 20 bytes of hex; a `TypeError` naming `what` otherwise. */
export function expectAddress(value: unknown, what: string): Address {
  if (isAddressText(value)) return value
  throw new TypeError(`${what}: expected a 0x-prefixed 20-byte address`)
}

/** `value` as `Hex` once it is 32 bytes of hex; a `TypeError` naming `what` otherwise. */
export function expectBytes32(value: unknown, what: string): Hex {
  if (isBytes32Text(value)) return value
  throw new TypeError(`${what}: expected 32 bytes of hex`)
}
