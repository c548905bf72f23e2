import type { PaymentRequirements } from '@x402/core/types'
import { AppError } from '../../errors.js'
import type { Receipt } from '../receipt/receipt.js'
import { authorizationId } from './authorization-id.js'
import type { Authorization } from './decode-payment.js'
import type { PaymentLedger } from './payment-ledger.js'

/**
 * The stored receipt of a payment found from the payment itself (payer and EIP-3009 nonce of
 * the one offer's network and asset: the ledger's key, case-insensitive).
 * @throws {AppError} `not_found` when no payment has this authorization, or it has no receipt
 * yet (the message says its status).
 */
export async function receiptByAuthorization(
  ledger: Pick<PaymentLedger, 'get' | 'getReceipt'>,
  offer: Pick<PaymentRequirements, 'network' | 'asset'>,
  authorization: Pick<Authorization, 'payer' | 'nonce'>,
): Promise<Receipt> {
  const { payer, nonce } = authorization
  const id = authorizationId(offer.network, offer.asset, { payer, nonce })
  const payment = await ledger.get(id)
  const receipt = payment?.receiptId ? await ledger.getReceipt(payment.receiptId) : undefined
  if (!payment) {
    throw new AppError('not_found', `no payment with authorization ${payer}/${nonce}`)
  }
  if (!receipt) {
    throw new AppError(
      'not_found',
      `the payment with this authorization is ${payment.status}, not settled: no receipt (retry the paid call with the same PAYMENT-SIGNATURE to finish it)`,
    )
  }
  return receipt
}
