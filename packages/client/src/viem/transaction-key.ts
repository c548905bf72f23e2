import { toHex } from 'viem'
import type { TransactionRequest } from '../client/guard-client.js'
import { canonicalJsonHash } from '../client/verify-receipt.js'
import type { AuthorizationToJudge } from './authorizations-to-judge.js'

/**
 * The key of a transaction as the guard sees it: the canonical JSON hash of its body with
 * addresses and calldata in lower case and the value in minimal hex, so the same transaction
 * built twice has the same key. A type-4 transaction's authorizations (signer, delegate, chain,
 * nonce) are part of its key: the same call with another list is another transaction.
 */
export function transactionKey(
  transaction: TransactionRequest,
  authorizations: readonly AuthorizationToJudge[] = [],
): string {
  return canonicalJsonHash({
    chainId: transaction.chainId ?? null,
    from: transaction.from.toLowerCase(),
    to: transaction.to.toLowerCase(),
    data: transaction.data.toLowerCase(),
    value: toHex(BigInt(transaction.value ?? '0x0')),
    ...(authorizations.length > 0
      ? {
          authorizations: authorizations.map(({ authority, authorization: a }) => ({
            authority: authority.toLowerCase(),
            address: a.address.toLowerCase(),
            chainId: toHex(BigInt(a.chainId)),
            nonce: toHex(BigInt(a.nonce)),
          })),
        }
      : {}),
  })
}
