import type { Address, Hex } from 'viem'
import { matchKind, type TypedDataKind } from './known-kinds.js'
import type { TypedValue, ValidTypedData } from './typed-data.js'

/** An allowance a signature grants (permits) or a one-off pull it authorises (Permit2 transfers). */
export interface Grant {
  /** Where in the message, e.g. `details[1]`; empty for the message itself. */
  at: string
  owner: Address
  token: Address
  spender: Address
  amount: bigint
  /** DAI `allowed = true`: unlimited by definition. */
  unlimited: boolean
  /** DAI `allowed = false` revokes. */
  revoke: boolean
  /** `allowance` (it stays) or `transfer` (one pull of at most `amount`). */
  use: 'allowance' | 'transfer'
}

/** A time bound of the signature or of what it grants, in seconds since the epoch. */
export interface Deadline {
  field: string
  value: bigint
  /** DAI `expiry = 0`: never expires. */
  never: boolean
}

/** Which nonce the signature consumes, and how to read whether it is the current one. */
export type NonceCheck =
  | { kind: 'counter'; owner: Address; expected: bigint }
  | {
      kind: 'permit2-allowance'
      owner: Address
      token: Address
      spender: Address
      expected: bigint
    }
  | { kind: 'permit2-bitmap'; owner: Address; nonce: bigint }
  | { kind: 'eip3009'; authorizer: Address; nonce: Hex }
  | { kind: 'safe'; expected: bigint }

/** A Seaport offer or consideration item. */
export interface SeaportItem {
  itemType: number
  token: Address
  identifierOrCriteria: bigint
  startAmount: bigint
  endAmount: bigint
  recipient?: Address
}

/** What the typed data is, by structure, and the facts the rules and chain reads need. */
export interface RecognisedTypedData {
  kind: TypedDataKind
  /** The standard's primary type name (`PermitSingle`...); null when unknown. */
  standardName: string | null
  /** The structure is a known kind's but the primary type carries another name. */
  renamed: boolean
  /** Permit2 witness variants: the witness field. */
  witness: { name: string; type: string } | null
  grants: Grant[]
  deadlines: Deadline[]
  nonces: NonceCheck[]
  /** Tokens whose decimals and symbol are read for readable amounts. */
  tokens: Address[]
  /** EIP-3009: the transfer it authorises (token = verifyingContract). */
  authorization?: {
    from: Address
    to: Address
    value: bigint
    validAfter: bigint
    validBefore: bigint
  }
  seaport?: { offerer: Address; offer: SeaportItem[]; consideration: SeaportItem[] }
  safeTx?: { to: Address; value: bigint; operation: number }
}

type Struct = { [field: string]: TypedValue }
// Readers of a message already walked against its types (validate-typed-data.ts), matched here
// by those types: a field the recogniser reads as an address was checked as one.
// cast: an `address` field of a validated message.
const addr = (v: TypedValue | undefined) => v as Address
const int = (v: TypedValue | undefined) => v as bigint
const struct = (v: TypedValue | undefined) => v as Struct
const list = (v: TypedValue | undefined) => v as TypedValue[]

function empty(kind: TypedDataKind): RecognisedTypedData {
  return {
    kind,
    standardName: null,
    renamed: false,
    witness: null,
    grants: [],
    deadlines: [],
    nonces: [],
    tokens: [],
  }
}

function seaportItem(v: TypedValue | undefined): SeaportItem {
  const s = struct(v)
  const item: SeaportItem = {
    itemType: Number(int(s.itemType)),
    token: addr(s.token),
    identifierOrCriteria: int(s.identifierOrCriteria),
    startAmount: int(s.startAmount),
    endAmount: int(s.endAmount),
  }
  if (s.recipient !== undefined) item.recipient = addr(s.recipient)
  return item
}

/**
 * Recognises validated typed data by the structure of its primary type (never by a type or
 * domain name alone: phishing renames them) and extracts grants, deadlines and nonces. The
 * signer is the owner of everything a permit grants (Permit2 and EIP-2612 verify the
 * signature against the owner they are given).
 */
