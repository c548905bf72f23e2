import { type Address, type Hex, isAddressEqual, type TransactionReceipt } from 'viem'

/** A settlement transaction the settler sent, as mined: what it cost, and whether it reverted. */
export interface MinedSettlement {
  transaction: Hex
  status: 'success' | 'reverted'
  gasUsed: bigint
  /** Wei per gas actually paid (base fee + tip). */
  effectiveGasPrice: bigint
}

/** Receipts of the settlement account's transactions, each reported once. */
export interface SettlementMeter {
  /** Reports `receipt` if the settler sent it and it was not reported before. */
  mined(receipt: TransactionReceipt): void
}

/**
 * Counts what the settlement account spends: every receipt of one of its transactions that
 * this process reads (the facilitator's wait after sending, or a later read by the reconciler
 * when that wait timed out) is reported to `report` once. Remembers the last `max` hashes.
 */
export function createSettlementMeter(
  settler: Address,
  report: ((mined: MinedSettlement) => void) | undefined,
  max = 10_000,
): SettlementMeter {
  const seen = new Set<Hex>()
  return {
    mined(receipt) {
      if (!report || !isAddressEqual(receipt.from, settler)) return
      const hash = receipt.transactionHash
      if (seen.has(hash)) return
      seen.add(hash)
      if (seen.size > max) {
        const oldest = seen.values().next().value
        if (oldest !== undefined) seen.delete(oldest)
      }
      report({
        transaction: hash,
        status: receipt.status,
        gasUsed: receipt.gasUsed,
        effectiveGasPrice: receipt.effectiveGasPrice,
      })
    },
  }
}
