import type { TypedDataKind } from '@pre-send-guard/client/types'
import type { Address } from 'viem'
import type { TypedField, TypedTypes } from './typed-data.js'
import type {
  Deadline,
  Grant,
  NonceCheck,
  OperatorReading,
  OrderReading,
} from './typed-data-reading.js'
import type { Struct } from './typed-message.js'

/** Every kind of typed data the screen decodes; anything else is `unknown` (shared vocabulary). */
export type { TypedDataKind } from '@pre-send-guard/client/types'

/** `'address owner,uint256 value'` as EIP-712 fields, in the order the type string lists them. */
export function fields(spec: string): TypedField[] {
  return spec.split(',').map((part) => {
    const [type = '', name = ''] = part.trim().split(' ')
    return { name, type }
  })
}

/** A known kind: its standard type name and types, recognised by structure (see `shapeOf`). */
export interface KnownKind {
  kind: Exclude<TypedDataKind, 'unknown'>
  /** The primary type's name in the standard; a message of this shape under another name is `renamed`. */
  standardName: string
  primaryType: string
  types: TypedTypes
  /** Permit2 witness variants: the primary type has one more field of any type, after these. */
  witness?: true
}

/**
 * The EIP-712 domain a protocol fixes: a message of its structure under another domain is not
 * that protocol's (a copy of CoW's types at another contract is no CoW order). The chain id must
 * be the guard's chain and a `verifyingContract` is always required.
 */
export interface DomainRule {
  /** The domain's fields, in the order the contract hashes them (its `EIP712Domain` type). */
  fields: readonly string[]
  name?: string
  version?: string
  /** Where the protocol has one contract on Base. */
  verifyingContract?: Address
}

/** What a protocol kind reads from its message: who may do what, for how long, with which nonce. */
export interface ProtocolReading {
  order?: OrderReading
  operator?: OperatorReading
  grants: Grant[]
  deadlines: Deadline[]
  nonces: NonceCheck[]
  tokens: Address[]
}

/**
 * A protocol's typed-data kind, its knowledge in one place: the types its contract hashes (the
 * type string, checked against the published typehash in test/typed-data), the domain it
 * fixes, and the role of each field.
 */
export interface ProtocolKind extends KnownKind {
  domain: DomainRule
  /** The field that carries a Permit2 witness, reported as `witness` in the answer. */
  witnessField?: string
  /** Reads the roles of a validated message whose types and domain matched. */
  read(message: Struct, context: { signer: Address; verifyingContract: Address }): ProtocolReading
}
