import type { PaymentPayload } from '@x402/core/types'
import {
  declarePaymentIdentifierExtension,
  extractAndValidatePaymentIdentifier,
  PAYMENT_IDENTIFIER,
  type PaymentIdentifierExtension,
} from '@x402/extensions/payment-identifier'
import type { OutcomeError } from './paid-preflight-outcome.js'
import type { PaymentRecord } from './payment-ledger.js'

/** The key of the x402 payment-identifier extension in `extensions`. */
export { PAYMENT_IDENTIFIER }

/** The paid route's payment-identifier declaration (the 402's `extensions['payment-identifier']`). */
export function paymentIdentifierDeclaration(required: boolean): PaymentIdentifierExtension {
  return declarePaymentIdentifierExtension(required)
}

/** What a payment's payment-identifier says: its id (undefined: none sent), or why it is refused. */
export type IdentifierRead =
  | { kind: 'read'; identifier: string | undefined }
  | { kind: 'refused'; error: OutcomeError }

/**
 * The buyer's payment-identifier id in a received PaymentPayload, checked by the extension's
 * own validator: undefined when the buyer sent none (an echo of the declaration without `id`
 * is none). Refused: `invalid_payment_identifier` (400) for an id outside 16-128 characters of
 * `[A-Za-z0-9_-]` or a malformed extension; `payment_identifier_required` (400) when `required`
 * and no id came.
 */
export function readPaymentIdentifier(received: PaymentPayload, required: boolean): IdentifierRead {
  const { id, validation } = extractAndValidatePaymentIdentifier(received)
  if (!validation.valid) {
    return {
      kind: 'refused',
      error: {
        code: 'invalid_payment_identifier',
        message: `the payment-identifier extension is invalid: ${(validation.errors ?? []).join('; ')}`,
        issues: [{ path: `extensions.${PAYMENT_IDENTIFIER}.info.id`, message: 'invalid' }],
      },
    }
  }
  if (id === null && required) {
    return {
      kind: 'refused',
      error: {
        code: 'payment_identifier_required',
        message:
          'this service requires the x402 payment-identifier extension: send extensions["payment-identifier"].info.id (16-128 of [A-Za-z0-9_-]) in the payment',
      },
    }
  }
  return { kind: 'read', identifier: id ?? undefined }
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
 * The refusal of a call whose payment-identifier already names another payment or another
 * request (`payment_identifier_conflict`, 409); undefined for the same signed payment and the
 * same body (then the stored answer is returned by the usual replay rules).
 */
export function identifierConflict(
  holder: PaymentRecord,
  call: IdentifiedCall,
): OutcomeError | undefined {
  const same =
    holder.id === call.paymentId &&
    holder.payloadHash === call.payloadHash &&
    holder.requestHash === call.requestHash
  if (same) return undefined
  const what = holder.id === call.paymentId ? 'another request body' : 'another payment'
  return {
    code: 'payment_identifier_conflict',
    message: `payment-identifier ${call.identifier} was already used with ${what}: send the same payment and body to get its answer, or a new identifier for a new call (nothing was charged for this request)`,
  }
}
