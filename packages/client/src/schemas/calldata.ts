import { z } from 'zod'
import { address, decimal, hex } from './primitives.js'

/** A value that survives `JSON.stringify` unchanged: decoded ABI values, revert arguments. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue }

/** Any JSON value (documented, not constrained: ABI values are whatever the ABI says). */
export const JsonValueSchema = z
  .custom<JsonValue>((v) => v !== undefined)
  .meta({
    type: ['string', 'number', 'boolean', 'null', 'array', 'object'],
    description: 'JSON-safe ABI value: integers over 48 bits are decimal strings, tuples objects.',
  })

/** Why a call was not decoded. */
export const UNDECODED_REASONS = [
  'empty',
  'too_short',
  'too_large',
  'unknown_selector',
  'unknown_command',
  'malformed_arguments',
  'depth_limit',
] as const
export type UndecodedReason = (typeof UNDECODED_REASONS)[number]

/**
 * One named, JSON-safe argument. `type` is the canonical ABI type (tuples spelled out). Integers
 * of 48 bits or fewer are JSON numbers, wider ones decimal strings (viem's decoding convention);
 * tuples with named components are objects.
 */
export const DecodedArgSchema = z.object({
  name: z.string(),
  type: z.string(),
  value: JsonValueSchema,
})
export type DecodedArg = z.output<typeof DecodedArgSchema>

/** A call the decoder did not recognise or could not read; never guessed at. */
export const UnknownCallSchema = z.object({
  selector: hex.nullable().meta({
    description:
      'First four bytes, or null when there are fewer (empty calldata is a plain transfer).',
  }),
  known: z.literal(false),
  reason: z.enum(UNDECODED_REASONS),
})
export type UnknownCall = z.output<typeof UnknownCallSchema>

/** One call made by a container, with where it goes and how. */
export interface NestedCall {
  /** Position from the top-level call, e.g. `multicall[2]`, `execTransaction[0].multicall[1]`. */
  path: string
  /** Address whose code runs (for multicall and Universal Router commands, the container itself). */
  target: `0x${string}`
  /** Wei forwarded with the call, as a decimal string, where the container says. */
  value?: string | undefined
  /** Safe `operation` and proxy `...AndCall` semantics; absent for plain calls and commands. */
  operation?: 'call' | 'delegatecall' | undefined
  /** Multicall3 `allowFailure`, Universal Router's allow-revert flag. */
  allowFailure?: boolean | undefined
  call: DecodedCall
}

/**
 * A call the decoder recognised. For Universal Router commands `selector` is the one-byte command
 * type (e.g. `0x0a`) and `name` the command's name (e.g. `PERMIT2_PERMIT`).
 */
export interface KnownCall {
  selector: `0x${string}`
  known: true
  name: string
  signature: string
  args: DecodedArg[]
  /** Calls this container makes, in execution order. */
  calls?: NestedCall[] | undefined
  /** Nested calls not decoded because the decoder's nested-call bound was reached. */
  omittedCalls?: number | undefined
}

/** Decoded calldata: recognised with named arguments, or reported as unknown. JSON-safe. */
export type DecodedCall = KnownCall | UnknownCall

// Recursive: the interfaces above name the shape for TypeScript (which cannot infer a type that
// refers to itself) and the schemas are annotated with them, so the two cannot disagree.
// Optional fields are `.optional()` (not `exactOptional`): the OpenAPI generator decides
// `required` by whether `undefined` parses.
const NestedCallSchema: z.ZodType<NestedCall> = z.object({
  path: z.string().meta({ example: 'multicall[2]' }),
  target: address,
  value: decimal.optional().meta({ description: 'Wei, decimal string.' }),
  operation: z.enum(['call', 'delegatecall']).optional(),
  allowFailure: z.boolean().optional(),
  get call() {
    return DecodedCallSchema
  },
})

const KnownCallSchema: z.ZodType<KnownCall> = z.object({
  selector: hex.meta({
    description: 'Four-byte selector (one byte for Universal Router commands).',
  }),
  known: z.literal(true),
  name: z.string().meta({ example: 'approve' }),
  signature: z.string().meta({ example: 'approve(address,uint256)' }),
  args: z.array(DecodedArgSchema),
  get calls() {
    return z.array(NestedCallSchema).optional()
  },
  omittedCalls: z.number().int().optional(),
})

/** The calldata decoded (see {@link DecodedCall}). */
export const DecodedCallSchema: z.ZodType<DecodedCall> = z
  .union([KnownCallSchema, UnknownCallSchema])
  .meta({
    id: 'DecodedCall',
    description:
      'The calldata decoded. Known functions carry `name`, `signature` and named `args`; containers (multicall, Multicall3 aggregate3, Universal Router execute, Safe execTransaction) carry their nested `calls` in execution order, each with its `path` (e.g. `multicall[2]`), `target`, and where meaningful `value`, `operation` and `allowFailure`. Unknown or unreadable calldata is `known: false` with a `reason`; it is never guessed. Bounds: depth 4, 64 nested calls (`omittedCalls` counts the rest), 131,072 bytes.',
  })

/** Revert data decoded into what a person can read. All values are JSON-safe. */
export const DecodedRevertSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('empty') }),
    z.object({ kind: z.literal('error'), selector: hex, reason: z.string() }),
    z.object({
      kind: z.literal('panic'),
      selector: hex,
      code: z.number(),
      codeHex: hex,
      meaning: z.string(),
    }),
    z.object({
      kind: z.literal('custom'),
      selector: hex,
      name: z.string().meta({ example: 'ERC20InsufficientBalance' }),
      signature: z.string(),
      args: z.record(z.string(), JsonValueSchema),
    }),
    z.object({ kind: z.literal('unknown'), selector: hex.nullable() }),
  ])
  .meta({
    id: 'DecodedRevert',
    description:
      'Revert data decoded. `kind`: `empty` (no data), `error` (`Error(string)`: `reason`), `panic` (`Panic(uint256)`: `code`, `codeHex`, `meaning`), `custom` (a known custom error of OpenZeppelin ERC-20/721/1155, Ownable, AccessControl, SafeERC20, ERC-1967/UUPS or Permit2: `name`, `signature`, `args`), `unknown` (selector not known; never guessed).',
  })
export type DecodedRevert = z.output<typeof DecodedRevertSchema>

/** Revert data as reported: raw bytes, selector and the decoded form. */
export const RevertSchema = z
  .object({ data: hex, selector: hex.nullable(), decoded: DecodedRevertSchema })
  .meta({ id: 'Revert' })
export type RevertReport = z.output<typeof RevertSchema>
