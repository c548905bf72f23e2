import type { JsonValue } from '@pre-send-guard/client/schemas'

/** A value that survives `JSON.stringify` unchanged: decoded ABI values after {@link toJsonValue}. */
export type { JsonValue }

/**
 * Converts a value decoded by viem into JSON-safe data: bigint becomes a decimal string (uint256
 * does not fit a JSON number), arrays and tuples recurse, anything else unexpected becomes a string.
 */
export function toJsonValue(value: unknown): JsonValue {
  if (typeof value === 'bigint') return value.toString(10)
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value)
  if (value === null || value === undefined) return null
  if (Array.isArray(value)) return value.map(toJsonValue)
  if (typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {}
    for (const [k, v] of Object.entries(value)) out[k] = toJsonValue(v)
    return out
  }
  return String(value)
}
