import type { Address } from 'viem'
import type {
  BundleResult,
  Finding,
  PreflightResult,
  TypedDataResult,
} from '../client/guard-responses.js'
import type { PaidPreflight, TransactionRequest, TypedDataJson } from '../client/guard-types.js'
import type { ReceiptVerification } from '../client/verify-receipt.js'

// What the guard said, as the viem wrappers hand it over: apart from the wrappers, so their
// errors and helpers can name these shapes without importing the wrappers back.

/** Which route the wrapper asks: the free read-only preflight, or the paid one with a receipt. */
export type GuardMode = 'read-only' | 'paid'

/** What the guard said about one transaction. */
export interface GuardCheck {
  mode: GuardMode
  /** The body the guard checked. */
  transaction: TransactionRequest
  verdict: PreflightResult['verdict']
  findings: Finding[]
  result: PreflightResult
  /** Paid mode: the receipt, its settlement and its verification against discovery. */
  paid?: Pick<PaidPreflight, 'receipt' | 'settlement'> & { verification: ReceiptVerification }
}

/**
 * What the guard said about a batch of calls (EIP-5792 `sendCalls`, or a list given to
 * `preSendGuard.checkBatch`): asked of the free bundle route, which simulates them in order.
 * Batches have no paid route: no receipt, whatever the mode.
 */
export interface BatchCheck {
  mode: 'read-only'
  transactions: TransactionRequest[]
  verdict: BundleResult['verdict']
  /** Every transaction's findings, in transaction order. */
  findings: Finding[]
  result: BundleResult
}

/** What the guard said about one piece of typed data. */
export interface TypedDataCheck {
  signer: Address
  /** The typed data checked, in the `eth_signTypedData_v4` JSON form. */
  typedData: TypedDataJson
  verdict: TypedDataResult['verdict']
  findings: Finding[]
  result: TypedDataResult
}
