import type { TransactionRequest } from '../client/guard-client.js'
import { transactionKey } from './transaction-key.js'

/**
 * Transactions a named action already checked, while it sends them: the guarded transport lets
 * them pass instead of asking the guard a second time. Counted by body, so two identical sends
 * in flight each keep their own approval.
 */
export interface ApprovedSends {
  has(transaction: TransactionRequest): boolean
  /** Runs `send` with `transaction` approved, and withdraws the approval when it settles. */
  during<T>(transaction: TransactionRequest, send: () => Promise<T>): Promise<T>
}

/** An empty {@link ApprovedSends}. */
export function createApprovedSends(): ApprovedSends {
  const approved = new Map<string, number>()
  return {
    has: (transaction) => approved.has(transactionKey(transaction)),
    async during(transaction, send) {
      const key = transactionKey(transaction)
      approved.set(key, (approved.get(key) ?? 0) + 1)
      try {
        return await send()
      } finally {
        const left = (approved.get(key) ?? 1) - 1
        if (left > 0) approved.set(key, left)
        else approved.delete(key)
      }
    },
  }
}
