import { z } from '@hono/zod-openapi'
import type { Address } from 'viem'
import { TYPED_DATA_LIMITS } from '../../domain/typed-data/typed-data.js'

const anyObject = (description: string) => z.unknown().openapi({ type: 'object', description })

/**
 * The typed-data preflight's body: who signs, and the typed data exactly as
 * `eth_signTypedData_v4` takes it. The typed data's inside is checked by the domain's validator
 * (422 `invalid_typed_data` with the offending path), not here.
 */
export const TypedDataRequestSchema = z
  .object({
    chainId: z
      .literal('0x2105', { error: 'only Base mainnet (0x2105) is supported' })
      .optional()
      .openapi({ description: 'Base mainnet chain id in hex; the only accepted value is 0x2105.' }),
    signer: z
      .string()
      .regex(/^0x[a-fA-F0-9]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
      .openapi({
        description: 'The account that would sign.',
        example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      }),
    typedData: z
      .object({
        domain: anyObject(
          'EIP-712 domain: name, version, chainId (number, decimal or hex string), verifyingContract, salt.',
        ),
        types: anyObject(
          `Struct types by name, each an array of {name, type}; EIP712Domain optional (derived from the domain when absent). At most ${TYPED_DATA_LIMITS.types} types of ${TYPED_DATA_LIMITS.fieldsPerType} fields.`,
        ),
        primaryType: z.string().max(256).openapi({ example: 'PermitSingle' }),
        message: anyObject(
          `The message. Integers as JSON numbers (up to 2^53) or decimal/0x strings. At most ${TYPED_DATA_LIMITS.depth} levels of nesting, ${TYPED_DATA_LIMITS.arrayLength} entries per array, ${TYPED_DATA_LIMITS.values} values.`,
        ),
      })
      .strict()
      .openapi({ description: 'Typed data in the eth_signTypedData_v4 JSON form.' }),
  })
  .strict()
  .openapi('TypedDataRequest')

export type TypedDataRequest = z.infer<typeof TypedDataRequestSchema>

/** The validated body as the domain takes it. */
export function toTypedDataInput(body: TypedDataRequest) {
  return {
    signer: body.signer as Address,
    typedData: {
      domain: body.typedData.domain,
      types: body.typedData.types,
      primaryType: body.typedData.primaryType,
      message: body.typedData.message,
    },
  }
}
