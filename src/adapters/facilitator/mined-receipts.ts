import type { Hex, TransactionReceipt } from 'viem'
import type { MinedTransaction } from '../../domain/payment/settlement-chain.js'

/**
 * Settlement receipts the built-in facilitator read from the node while settling, kept briefly
 * so the paid call's confirmation (which checks the receipt proves the payment) needs no second
 * read of the same receipt. Each is handed out once; at most `max` are kept, for `ttlMs`.
 * Only receipts our own process read from the chain go here, never a remote facilitator's word.
 */
export interface MinedReceipts {
  put(receipt: TransactionReceipt): void
  /** The receipt of `hash` if this process just read it, removed from the store. */
  take(hash: Hex): MinedTransaction | undefined
}

/** A bounded, short-lived {@link MinedReceipts}. */
export function createMinedReceipts(options: { ttlMs?: number; max?: number } = {}): MinedReceipts {
  const ttlMs = options.ttlMs ?? 60_000
  const max = options.max ?? 1_000
  const entries = new Map<string, { tx: MinedTransaction; expires: number }>()
  return {
    put(receipt) {
      const now = Date.now()
      for (const [key, entry] of entries) {
        if (entry.expires <= now || entries.size >= max) entries.delete(key)
        else break
      }
      entries.set(receipt.transactionHash.toLowerCase(), {
        expires: now + ttlMs,
        tx: toMinedTransaction(receipt),
      })
    },
    take(hash) {
      const key = hash.toLowerCase()
      const entry = entries.get(key)
      if (!entry) return undefined
      entries.delete(key)
      return entry.expires > Date.now() ? entry.tx : undefined
    },
  }
}

/**
 * What the settlement proof reads of a node's transaction receipt, in the domain's
 * `ExecutionStatus` (viem's receipt says `'reverted'` where the domain says `'failure'`).
 */
export function toMinedTransaction(receipt: TransactionReceipt): MinedTransaction {
  return {
    hash: receipt.transactionHash,
    status: receipt.status === 'success' ? 'success' : 'failure',
    blockNumber: receipt.blockNumber,
    logs: receipt.logs.map((log) => ({
      address: log.address,
      topics: log.topics,
      data: log.data,
      logIndex: log.logIndex,
    })),
  }
}
