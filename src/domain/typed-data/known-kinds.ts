import type { Address } from 'viem'
import { type DomainRule, fields, type KnownKind, type ProtocolKind } from './kind-definition.js'
import { aaveCreditDelegation } from './protocols/aave-credit-delegation.js'
import { compoundAuthorization } from './protocols/compound-authorization.js'
import { cowOrder } from './protocols/cow-order.js'
import { morphoAuthorization } from './protocols/morpho-authorization.js'
import { oneInchLimitOrder } from './protocols/one-inch-limit-order.js'
import {
  uniswapxExclusiveDutchOrder,
  uniswapxPriorityOrder,
  uniswapxV2DutchOrder,
} from './protocols/uniswapx-orders.js'
import type { TypedDomain, TypedField, TypedTypes } from './typed-data.js'

/** Every kind of typed data the screen decodes; anything else is `unknown` (shared vocabulary). */
export type { TypedDataKind } from '@pre-send-guard/client/types'

const f = fields

const PERMIT_DETAILS = f('address token,uint160 amount,uint48 expiration,uint48 nonce')
const TOKEN_PERMISSIONS = f('address token,uint256 amount')
const AUTHORIZATION = f(
  'address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce',
)

/**
 * The protocols' kinds, recognised by domain and structure together: tried before the
 * standard kinds, so a UniswapX order under Permit2's domain is a UniswapX order and the same
 * structure elsewhere is only a Permit2 witness transfer.
 */
export const PROTOCOL_KINDS: readonly ProtocolKind[] = [
  cowOrder,
  oneInchLimitOrder,
  uniswapxExclusiveDutchOrder,
  uniswapxV2DutchOrder,
  uniswapxPriorityOrder,
  morphoAuthorization,
  compoundAuthorization,
  aaveCreditDelegation,
]

/** The standard kinds, exactly as their contracts hash them. */
export const KNOWN_KINDS: readonly KnownKind[] = [
  {
    kind: 'eip2612-permit',
    standardName: 'Permit',
    primaryType: 'Permit',
    types: {
      Permit: f('address owner,address spender,uint256 value,uint256 nonce,uint256 deadline'),
    },
  },
  {
    kind: 'dai-permit',
    standardName: 'Permit',
    primaryType: 'Permit',
    types: {
      Permit: f('address holder,address spender,uint256 nonce,uint256 expiry,bool allowed'),
    },
  },
  {
    kind: 'permit2-permit-single',
    standardName: 'PermitSingle',
    primaryType: 'PermitSingle',
    types: {
      PermitSingle: f('PermitDetails details,address spender,uint256 sigDeadline'),
      PermitDetails: PERMIT_DETAILS,
    },
  },
  {
    kind: 'permit2-permit-batch',
    standardName: 'PermitBatch',
    primaryType: 'PermitBatch',
    types: {
      PermitBatch: f('PermitDetails[] details,address spender,uint256 sigDeadline'),
      PermitDetails: PERMIT_DETAILS,
    },
  },
  {
    kind: 'permit2-permit-transfer-from',
    standardName: 'PermitTransferFrom',
    primaryType: 'PermitTransferFrom',
    types: {
      PermitTransferFrom: f(
        'TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline',
      ),
      TokenPermissions: TOKEN_PERMISSIONS,
    },
  },
  {
    kind: 'permit2-permit-batch-transfer-from',
    standardName: 'PermitBatchTransferFrom',
    primaryType: 'PermitBatchTransferFrom',
    types: {
      PermitBatchTransferFrom: f(
        'TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline',
      ),
      TokenPermissions: TOKEN_PERMISSIONS,
    },
  },
  {
    kind: 'permit2-permit-witness-transfer-from',
    standardName: 'PermitWitnessTransferFrom',
    primaryType: 'PermitWitnessTransferFrom',
    witness: true,
    types: {
      PermitWitnessTransferFrom: f(
        'TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline',
      ),
      TokenPermissions: TOKEN_PERMISSIONS,
    },
  },
  {
    kind: 'permit2-permit-batch-witness-transfer-from',
    standardName: 'PermitBatchWitnessTransferFrom',
    primaryType: 'PermitBatchWitnessTransferFrom',
    witness: true,
    types: {
      PermitBatchWitnessTransferFrom: f(
        'TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline',
      ),
      TokenPermissions: TOKEN_PERMISSIONS,
    },
  },
  // EIP-3009's two authorizations share one structure; only the type name (and so the type
  // hash the token checks) tells them apart: the name decides, and a renamed one is read as a
  // transfer (the first listed).
  {
    kind: 'eip3009-transfer-with-authorization',
    standardName: 'TransferWithAuthorization',
    primaryType: 'TransferWithAuthorization',
    types: { TransferWithAuthorization: AUTHORIZATION },
  },
  {
    kind: 'eip3009-receive-with-authorization',
    standardName: 'ReceiveWithAuthorization',
    primaryType: 'ReceiveWithAuthorization',
    types: { ReceiveWithAuthorization: AUTHORIZATION },
  },
  {
    kind: 'seaport-order',
    standardName: 'OrderComponents',
    primaryType: 'OrderComponents',
    types: {
      OrderComponents: f(
        'address offerer,address zone,OfferItem[] offer,ConsiderationItem[] consideration,uint8 orderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 counter',
      ),
      OfferItem: f(
        'uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount',
      ),
      ConsiderationItem: f(
        'uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount,address recipient',
      ),
    },
  },
  {
    kind: 'safe-tx',
    standardName: 'SafeTx',
    primaryType: 'SafeTx',
    types: {
      SafeTx: f(
        'address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce',
      ),
    },
  },
]

