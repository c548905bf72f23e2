import type { KnownCall } from '../calldata/decode-calldata.js'
import type { JsonValue } from '../calldata/json-value.js'
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
