import { REQUEST_LIMITS } from '@pre-send-guard/client/types'
import type { Address, Hex } from 'viem'
import { AppError, type ErrorIssue } from '../../errors.js'

/** One field of an EIP-712 struct type, as `eth_signTypedData_v4` carries it. */
export interface TypedField {
  name: string
  type: string
}

/** Struct types by name; `EIP712Domain` is separate (see {@link ValidTypedData.domainFields}). */
export type TypedTypes = Record<string, readonly TypedField[]>

/**
 * A message value after validation: integers are bigints, addresses checksummed, bytes
 * lower-case hex, structs plain objects with exactly their type's fields.
 */
export type TypedValue = bigint | boolean | string | TypedValue[] | { [field: string]: TypedValue }

/** The domain as presented, normalised (only the fields its `EIP712Domain` type signs). */
export interface TypedDomain {
  name?: string
  version?: string
  chainId?: bigint
  verifyingContract?: Address
  salt?: Hex
}

/** Typed data that a wallet can sign exactly as given, with the digest it would sign. */
export interface ValidTypedData {
  domain: TypedDomain
  /** The `EIP712Domain` fields in the order they are hashed. */
  domainFields: readonly TypedField[]
  /** Every struct type but `EIP712Domain`. */
  types: TypedTypes
  primaryType: string
  message: { [field: string]: TypedValue }
  /** `keccak256(0x1901 || domainSeparator || hashStruct(message))`: what the signer signs. */
  digest: Hex
  domainSeparator: Hex
}

/**
 * Bounds on what the route accepts, on top of the body size limit. Honest typed data (permits,
 * orders, Safe transactions, x402 payments) stays far below each.
 */
export const TYPED_DATA_LIMITS = REQUEST_LIMITS.typedData

/** Typed data that cannot be signed as given: 422 `invalid_typed_data`, with where and why. */
export class InvalidTypedDataError extends AppError {
  override name = 'InvalidTypedDataError'
  constructor(path: string, message: string) {
    const issues: ErrorIssue[] = [{ path, message }]
    super('invalid_typed_data', `invalid typed data at ${path}: ${message}`, { issues })
  }
}
