import type { DecodedCall } from '@pre-send-guard/client/schemas'
import type { Address, Hex } from 'viem'

/**
 * Bounds that keep hostile calldata cheap to decode. Honest containers stay far below them (a
 * Universal Router swap nests 2-6 commands, a Safe one call); anything beyond is reported as
 * incomplete, which the screen turns into a finding rather than silently skipping.
 */
export const DECODE_LIMITS = {
  /** Container levels below the top-level call that are opened (multicall in a Safe in ... ). */
  maxDepth: 4,
  /** Nested calls decoded in the whole tree; later ones are counted in `omittedCalls`. */
  maxNestedCalls: 64,
  /** Calldata larger than this (bytes) is not decoded at all. */
  maxCalldataBytes: 131_072,
} as const

// The decoded-call answer shapes are declared with the other answers, in the client package's
// schemas (`@pre-send-guard/client/schemas`); the decoder's own working types stay here.
export type {
  DecodedArg,
  DecodedCall,
  KnownCall,
  NestedCall,
  UndecodedReason,
  UnknownCall,
} from '@pre-send-guard/client/schemas'

/**
 * A call a container makes, before it is decoded (internal to the decoder). Most children are
 * function calls decoded by selector; router commands and v4 actions are not, so they bring
 * their own `decode`, which the tree walker runs only within the depth and call budget.
 */
export interface Child {
  target: Address
  data: Hex
  value?: bigint
  operation?: 'call' | 'delegatecall'
  allowFailure?: boolean
  /** Own decoder for a child that is not a function call. */
  decode?: () => Opened
}

/**
 * A decoded call and, when it is a container, the calls it makes, which the tree walker opens
 * one level deeper under `<path>.<name>`: decoders of one shape never walk the tree themselves.
 */
export interface Opened {
  call: DecodedCall
  children?: readonly Child[]
}
