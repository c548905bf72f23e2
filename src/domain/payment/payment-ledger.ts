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

/**
 * Default owner lease (ms). The owner of an unresolved payment (the request that claimed it, a
 * retry or reconciler that took it over) renews its lease every third of this while it works;
 * once the lease has run out the owner is dead, and a retry or the reconciler takes over.
 * Short, so a crash costs buyers seconds; long enough that a stalled event loop or a slow
 * database round trip never lets a living owner lose its payment.
 */
export const DEFAULT_PAYMENT_LEASE_MS = 15_000

/** Why a payment did not settle, and the answer every copy of the request gets. */
export interface PaymentFailure {
  /**
   * `payment_required`: the payment itself is the problem (the buyer gets a new challenge);
   * `error`: our side or upstream failed (the buyer gets the error code). The HTTP layer picks
   * the status (402, or the code's).
   */
  kind: 'payment_required' | 'error'
  /** A PaymentReason for `payment_required`, an ErrorCode otherwise. */
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
  /**
   * The x402 `payment-identifier` id the buyer sent, if any. It binds to the payer only once
   * the payment verified ({@link PaymentLedger.markVerified}); bound ids are unique per payer,
   * so one id never names two payments (see `findByIdentifier`).
   */
  identifier?: string
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
  /**
   * Until when the payment's owner holds it (database clock). In the past: no living owner, so
   * a retry or the reconciler may take it over.
   */
  leaseUntil: Date
  /** When the payment verified (database clock); null for one that never did. */
  verifiedAt: Date | null
}

/** A settlement transaction that reverted on chain without moving the payment. */
export interface SettlementRevert {
  transaction: Hex
  paymentId: string
  payer: Address
}
/**
 * How {@link PaymentLedger.markVerified} ended: `verified`; `moved` when the payment was no
 * longer `verifying` (someone else moved it); `identifier_taken` when another verified payment
 * of this payer already holds its payment-identifier (nothing changed).
 */
export type MarkVerifiedResult = 'verified' | 'moved' | 'identifier_taken'

/** Claim outcome: this request owns the payment, or someone else does/did. */
export type ClaimResult = { claimed: true } | { claimed: false; existing: PaymentRecord }

/** What {@link PaymentLedger.leaseUnresolved} takes. */
export interface LeaseOptions {
  /**
   * Extra age (ms since the last update) an in-flight payment whose lease ran out must have
   * before it is taken (default 0: an expired lease is enough).
   */
  staleAfterMs?: number
  /** How long the lease keeps other reconcilers (and retries) away. */
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
   * Inserts the payment as `verifying` with an owner lease of `leaseMs` (default
   * {@link DEFAULT_PAYMENT_LEASE_MS}), or re-claims it when it `failed` before (a retry) or
   * when it is still `verifying`/`verified` but its owner's lease ran out (nothing was sent:
   * the owner died before settling). Uniqueness of the authorization makes exactly one
   * concurrent claimer win.
   */
  claim(payment: NewPayment, leaseMs?: number): Promise<ClaimResult>
  /**
   * Applies `update` if the status is one of `from`; false when someone else moved it. Moving
   * to a status that is not in flight also releases the lease: nobody works on it any more.
   */
  transition(id: string, from: readonly PaymentStatus[], update: PaymentUpdate): Promise<boolean>
  /**
   * Moves a `verifying` payment to `verified` once its payment verified: records when, and
   * binds the payment-identifier it carries to its payer (only a verified payment holds one).
   */
  markVerified(id: string): Promise<MarkVerifiedResult>
  /**
   * Writes the hash of a settlement transaction about to be handed to the node, before it is
   * (write-ahead): a compare-and-set from `previous`, the settlement this sender last knew of
   * (null: none), on a payment still `settling` or `settle_pending`. False when the payment
   * moved on or another sender announced first: then nothing may be sent, and whoever resolves
   * the payment next finds the announced transaction and waits for the chain to decide it.
   */
  announceSettlement(id: string, previous: Hex | null, transaction: Hex): Promise<boolean>
  get(id: string): Promise<PaymentRecord | undefined>
  /**
   * The payment `payer` sent under the x402 payment-identifier `identifier`, if any: only a
   * payment that verified holds an identifier.
   */
  findByIdentifier(payer: Address, identifier: string): Promise<PaymentRecord | undefined>
  /**
   * Extends the owner's lease to `leaseMs` from now while the payment is unresolved and the
   * lease is still held; false when it was released or ran out (the owner lost it).
   */
  renewLease(id: string, leaseMs: number): Promise<boolean>
  /**
   * Takes over a `settling` or `settle_pending` payment whose lease ran out (its owner died, or
   * nobody owns it), leasing it for `leaseMs`. Exactly one concurrent taker gets the record.
   */
  takeOver(id: string, leaseMs: number): Promise<PaymentRecord | undefined>
  /**
   * Leases up to `limit` payments due for reconciliation: `settle_pending` ones and in-flight
   * ones whose owner's lease ran out, whose `nextCheckAt` has come, oldest due first. Each is
   * leased (`leaseUntil` and `nextCheckAt` moved `leaseMs` ahead), so other instances'
   * reconcilers and retries keep away meanwhile (PostgreSQL: `FOR UPDATE SKIP LOCKED`). Times
   * are the database's clock.
   */
  leaseUnresolved(options: LeaseOptions): Promise<PaymentRecord[]>
  /**
   * Leaves an unresolved payment for `delayMs` (database clock), counts the attempt and
   * releases its lease (a retry may take it over meanwhile).
   */
  postpone(id: string, delayMs: number): Promise<void>
  getReceipt(id: string): Promise<Receipt | undefined>
  /** Sum of `amount` over settled payments to `payTo`. */
  settledTotal(payTo: Address): Promise<bigint>
  /** How many payments are neither settled nor failed (in flight or `settle_pending`). */
  unresolvedCount(): Promise<number>
  /** Records a reverted settlement (once per transaction; a repeat is ignored). */
  recordSettlementRevert(revert: SettlementRevert): Promise<void>
  /** How many settlements of `payer` reverted in the last `withinMs` (database clock). */
  settlementRevertsWithin(payer: Address, withinMs: number): Promise<number>
  /**
   * Deletes up to `limit` `failed` payments that never verified and whose authorization
   * expired more than `graceSeconds` ago (database clock): nothing was charged, nothing can
   * be any more, and a retry is refused for its window anyway. Returns how many went.
   */
  pruneUnverified(options: { graceSeconds: number; limit: number }): Promise<number>
  close(): Promise<void>
}
