import type { Address, Hex } from 'viem'
import type { Receipt } from '../../src/domain/receipt/receipt.js'
import type { HostileRole } from './schedule.js'

// What the soak records of a run, and what its invariants answer: plain data, so the checks
// (invariants.ts, attack-invariants.ts) are pure functions of it.

/** One HTTP exchange the soak's load made: `network` when no answer came (refused, reset, timeout). */
export interface CallRecord {
  kind: 'paid' | 'unpaid' | 'preflight' | 'forged'
  instance: number
  /** ms since the load started. */
  at: number
  ms: number
  status: number | 'network'
  /** The error body's `error` code, when there is one. */
  code?: string | undefined
  /** A 402's `reason` (why the payment was refused), when there is one. */
  reason?: string | undefined
  /** Whether the body parsed as JSON (a `network` record has none). */
  json: boolean
  retryAfter?: string | null | undefined
}

/** One authorization a buyer signed, and how the service finally answered it (if it did). */
export interface PaymentRecord {
  payer: Address
  nonce: Hex
  /** Who signed it: an honest buyer (undefined) or one of the hostile payers. */
  role?: HostileRole | undefined
  /** The payment-identifier it carried. */
  identifier?: string | undefined
  /** The authorization's `validBefore` (unix seconds). */
  validBefore: number
  /** Every attempt with this payment's header, in order. */
  attempts: CallRecord[]
  /** The final answer: a 200 with its receipt, or a final refusal; absent if none came in time. */
  outcome?:
    | { status: 200; receipt: Receipt; atUnix: number }
    | { status: number; code: string | undefined; reason?: string | undefined; atUnix: number }
}

/** A ledger row, as read from `payments` after recovery. */
export interface LedgerRow {
  payer: Address
  nonce: Hex
  status: string
  amount: bigint
  settlementTx: Hex | null
}

/** An EIP-3009 authorization used on chain: its `AuthorizationUsed` log and the value moved. */
export interface ChainTransfer {
  payer: Address
  nonce: Hex
  tx: Hex
  value: bigint
  to: Address
}

/** One invariant's verdict, with the numbers that back it. */
export interface InvariantResult {
  name: string
  ok: boolean
  detail: string
  /** Up to a few offending items, for diagnosis. */
  examples: string[]
}

/** A `kill -9` the storm made: the instance, and when the signal went (ms since the load started). */
export interface KillRecord {
  instance: number
  at: number
}

/**
 * A window in which no instance could finish a payment on its own account: a database cut
 * (one instance's or all) or an RPC blackout (ms since the load started).
 */
export interface OutageRecord {
  kind: string
  from: number
  to: number
}

/** One forged payment a flood sent: a signature that does not prove `payer` signed it. */
export interface ForgedCall extends CallRecord {
  kind: 'forged'
  /** Which flood of the run (0-based), and the client identity it came from. */
  wave: number
  client: string
  payer: Address
  nonce: Hex
  /** Its authorization's `validBefore` (unix seconds), the attacker's choice. */
  validBefore: number
  /** The payment-identifier it carried: a victim's next id when it was a squat. */
  identifier?: string | undefined
}

/** One transaction a settlement account sent, as the chain shows it. */
export interface SettlerTransaction {
  hash: Hex
  from: Address
  blockNumber: bigint
  /** Its gas limit, as signed. */
  gas: bigint
  gasUsed: bigint
  status: 'success' | 'reverted'
  /** The EIP-3009 authorization it submitted; undefined when its call is no settlement. */
  authorization?: { payer: Address; nonce: Hex } | undefined
}
