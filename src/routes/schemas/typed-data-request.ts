import type { z } from '@hono/zod-openapi'
import { TypedDataRequestSchema as SharedTypedDataRequestSchema } from '@pre-send-guard/client/schemas'
import type { Address } from 'viem'

/**
 * The typed-data preflight's body: who signs, and the typed data exactly as
 * `eth_signTypedData_v4` takes it (declared in the client package). The typed data's inside is
 * checked by the domain's validator (422 `invalid_typed_data` with the offending path), not here.
 */
export const TypedDataRequestSchema = SharedTypedDataRequestSchema.meta({ id: 'TypedDataRequest' })

export type TypedDataRequest = z.output<typeof TypedDataRequestSchema>

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
