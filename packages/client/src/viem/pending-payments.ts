import type { TransactionRequest } from '../client/guard-client.js'
import { GuardError } from '../client/guard-error.js'
import { transactionKey } from './transaction-key.js'

/** A payment that left and whose outcome is unknown, with the very body it paid for. */
export interface PendingPayment {
  paymentSignature: string
  request: TransactionRequest
}

/**
 * Paid mode's memory of payments whose outcome is unknown, by transaction: the next check of
 * the same transaction resumes the payment (with the body it paid for), never pays again.
 */
export interface PendingPayments {
  get(transaction: TransactionRequest): PendingPayment | undefined
  /**
   * After a paid call for `transaction` that sent `request` failed with `error`: keeps its
   * payment while the outcome is unknown, forgets it once the guard refused it.
   */
  failed(transaction: TransactionRequest, request: TransactionRequest, error: unknown): void
  /** The paid call for `transaction` answered: nothing is pending for it any more. */
  answered(transaction: TransactionRequest): void
}

/** An empty {@link PendingPayments}. */
export function createPendingPayments(): PendingPayments {
  const pending = new Map<string, PendingPayment>()
  return {
    get: (transaction) => pending.get(transactionKey(transaction)),
    failed(transaction, request, error) {
      if (!(error instanceof GuardError) || error.paymentSignature === undefined) return
      const key = transactionKey(transaction)
      if (error.paymentPending) {
        pending.set(key, { paymentSignature: error.paymentSignature, request })
      } else {
        pending.delete(key)
      }
    },
    answered: (transaction) => {
      pending.delete(transactionKey(transaction))
    },
  }
}
