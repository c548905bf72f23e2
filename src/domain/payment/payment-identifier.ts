import type { PaymentPayload } from '@x402/core/types'
import {
  declarePaymentIdentifierExtension,
  isValidPaymentId,
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
 * The buyer's payment-identifier id in a received PaymentPayload: undefined when the buyer sent
 * none (an echo of the declaration without `id` is none). Refused: `invalid_payment_identifier`
 * (400) for an id outside 16-128 characters of `[A-Za-z0-9_-]` or a malformed extension;
 * `payment_identifier_required` (400) when `required` and no id came.
 *
 * The extension's own rules, checked here as `@x402/extensions`' validator checks them, but
 * never against the `schema` the payload carries: that validator compiles the buyer's schema
 * with AJV on every call (milliseconds of CPU each, before anything is verified), and a schema
 * with a backtracking `pattern` over a long string in `info` holds the event loop for minutes.
 * Our declaration is the schema; a buyer's copy of it decides nothing.
 */
export function readPaymentIdentifier(received: PaymentPayload, required: boolean): IdentifierRead {
  const extension = received.extensions?.[PAYMENT_IDENTIFIER]
  const problem = extension ? extensionProblem(extension) : undefined
  if (problem) {
    return {
      kind: 'refused',
      error: {
        code: 'invalid_payment_identifier',
        message: `the payment-identifier extension is invalid: ${problem}`,
        issues: [{ path: `extensions.${PAYMENT_IDENTIFIER}.info.id`, message: 'invalid' }],
      },
    }
  }
  const id = (extension as { info?: { id?: string } } | undefined)?.info?.id
  if (id === undefined && required) {
    return {
      kind: 'refused',
      error: {
        code: 'payment_identifier_required',
        message:
          'this service requires the x402 payment-identifier extension: send extensions["payment-identifier"].info.id (16-128 of [A-Za-z0-9_-]) in the payment',
      },
    }
  }
  return { kind: 'read', identifier: id }
}

/** What is wrong with a received payment-identifier extension (the library's words), if anything. */
function extensionProblem(extension: unknown): string | undefined {
  if (typeof extension !== 'object' || extension === null) return 'Extension must be an object'
  const info = (extension as { info?: unknown }).info
  if (typeof info !== 'object' || info === null) return "Extension must have an 'info' property"
  const { required, id } = info as { required?: unknown; id?: unknown }
  if (typeof required !== 'boolean') {
    return "Extension info must have a 'required' boolean property"
  }
  if (id !== undefined && typeof id !== 'string') {
    return "Extension info 'id' must be a string if provided"
  }
  if (id !== undefined && !isValidPaymentId(id)) {
    return 'Invalid payment ID format. ID must be 16-128 characters and contain only alphanumeric characters, hyphens, and underscores.'
  }
  return undefined
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
