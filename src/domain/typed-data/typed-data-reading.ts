import type { TypedDataKind } from '@pre-send-guard/client/types'
import type { Address, Hex } from 'viem'

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
  /** DAI `expiry = 0`, a 1inch order without expiration: never expires. */
  never: boolean
}

/** Which nonce the signature consumes, and how to read whether it is the current one. */
export type NonceCheck =
  | {
      kind: 'counter'
      owner: Address
      expected: bigint
      /** The counter's getter on the verifying contract: `nonces(owner)` unless named. */
      getter?: 'nonce' | 'userNonce'
    }
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

/** A token amount at a field of the message. */
export interface OrderLeg {
  /** The amount's field path, e.g. `sellAmount` or `witness.baseOutputs[1].startAmount`. */
  path: string
  /** The token; the zero address or 0xEeee…EEeE is native ETH where the protocol says so. */
  token: Address
  amount: bigint
}

/** What an order pays out, and to whom. */
export interface OrderPayout extends OrderLeg {
  /** The recipient's field path. */
  recipientPath: string
  /** The recipient as signed. */
  recipient: Address
  /** Whom the protocol pays when `recipient` is the zero address (CoW: the owner; 1inch: the maker). */
  zeroMeans?: { role: string; address: Address }
}

/** A signed order: what the signer gives and what is paid for it, to whom. */
export interface OrderReading {
  protocol: string
  /** One line about the order's kind: `sell order, partially fillable`. */
  terms: string
  gives: OrderLeg[]
  gets: OrderPayout[]
  /** UniswapX: the Permit2 spender that takes the input and the reactor the order names. */
  settlement?: { spender: Address; reactor: Address; expected: readonly Address[]; label: string }
}

/** A signature that lets another account act for the signer at a protocol (or revokes that). */
export interface OperatorReading {
  protocol: string
  /** The operator's field path (`authorized`, `manager`, `delegatee`). */
  path: string
  operator: Address
  /** False for a revocation (`isAuthorized = false`, `isAllowed = false`, a zero delegation). */
  granted: boolean
  /** What the operator may then do, in words. */
  power: string
  /** Aave: the borrowing power granted, in the debt token's units. */
  amount?: { token: Address; value: bigint }
}

/** An address the screen does not understand the role of, where the message names it. */
export interface NamedAddress {
  path: string
  address: Address
}

/** An amount-like field beside a token-like address in the same struct. */
export interface NamedAmount {
  path: string
  token: Address
  tokenPath: string
  amount: bigint
}

/** The part of a message the screen does not understand: the whole message, or a Permit2 witness. */
export interface UnreadParties {
  scope: 'message' | 'witness'
  addresses: NamedAddress[]
  amounts: NamedAmount[]
}

/** What the typed data is, by structure (and domain), and the facts the rules and chain reads need. */
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
  /** CoW, 1inch and UniswapX orders. */
  order?: OrderReading
  /** Morpho, Compound III and Aave authorizations. */
  operator?: OperatorReading
  /** Unknown kinds and unrecognised Permit2 witnesses: the addresses and amounts they name. */
  unread?: UnreadParties
}
