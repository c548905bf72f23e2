import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import type { PaymentLedger } from '../domain/payment/payment-ledger.js'
import { RECEIPT_TYPE } from '../domain/receipt/receipt.js'
import { AppError } from '../errors.js'
import { errorResponses } from './schemas/error-body.js'

const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/)
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
const decimal = z.string().regex(/^[0-9]+$/)

/** A signed PRE_SEND_PROOF_RECEIPT (EIP-712). */
export const ReceiptSchema = z
  .object({
    type: z.literal(RECEIPT_TYPE),
    id: z.string().openapi({ example: 'rcpt_3f2a9c0d4b8e47a1a2b3c4d5e6f70812' }),
    requestHash: bytes32.openapi({
      description:
        'keccak256 of the request body as canonical JSON (RFC 8785: sorted keys, no whitespace).',
    }),
    responseHash: bytes32.openapi({
      description: 'keccak256 of the returned `result` as canonical JSON (RFC 8785).',
    }),
    verdict: z.string().openapi({ example: 'sign' }),
    chainId: decimal.openapi({ example: '8453' }),
    blockNumber: decimal.openapi({ description: 'Block the simulation was pinned to.' }),
    blockHash: bytes32,
    settlementTx: bytes32.openapi({ description: 'Transaction that settled the payment.' }),
    payer: address,
    payTo: address,
    asset: address.openapi({ description: 'USDC on Base.' }),
    amount: decimal.openapi({
      example: '10000',
      description: 'Atomic USDC units (10000 = $0.01).',
    }),
    network: z.string().openapi({ example: 'eip155:8453' }),
    issuedAt: decimal.openapi({ description: 'Unix seconds.' }),
    signer: address.openapi({ description: 'Receipt key address; compare with discovery.' }),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
    eip712: z
      .object({
        domain: z.object({ name: z.string(), version: z.string(), chainId: z.number() }),
        primaryType: z.literal(RECEIPT_TYPE),
        types: z.record(
          z.string(),
          z.array(z.object({ name: z.string(), type: z.string() })).readonly(),
        ),
      })
      .openapi({
        description:
          'viem: verifyTypedData({ address: signer, domain, types, primaryType, message: receipt, signature }) is true.',
      }),
  })
  .openapi('PreSendProofReceipt')

/** `GET /receipts/{id}`. */
export const receiptRoute = createRoute({
  method: 'get',
  path: '/receipts/{id}',
  tags: ['receipts'],
  summary: 'A stored PRE_SEND_PROOF_RECEIPT',
  description:
    'Returns a receipt issued by a paid preflight, by its id. Unauthenticated: ids are unguessable.',
  request: { params: z.object({ id: z.string().min(1).max(100) }) },
  responses: {
    200: {
      description: 'The receipt, exactly as issued.',
      content: { 'application/json': { schema: ReceiptSchema } },
    },
    ...errorResponses({
      404: 'No receipt with this id.',
      503: '`ledger_unavailable`: the receipt store cannot be read right now; retry.',
    }),
  },
})

/** Mounts `GET /receipts/{id}`. */
export function registerReceipts(app: OpenAPIHono, deps: { ledger: () => PaymentLedger }): void {
  app.openapi(receiptRoute, async (c) => {
    const { id } = c.req.valid('param')
    const receipt = await deps.ledger().getReceipt(id)
    if (!receipt) throw new AppError('not_found', `no receipt ${id}`)
    return c.json(receipt, 200)
  })
}