/**
 * The structure of a type with every struct name erased: field names and types, struct fields
 * replaced by their own structure. Renaming a type (phishing does) leaves it unchanged; renaming
 * or retyping a field changes it. Recursive types end in `@` where they recur.
 */
export function shapeOf(types: TypedTypes, type: string, seen: readonly string[] = []): string {
  const array = /^(.*)(\[[0-9]*\])$/.exec(type)
  if (array) return `${shapeOf(types, array[1] ?? '', seen)}${array[2]}`
  const fields = types[type]
  if (!fields) return type
  if (seen.includes(type)) return '@'
  return `(${fields.map((fl) => `${shapeOf(types, fl.type, [...seen, type])} ${fl.name}`).join(',')})`
}

/** Whether a domain is the one a protocol fixes, on the guard's chain. */
export function domainFits(
  rule: DomainRule,
  domain: TypedDomain,
  domainFields: readonly TypedField[],
  chainId: number,
): boolean {
  const same = (a: Address | undefined, b: Address) => a?.toLowerCase() === b.toLowerCase()
  return (
    domainFields.map((fl) => fl.name).join(',') === rule.fields.join(',') &&
    domain.chainId === BigInt(chainId) &&
    domain.verifyingContract !== undefined &&
    (rule.name === undefined || domain.name === rule.name) &&
    (rule.version === undefined || domain.version === rule.version) &&
    (rule.verifyingContract === undefined || same(domain.verifyingContract, rule.verifyingContract))
  )
}

/** A match: the kind, and the witness field of Permit2 witness variants. */
export interface KindMatch {
  known: KnownKind | ProtocolKind
  witness?: { name: string; type: string }
}

/**
 * Which known kind a primary type is: a protocol kind when its structure and its domain both
 * fit (`fits`), else a standard kind by structure alone; witness variants allow one extra field.
 */
export function matchKind(
  types: TypedTypes,
  primaryType: string,
  fits: (rule: DomainRule) => boolean = () => false,
): KindMatch | undefined {
  const shape = shapeOf(types, primaryType)
  const fields = types[primaryType] ?? []
  for (const known of PROTOCOL_KINDS) {
    if (shape !== shapeOf(known.types, known.primaryType) || !fits(known.domain)) continue
    const witness = fields.find((fl) => fl.name === known.witnessField)
    return witness ? { known, witness: { name: witness.name, type: witness.type } } : { known }
  }
  const matches: KindMatch[] = []
  for (const known of KNOWN_KINDS) {
    const expected = shapeOf(known.types, known.primaryType)
    if (!known.witness) {
      if (shape === expected) matches.push({ known })
      continue
    }
    // Permit2 appends `<WitnessType> <name>` to the type string; any struct type fits there.
    const last = fields[fields.length - 1]
    if (!last || types[last.type.replace(/(\[[0-9]*\])+$/, '')] === undefined) continue
    const withoutWitness = { ...types, [primaryType]: fields.slice(0, -1) }
    if (shapeOf(withoutWitness, primaryType) === expected) {
      matches.push({ known, witness: { name: last.name, type: last.type } })
    }
  }
  // Structures shared by two kinds (EIP-3009's) are told apart by name, else the first wins.
  return matches.find((m) => m.known.standardName === primaryType) ?? matches[0]
}
