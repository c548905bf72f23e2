import type { Address } from 'viem'
import type { TypedValue } from './typed-data.js'

/** A struct of a validated message: its fields by name. */
export type Struct = { [field: string]: TypedValue }

// Readers of a message already walked against its types (validate-typed-data.ts), used only
// where the types were matched to a known kind: a field read as an address was checked as one.
// cast: an `address` field of a validated message.
export const addr = (v: TypedValue | undefined) => v as Address
/** A `uint`/`int` field of a validated message (a bigint). */
export const int = (v: TypedValue | undefined) => v as bigint
/** A struct field of a validated message. */
export const struct = (v: TypedValue | undefined) => v as Struct
/** An array field of a validated message. */
export const list = (v: TypedValue | undefined) => v as TypedValue[]
/** A `string` field of a validated message. */
export const text = (v: TypedValue | undefined) => (typeof v === 'string' ? v : '')
