import type { CatalogueRow } from './protocol-module.js'
import { PROTOCOL_MODULES } from './protocol-modules.js'

/**
 * The protocol catalogue: everyday protocol functions an agent calls, and which of their
 * arguments name **whose** the money becomes. Each module declares its rows
 * (`ProtocolModule.catalogue`), keyed by the canonical signature of a function of its ABI, so
 * the decoder names their arguments; `beneficiaries` are dot paths into those arguments
 * (`params.recipient` reads a tuple's field).
 */

/** A catalogued function: its row, and the canonical signature (`name(types)`) it is found by. */
export interface ProtocolFunction extends CatalogueRow {
  signature: string
}

/** Every catalogued function, module by module. */
export const PROTOCOL_FUNCTIONS: readonly ProtocolFunction[] = PROTOCOL_MODULES.flatMap((module) =>
  Object.entries(module.catalogue ?? {}).flatMap(([signature, row]) => {
    if (row === undefined) return []
    const { protocol, ...rest } = row
    return [{ protocol, signature, ...rest }]
  }),
)

const BY_SIGNATURE: ReadonlyMap<string, ProtocolFunction> = new Map(
  PROTOCOL_FUNCTIONS.map((f) => [f.signature, f] as const),
)

/** The catalogued function with this canonical signature (`name(types)`), if any. */
export function protocolFunction(signature: string): ProtocolFunction | undefined {
  return BY_SIGNATURE.get(signature)
}
