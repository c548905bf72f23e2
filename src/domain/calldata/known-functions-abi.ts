import type { Abi } from 'viem'
import { PROTOCOL_MODULES } from '../protocols/protocol-modules.js'

/**
 * Functions the calldata decoder knows by selector: every protocol module's ABI
 * (`src/domain/protocols/protocol-modules.ts`), one entry per selector across them. Where two
 * standards share a selector (ERC-20 and ERC-721's `approve`/`transferFrom`), the one entry uses
 * neutral argument names.
 */
export const KNOWN_FUNCTIONS_ABI: Abi = PROTOCOL_MODULES.flatMap((module) => module.abi)
