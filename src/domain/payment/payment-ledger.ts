import type { PaymentPayload, SettleResponse } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import type { PreflightResult } from '../preflight/run-preflight.js'
import type { Receipt } from '../receipt/receipt.js'

/**
 * Life of a payment. `verifying -> verified -> preflight_done -> settling -> settled`, or
 * `failed` from any in-flight state, or `settle_pending` when the settle outcome is unknown
 * (resolved later from the chain to `settled` or `failed`).
 */
export type PaymentStatus =
  | 'verifying'
  | 'verified'
  | 'preflight_done'
  | 'settling'
  | 'settled'
  | 'settle_pending'
  | 'failed'

/** States a request is still working on; others wait for it. */
export const IN_FLIGHT_STATUSES = ['verifying', 'verified', 'preflight_done', 'settling'] as const

/** Why a payment did not settle, and the answer every copy of the request gets. */
export interface PaymentFailure {
  /** HTTP status answered: 402 (payment problem), 5xx (our side or upstream). */
  status: number
  /** A PaymentReason for 402, an ErrorCode otherwise. */
  code: string
  message: string
  /** The facilitator's own code (x402 invalidReason / errorReason), when it gave one. */
  facilitatorReason?: string
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
}

/** Claim outcome: this request owns the payment, or someone else does/did. */
export type ClaimResult = { claimed: true } | { claimed: false; existing: PaymentRecord }

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
  /** Payments to reconcile: `settle_pending`, and in-flight ones not touched since `staleBefore`. */
  listUnresolved(staleBefore: Date): Promise<PaymentRecord[]>
  getReceipt(id: string): Promise<Receipt | undefined>
  /** Sum of `amount` over settled payments to `payTo`. */
  settledTotal(payTo: Address): Promise<bigint>
  close(): Promise<void>
}
