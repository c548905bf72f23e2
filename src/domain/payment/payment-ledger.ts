import type { PaymentPayload, SettleResponse } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import type { PreflightResult } from '../preflight/run-preflight.js'
import type { Receipt } from '../receipt/receipt.js'

/**
 * Life of a payment: `verifying -> verified -> settling -> settled`.
 *
 * - `verifying`, `verified`: nothing was sent; `failed` from here is always safe.
 * - `settling` (stored with the preflight result): settlement may have been sent. From here
 *   `failed` is only reached on a facilitator refusal that happens before anything is sent, or
 *   when the chain decides; every other doubt becomes `settle_pending`.
 * - `settle_pending`: the outcome is unknown; the reconciler resolves it from the chain to
 *   `settled` or `failed`.
 */
export type PaymentStatus =
  | 'verifying'
  | 'verified'
  | 'settling'
  | 'settled'
  | 'settle_pending'
  | 'failed'

/** States a request is still working on; others wait for it. */
export const IN_FLIGHT_STATUSES = ['verifying', 'verified', 'settling'] as const

/** Why a payment did not settle, and the answer every copy of the request gets. */
export interface PaymentFailure {
  /** HTTP status answered: 402 (payment problem), 5xx (our side or upstream). */
  status: number
  /** A PaymentReason for 402, an ErrorCode otherwise. */
  code: string
  message: string
  /** The facilitator's own code (x402 invalidReason / errorReason), when it gave one. */
  facilitatorReason?: string
  /**
   * Decided by the chain (the authorization was canceled, used for another transfer, or
   * expired unused): the payment can never settle, so it is never claimed again and every
   * retry gets this answer.
   */
  final?: boolean
}

/** A new payment, claimed by the request that will verify, run and settle it. */
export interface NewPayment {
  /** Identity of the authorization: network, asset, payer and EIP-3009 nonce. */
  id: string
  network: string
  asset: Address
  payer: Address
  nonce: Hex
  payTo: Address
  amount: bigint
  validBefore: bigint
  /** keccak256 of the canonical payment payload: a replay must present the same payment. */
  payloadHash: Hex
  payload: PaymentPayload
  /** keccak256 of the canonical request body: a payment buys one request. */
  requestHash: Hex
}

/** One row of the ledger. */
export interface PaymentRecord extends NewPayment {
  status: PaymentStatus
  /** How many times the payment was claimed (a failed payment may be retried). */
  attempts: number
  result: PreflightResult | null
  settlementTx: Hex | null
  settleResponse: SettleResponse | null
  receiptId: string | null
  failure: PaymentFailure | null
  createdAt: Date
  updatedAt: Date
  /** When the reconciler looks at the payment next (its lease or back-off). */
  nextCheckAt: Date
  /** Reconciler passes that left the payment unresolved (drives the back-off). */
  reconcileAttempts: number
}

/** Claim outcome: this request owns the payment, or someone else does/did. */
export type ClaimResult = { claimed: true } | { claimed: false; existing: PaymentRecord }

/** What {@link PaymentLedger.leaseUnresolved} takes. */
export interface LeaseOptions {
  /** In-flight payments untouched this long belong to a request that died. */
  staleAfterMs: number
  /** How long the lease keeps other reconcilers away. */
  leaseMs: number
  limit: number
  /** Payments this pass already looked at, which it must not take again. */
  excludeIds?: readonly string[]
}

/** Fields written on a transition. */
export interface PaymentUpdate {
  status: PaymentStatus
  result?: PreflightResult
  settlementTx?: Hex
  settleResponse?: SettleResponse
  failure?: PaymentFailure
  /** Stored with the payment in the same transaction; sets `receiptId`. */
  receipt?: Receipt
}

/**
 * The payment ledger and receipt store. Every transition is a compare-and-set on the current
 * status, so two instances sharing one database never both act on one payment.
 */
export interface PaymentLedger {
  /**
   * Inserts the payment as `verifying`, or re-claims it when it `failed` before (a retry).
   * Uniqueness of the authorization makes exactly one concurrent claimer win.
   */
  claim(payment: NewPayment): Promise<ClaimResult>
  /** Applies `update` if the status is one of `from`; false when someone else moved it. */
  transition(id: string, from: readonly PaymentStatus[], update: PaymentUpdate): Promise<boolean>
  get(id: string): Promise<PaymentRecord | undefined>
  /**
   * Leases up to `limit` payments due for reconciliation: `settle_pending` ones, and in-flight
   * ones untouched for `staleAfterMs`, whose `nextCheckAt` has come, oldest due first. Each is
   * leased by moving its `nextCheckAt` `leaseMs` ahead, so another instance's reconciler skips
   * it meanwhile (PostgreSQL: `FOR UPDATE SKIP LOCKED`). Times are the database's clock.
   */
  leaseUnresolved(options: LeaseOptions): Promise<PaymentRecord[]>
  /** Leaves an unresolved payment for `delayMs` (database clock) and counts the attempt. */
  postpone(id: string, delayMs: number): Promise<void>
  getReceipt(id: string): Promise<Receipt | undefined>
  /** Sum of `amount` over settled payments to `payTo`. */
  settledTotal(payTo: Address): Promise<bigint>
  /** How many payments are neither settled nor failed (in flight or `settle_pending`). */
  unresolvedCount(): Promise<number>
  close(): Promise<void>
}
