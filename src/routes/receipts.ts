import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import { addressOf, bytes32Of, ReceiptSchema } from '@pre-send-guard/client/schemas'
import { ROUTES } from '@pre-send-guard/client/types'
import type { PaymentRequirements } from '@x402/core/types'
import type { PaymentLedger } from '../domain/payment/payment-ledger.js'
import { receiptByAuthorization } from '../domain/payment/receipt-lookup.js'
import { isReceiptId } from '../domain/receipt/receipt.js'
import { AppError } from '../errors.js'
import { errorResponses } from './schemas/error-body.js'

/** `GET /receipts/{id}`. */
export const receiptRoute = createRoute({
  method: 'get',
  path: ROUTES.receipt,
  operationId: 'getReceipt',
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
      404: 'No receipt with this id; also any id that is not `rcpt_` + 32 lower-case hex digits (answered without reading the ledger).',
      503: '`ledger_unavailable`: the receipt store cannot be read right now; retry.',
    }),
  },
})

/** `GET /receipts/by-authorization/{payer}/{nonce}`. */
export const receiptByAuthorizationRoute = createRoute({
  method: 'get',
  path: ROUTES.receiptByAuthorization,
  operationId: 'getReceiptByAuthorization',
  tags: ['receipts'],
  summary: 'The receipt of a payment, found from the payment itself',
  description:
    'For a buyer that lost its answer and the receipt id: the receipt of the settled payment whose EIP-3009 authorization is `authorization.from` = `payer` and `authorization.nonce` = `nonce` (both in the PAYMENT-SIGNATURE it signed, and on chain in the settlement). Unauthenticated: both are public on chain once settled, and the receipt holds nothing beyond hashes, the verdict and public settlement facts. To get the result itself, retry the paid call with the same PAYMENT-SIGNATURE and body.',
  request: {
    params: z.object({
      payer: addressOf().openapi({ example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }),
      nonce: bytes32Of(),
    }),
  },
  responses: {
    200: {
      description: 'The receipt, exactly as issued.',
      content: { 'application/json': { schema: ReceiptSchema } },
    },
    ...errorResponses({
      404: 'No settled payment with this authorization (unknown, failed, or not settled yet: the message says which).',
      422: 'payer is not an address or nonce is not bytes32.',
      503: '`ledger_unavailable`: the receipt store cannot be read right now; retry.',
    }),
  },
})

/** Mounts `GET /receipts/{id}` and `GET /receipts/by-authorization/{payer}/{nonce}`. */
export function registerReceipts(
  app: OpenAPIHono,
  deps: {
    ledger: () => PaymentLedger
    offer: () => Pick<PaymentRequirements, 'network' | 'asset'>
  },
): void {
  app.openapi(receiptRoute, async (c) => {
    const { id } = c.req.valid('param')
    // Not an id this service issues: no receipt, and the ledger is not asked (nor quoted).
    if (!isReceiptId(id)) throw new AppError('not_found', 'no receipt with this id')
    const receipt = await deps.ledger().getReceipt(id)
    if (!receipt) throw new AppError('not_found', `no receipt ${id}`)
    return c.json(receipt, 200)
  })
  app.openapi(receiptByAuthorizationRoute, async (c) => {
    const { payer, nonce } = c.req.valid('param')
    const receipt = await receiptByAuthorization(deps.ledger(), deps.offer(), { payer, nonce })
    return c.json(receipt, 200)
  })
}
