import type { Address, Hex } from 'viem'
import type { JsonValue } from './json-value.js'

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

/**
 * One named, JSON-safe argument. `type` is the canonical ABI type (tuples spelled out). Integers
 * of 48 bits or fewer are JSON numbers, wider ones decimal strings (viem's decoding convention);
 * tuples with named components are objects.
 */
export interface DecodedArg {
  name: string
  type: string
  value: JsonValue
}

/** Why a call was not decoded. */
export type UndecodedReason =
  | 'empty'
  | 'too_short'
  | 'too_large'
  | 'unknown_selector'
  | 'unknown_command'
  | 'malformed_arguments'
  | 'depth_limit'

/**
 * A call the decoder recognised. For Universal Router commands `selector` is the one-byte command
 * type (e.g. `0x0a`) and `name` the command's name (e.g. `PERMIT2_PERMIT`).
 */
export interface KnownCall {
  selector: Hex
  known: true
  name: string
  signature: string
  args: DecodedArg[]
  /** Calls this container makes, in execution order. */
  calls?: NestedCall[]
  /** Nested calls not decoded because {@link DECODE_LIMITS}.maxNestedCalls was reached. */
  omittedCalls?: number
}

/** A call the decoder did not recognise or could not read; never guessed at. */
export interface UnknownCall {
  /** First four bytes, or null when there are fewer (empty calldata is a plain transfer). */
  selector: Hex | null
  known: false
  reason: UndecodedReason
}

/** Decoded calldata: recognised with named arguments, or reported as unknown. JSON-safe. */
export type DecodedCall = KnownCall | UnknownCall

/** One call made by a container, with where it goes and how. */
export interface NestedCall {
  /** Position from the top-level call, e.g. `multicall[2]`, `execTransaction[0].multicall[1]`. */
  path: string
  /** Address whose code runs (for multicall and Universal Router commands, the container itself). */
  target: Address
  /** Wei forwarded with the call, as a decimal string, where the container says. */
  value?: string
  /** Safe `operation` and proxy `...AndCall` semantics; absent for plain calls and commands. */
  operation?: 'call' | 'delegatecall'
  /** Multicall3 `allowFailure`, Universal Router's allow-revert flag. */
  allowFailure?: boolean
  call: DecodedCall
}

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