export function recogniseTypedData(data: ValidTypedData, signer: Address): RecognisedTypedData {
  const match = matchKind(data.types, data.primaryType)
  if (!match) return empty('unknown')
  const out = empty(match.known.kind)
  out.standardName = match.known.standardName
  out.renamed = data.primaryType !== match.known.standardName
  out.witness = match.witness ?? null
  const m = data.message
  const verifier = data.domain.verifyingContract

  switch (out.kind) {
    case 'eip2612-permit': {
      const owner = addr(m.owner)
      if (verifier) {
        out.grants.push({
          at: '',
          owner,
          token: verifier,
          spender: addr(m.spender),
          amount: int(m.value),
          unlimited: false,
          revoke: false,
          use: 'allowance',
        })
        out.tokens.push(verifier)
      }
      out.deadlines.push({ field: 'deadline', value: int(m.deadline), never: false })
      out.nonces.push({ kind: 'counter', owner, expected: int(m.nonce) })
      break
    }
    case 'dai-permit': {
      const holder = addr(m.holder)
      const allowed = m.allowed === true
      if (verifier) {
        out.grants.push({
          at: '',
          owner: holder,
          token: verifier,
          spender: addr(m.spender),
          amount: allowed ? 2n ** 256n - 1n : 0n,
          unlimited: allowed,
          revoke: !allowed,
          use: 'allowance',
        })
        out.tokens.push(verifier)
      }
      out.deadlines.push({ field: 'expiry', value: int(m.expiry), never: int(m.expiry) === 0n })
      out.nonces.push({ kind: 'counter', owner: holder, expected: int(m.nonce) })
      break
    }
    case 'permit2-permit-single':
    case 'permit2-permit-batch': {
      const batch = out.kind === 'permit2-permit-batch'
      const details = batch ? list(m.details).map(struct) : [struct(m.details)]
      const spender = addr(m.spender)
      details.forEach((d, i) => {
        const at = batch ? `details[${i}]` : 'details'
        const token = addr(d.token)
        out.grants.push({
          at,
          owner: signer,
          token,
          spender,
          amount: int(d.amount),
          unlimited: false,
          revoke: false,
          use: 'allowance',
        })
        out.tokens.push(token)
        // Permit2 stores expiration 0 as "the block it is used in".
        if (int(d.expiration) !== 0n)
          out.deadlines.push({ field: `${at}.expiration`, value: int(d.expiration), never: false })
        out.nonces.push({
          kind: 'permit2-allowance',
          owner: signer,
          token,
          spender,
          expected: int(d.nonce),
        })
      })
      out.deadlines.push({ field: 'sigDeadline', value: int(m.sigDeadline), never: false })
      break
    }
    case 'permit2-permit-transfer-from':
    case 'permit2-permit-batch-transfer-from':
    case 'permit2-permit-witness-transfer-from':
    case 'permit2-permit-batch-witness-transfer-from': {
      const batch = Array.isArray(m.permitted)
      const permitted = batch ? list(m.permitted).map(struct) : [struct(m.permitted)]
      const spender = addr(m.spender)
      permitted.forEach((p, i) => {
        const token = addr(p.token)
        out.grants.push({
          at: batch ? `permitted[${i}]` : 'permitted',
          owner: signer,
          token,
          spender,
          amount: int(p.amount),
          unlimited: false,
          revoke: false,
          use: 'transfer',
        })
        out.tokens.push(token)
      })
      out.deadlines.push({ field: 'deadline', value: int(m.deadline), never: false })
      out.nonces.push({ kind: 'permit2-bitmap', owner: signer, nonce: int(m.nonce) })
      break
    }
    case 'eip3009-transfer-with-authorization':
    case 'eip3009-receive-with-authorization': {
      const from = addr(m.from)
      out.authorization = {
        from,
        to: addr(m.to),
        value: int(m.value),
        validAfter: int(m.validAfter),
        validBefore: int(m.validBefore),
      }
      if (verifier) out.tokens.push(verifier)
      out.deadlines.push({ field: 'validBefore', value: int(m.validBefore), never: false })
      // cast: the `bytes32 nonce` field of a validated message (checked 0x hex, 32 bytes).
      out.nonces.push({ kind: 'eip3009', authorizer: from, nonce: m.nonce as Hex })
      break
    }
    case 'seaport-order': {
      const offer = list(m.offer).map(seaportItem)
      const consideration = list(m.consideration).map(seaportItem)
      out.seaport = { offerer: addr(m.offerer), offer, consideration }
      // ERC-20 items (itemType 1): their decimals make "almost nothing" measurable.
      for (const item of [...offer, ...consideration])
        if (item.itemType === 1) out.tokens.push(item.token)
      out.deadlines.push({ field: 'endTime', value: int(m.endTime), never: false })
      break
    }
    case 'safe-tx': {
      out.safeTx = { to: addr(m.to), value: int(m.value), operation: Number(int(m.operation)) }
      out.nonces.push({ kind: 'safe', expected: int(m.nonce) })
      break
    }
  }
  out.tokens = [...new Map(out.tokens.map((t) => [t.toLowerCase(), t])).values()]
  return out
}
