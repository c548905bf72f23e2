import type { Address } from 'viem'
import type { KnownCall } from '../calldata/decode-calldata.js'
import type { JsonValue } from '../calldata/json-value.js'
import { checksummed, isAddressShaped } from '../evm/checksummed.js'
import type { CallSite } from './call-sites.js'

/** A call site whose call was decoded, with its arguments by name. */
export interface KnownCallSite {
  site: CallSite
  call: KnownCall
  /** Decoded arguments by name. */
  args: Record<string, JsonValue>
  /** What effects are looked up by: the signature, or `ur:NAME` for a Universal Router command. */
  key: string
}

/** The site with its decoded arguments; undefined when its call is unknown (it has no effects). */
export function knownCallSite(site: CallSite): KnownCallSite | undefined {
  const call = site.call
  if (!call.known) return undefined
  const args: Record<string, JsonValue> = {}
  for (const arg of call.args) args[arg.name] = arg.value
  const key = site.kind === 'command' ? `ur:${call.name}` : call.signature
  return { site, call, args, key }
}

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
