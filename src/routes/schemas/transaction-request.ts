import type { z } from '@hono/zod-openapi'
import {
  TransactionRequestSchema as SharedTransactionRequestSchema,
  transactionFields,
} from '@pre-send-guard/client/schemas'
import { checksummed } from '../../domain/evm/checksummed.js'
import type { TransactionInput } from '../../domain/screen/context.js'

/**
 * Request body of `POST /payanagent/v1/base-transaction-preflight`: no other properties.
 * Declared once in the client package, where the MCP tools take it too.
 */
export const TransactionRequestSchema = SharedTransactionRequestSchema.meta({
  id: 'TransactionPreflightRequest',
})
/** Fields shared by both preflight routes. */
export const fields = transactionFields

export type TransactionRequest = z.output<typeof TransactionRequestSchema>

/** Normalises a validated request: checksummed addresses, lower-case calldata, value as bigint. */
export function toTransactionInput(body: TransactionRequest): TransactionInput {
  const from = checksummed(body.from)
  const to = checksummed(body.to)
  const misspelled = [
    { field: 'from' as const, given: body.from, valid: from },
    { field: 'to' as const, given: body.to, valid: to },
  ]
    .filter((a) => isMixedCase(a.given) && a.given !== a.valid)
    .map(({ field, given }) => ({ field, given }))
  return {
    from,
    to,
    data: body.data.toLowerCase() as `0x${string}`,
    value: body.value === undefined ? 0n : BigInt(body.value),
    ...(misspelled.length > 0 ? { misspelled } : {}),
  }
}

/** A spelling that claims an EIP-55 checksum: both cases among its hex letters. */
function isMixedCase(address: string): boolean {
  const hex = address.slice(2)
  return hex !== hex.toLowerCase() && hex !== hex.toUpperCase()
}
