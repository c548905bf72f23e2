import { z } from '@hono/zod-openapi'
import { checksummed } from '../../domain/evm/checksummed.js'
import type { TransactionInput } from '../../domain/screen/context.js'

const address = (description: string) =>
  z
    .string()
    .regex(/^0x[a-fA-F0-9]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
    .openapi({ description, example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' })

/** Fields shared by both transaction preflight routes, the free one and the paid one. */
export const fields = {
  chainId: z
    .literal('0x2105', { error: 'only Base mainnet (0x2105) is supported' })
    .optional()
    .openapi({ description: 'Base mainnet chain id in hex; the only accepted value is 0x2105.' }),
  from: address('Sender used for the simulation.'),
  to: address('Destination.'),
  data: z
    .string()
    .regex(/^0x(?:[a-fA-F0-9]{2})*$/, 'must be 0x-prefixed hex with an even number of digits')
    .openapi({ description: 'Calldata; `0x` alone means empty calldata.', example: '0x' }),
  value: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'must be 0x-prefixed hex wei')
    .refine((v) => !/^0x[0-9a-fA-F]+$/.test(v) || BigInt(v) < 2n ** 256n, 'must fit in 256 bits')
    .optional()
    .openapi({ description: 'Value in wei, hex.', example: '0x0' }),
}

/** Request body of `POST /payanagent/v1/base-transaction-preflight`: no other properties. */
export const TransactionRequestSchema = z
  .strictObject(fields)
  .openapi('TransactionPreflightRequest')

export type TransactionRequest = z.infer<typeof TransactionRequestSchema>

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
