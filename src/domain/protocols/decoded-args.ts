import type { JsonValue } from '@pre-send-guard/client/schemas'
import type { Address } from 'viem'
import { checksummed, isAddressShaped } from '../evm/checksummed.js'

/**
 * Readers of decoded arguments (`DecodedArg.value`, JSON data): each answers undefined or empty
 * for a value of another shape, so hostile calldata never makes a reader throw.
 */

/** A decoded address argument, checksummed; undefined when it is not an address. */
export function addr(value: JsonValue | undefined): Address | undefined {
  return isAddressShaped(value) ? checksummed(value) : undefined
}

/** A decoded integer argument; undefined when it is not a non-negative integer. */
export function big(value: JsonValue | undefined): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  return typeof value === 'string' && /^[0-9]{1,80}$/.test(value) ? BigInt(value) : undefined
}

/** A decoded argument as detail text: strings as they are, anything else as JSON. */
export function str(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** A decoded tuple argument's fields; empty when it is not a tuple. */
export function obj(value: JsonValue | undefined): Record<string, JsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {}
}

/** A decoded array argument's items; empty when it is not an array. */
export function list(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : []
}
