import { toHex } from 'viem'
import type { TransactionRequest } from '../client/guard-client.js'
import { canonicalJsonHash } from '../client/verify-receipt.js'

/**
 * The key of a transaction as the guard sees it: the canonical JSON hash of its body with
 * addresses and calldata in lower case and the value in minimal hex, so the same transaction
 * built twice has the same key.
 */
export function transactionKey(transaction: TransactionRequest): string {
  return canonicalJsonHash({
    chainId: '0x2105',
    from: transaction.from.toLowerCase(),
    to: transaction.to.toLowerCase(),
    data: transaction.data.toLowerCase(),
    value: toHex(BigInt(transaction.value ?? '0x0')),
  })
}
