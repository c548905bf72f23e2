import { type Hex, keccak256, stringToBytes } from 'viem'

/**
 * Canonical JSON (RFC 8785, JCS, for the values this service produces): the value is first
 * reduced to exactly what `JSON.stringify` puts on the wire (undefined members dropped,
 * `toJSON` applied), then re-serialised with object keys sorted by UTF-16 code units, no
 * whitespace, strings and numbers as ECMAScript `JSON.stringify` writes them.
 *
 * Anyone can recompute a hash from the JSON they received: parse it, canonicalise, keccak256.
 *
 * @example canonicalJson({ b: 1, a: [true, null] }) === '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  const wire = JSON.stringify(value)
  if (wire === undefined) throw new TypeError('value has no JSON representation')
  return serialise(JSON.parse(wire) as unknown)
}

function serialise(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(serialise).join(',')}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${serialise(record[key])}`).join(',')}}`
}

/** keccak256 of the UTF-8 bytes of {@link canonicalJson}. */
export function canonicalJsonHash(value: unknown): Hex {
  return keccak256(stringToBytes(canonicalJson(value)))
}
