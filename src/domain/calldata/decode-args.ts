import type { AbiParameter } from 'viem'
import { formatAbiParams } from 'viem/utils'
import type { DecodedArg } from './decoded-call.js'
import { type JsonValue, toJsonValue } from './json-value.js'

/** Names each decoded value after its parameter (its index when unnamed); undefined on a count mismatch. */
export function namedArgs(
  params: readonly AbiParameter[],
  values: readonly unknown[],
): DecodedArg[] | undefined {
  if (values.length !== params.length) return undefined
  return params.map((param, i) => ({
    name: param.name && param.name.length > 0 ? param.name : String(i),
    type: formatAbiParams([param]),
    value: toJsonValue(values[i]),
  }))
}

/**
 * Honest ABI encoding never yields more text than it was given (each word becomes at most one
 * address, decimal or hex string), but a hostile encoding can point many offsets at one blob and
 * multiply it. Such calldata is refused as malformed rather than reported at its inflated size.
 */
export function withinOutputBound(args: readonly DecodedArg[], data: string): boolean {
  const limit = data.length * 2 + 4096
  let size = 0
  const stack: JsonValue[] = args.map((a) => a.value)
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') size += v.length
    else if (Array.isArray(v)) for (const item of v) stack.push(item)
    else if (v !== null && typeof v === 'object')
      for (const item of Object.values(v)) stack.push(item)
    else size += 8
    if (size > limit) return false
  }
  return true
}
