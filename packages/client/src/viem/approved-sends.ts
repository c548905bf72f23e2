import type { TransactionRequest } from '../client/guard-client.js'
import type { AuthorizationToJudge } from './authorizations-to-judge.js'
import { transactionKey } from './transaction-key.js'

/**
 * Transactions a named action already checked, while it sends them: the guarded transport lets
 * them pass instead of asking the guard a second time. Counted by body (a type-4 transaction's
 * authorizations included), so two identical sends in flight each keep their own approval.
 */
export interface ApprovedSends {
  has(transaction: TransactionRequest, authorizations?: readonly AuthorizationToJudge[]): boolean
  /** Runs `send` with `transaction` approved, and withdraws the approval when it settles. */
  during<T>(
    transaction: TransactionRequest,
    authorizations: readonly AuthorizationToJudge[],
    send: () => Promise<T>,
  ): Promise<T>
}

/** An empty {@link ApprovedSends}. */
export function createApprovedSends(): ApprovedSends {
  const approved = new Map<string, number>()
  return {
    has: (transaction, authorizations = []) =>
      approved.has(transactionKey(transaction, authorizations)),
    async during(transaction, authorizations, send) {
      const key = transactionKey(transaction, authorizations)
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
