import type { PaymentPayload } from '@x402/core/types'
import {
  declarePaymentIdentifierExtension,
  extractAndValidatePaymentIdentifier,
  PAYMENT_IDENTIFIER,
  type PaymentIdentifierExtension,
} from '@x402/extensions/payment-identifier'
import { AppError } from '../../errors.js'
import type { PaymentRecord } from './payment-ledger.js'

/** The key of the x402 payment-identifier extension in `extensions`. */
export { PAYMENT_IDENTIFIER }

/** The paid route's payment-identifier declaration (the 402's `extensions['payment-identifier']`). */
export function paymentIdentifierDeclaration(required: boolean): PaymentIdentifierExtension {
  return declarePaymentIdentifierExtension(required)
}

/**
 * The buyer's payment-identifier id in a received PaymentPayload, checked by the extension's
 * own validator: undefined when the buyer sent none (an echo of the declaration without `id`
 * is none).
 *
 * @throws {AppError} `invalid_payment_identifier` (400) for an id outside 16-128 characters of
 *   `[A-Za-z0-9_-]` or a malformed extension; `payment_identifier_required` (400) when
 *   `required` and no id came.
 */
export function readPaymentIdentifier(
  received: PaymentPayload,
  required: boolean,
): string | undefined {
  const { id, validation } = extractAndValidatePaymentIdentifier(received)
  if (!validation.valid) {
    throw new AppError(
      'invalid_payment_identifier',
      `the payment-identifier extension is invalid: ${(validation.errors ?? []).join('; ')}`,
      { issues: [{ path: `extensions.${PAYMENT_IDENTIFIER}.info.id`, message: 'invalid' }] },
    )
  }
  if (id === null && required) {
    throw new AppError(
      'payment_identifier_required',
      'this service requires the x402 payment-identifier extension: send extensions["payment-identifier"].info.id (16-128 of [A-Za-z0-9_-]) in the payment',
    )
  }
  return id ?? undefined
}

/** What a call under a payment-identifier carries, to compare with the payment holding the id. */
export interface IdentifiedCall {
  identifier: string
  /** The payment key (`paymentId`) of this call's authorization. */
  paymentId: string
  payloadHash: string
  requestHash: string
}

/**
 * Refuses a call whose payment-identifier already names another payment or another request:
 * the same id must come with the same signed payment and the same body (then the stored
 * answer is returned by the usual replay rules).
 *
 * @throws {AppError} `payment_identifier_conflict` (409)
 */
export function assertSameIdentifiedCall(holder: PaymentRecord, call: IdentifiedCall): void {
  const same =
    holder.id === call.paymentId &&
    holder.payloadHash === call.payloadHash &&
    holder.requestHash === call.requestHash
  if (same) return
  const what = holder.id === call.paymentId ? 'another request body' : 'another payment'
  throw new AppError(
    'payment_identifier_conflict',
    `payment-identifier ${call.identifier} was already used with ${what}: send the same payment and body to get its answer, or a new identifier for a new call (nothing was charged for this request)`,
  )
}
