import {
  type FacilitatorClient,
  FacilitatorResponseError,
  FacilitatorTimeoutError,
  x402ResourceServer,
} from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import type { Address, Hex } from 'viem'
import { PAYMENT_NETWORK, paymentRequirements } from '../../domain/payment/offer.js'
import type {
  FacilitatorStatus,
  PaymentRail,
  SettleOutcome,
  VerifyOutcome,
} from '../../domain/payment/payment-rail.js'
import { FacilitatorUnavailableError } from '../../errors.js'

/** The facilitator's code when a settlement was broadcast but not confirmed in time. */
const SETTLEMENT_PENDING = 'settlement_pending'
/** `@x402/evm`'s code for an EIP-3009 authorization already used on chain. */
const NONCE_USED = 'invalid_exact_evm_nonce_already_used'

/** Options for {@link createX402PaymentRail}. */
export interface X402PaymentRailOptions {
  facilitator: FacilitatorClient
  payTo: Address
  facilitatorStatus: () => FacilitatorStatus
}

/**
 * The payment rail over `@x402/core`'s x402ResourceServer with `@x402/evm`'s exact scheme
 * (server side): it builds the PaymentRequired, matches the payment to the offer and drives
 * the facilitator's verify and settle. Our code only classifies the outcomes, because a
 * settle that throws is not the same as a settle that failed.
 */
export function createX402PaymentRail(options: X402PaymentRailOptions): PaymentRail {
  const server = new x402ResourceServer(options.facilitator).register(
    PAYMENT_NETWORK,
    new ExactEvmScheme(),
  )
  const requirements = paymentRequirements(options.payTo)
  const match = (payload: PaymentPayload): PaymentRequirements | undefined =>
    server.findMatchingRequirements([requirements], payload)

  return {
    requirements,
    paymentRequired: (resource, error) =>
      server.createPaymentRequiredResponse([requirements], resource, error),

    async verify(payload): Promise<VerifyOutcome> {
      const matched = match(payload)
      if (!matched) return { valid: false, upstreamReason: 'no_matching_requirements' }
      try {
        const result = await server.verifyPayment(payload, matched)
        if (result.isValid && result.payer) return { valid: true, payer: result.payer as Address }
        return {
          valid: false,
          upstreamReason: result.invalidReason ?? 'verification_failed',
          ...(result.invalidMessage ? { message: result.invalidMessage } : {}),
        }
      } catch (error) {
        // A facilitator that answered "invalid" with a non-2xx status is still an answer.
        const rejected = rejection(error, 'invalidReason')
        if (rejected) return { valid: false, upstreamReason: rejected }
        throw new FacilitatorUnavailableError(
          `the payment facilitator could not verify the payment: ${describe(error)}`,
          error,
        )
      }
    },

    async settle(payload): Promise<SettleOutcome> {
      const matched = match(payload)
      if (!matched) return { status: 'failed', upstreamReason: 'no_matching_requirements' }
      try {
        return classifySettle(await server.settlePayment(payload, matched))
      } catch (error) {
        if (isSettleError(error)) {
          return classifySettle({
            success: false,
            errorReason: error.errorReason ?? 'settlement_failed',
            ...(error.errorMessage ? { errorMessage: error.errorMessage } : {}),
            transaction: error.transaction ?? '',
            network: PAYMENT_NETWORK,
          })
        }
        if (error instanceof FacilitatorTimeoutError) {
          return { status: 'unknown', message: error.message }
        }
        if (!(error instanceof FacilitatorResponseError) && connectionRefused(error)) {
          return { status: 'unreachable', message: describe(error) }
        }
        // The request may have reached the facilitator: only the chain can tell.
        return { status: 'unknown', message: describe(error) }
      }
    },

    facilitatorStatus: options.facilitatorStatus,
  }
}

function classifySettle(response: SettleResponse): SettleOutcome {
  const transaction = isTxHash(response.transaction) ? response.transaction : undefined
  if (response.success) {
    return transaction
      ? { status: 'settled', transaction, response }
      : { status: 'unknown', message: `facilitator reported success without a transaction hash` }
  }
  // Verify passed, so a used nonce now means someone submitted this authorization first:
  // EIP-3009 fixes `to` and `value`, so payTo may well be paid. Only the chain can tell.
  if (response.errorReason === SETTLEMENT_PENDING || response.errorReason === NONCE_USED) {
    return {
      status: 'unknown',
      ...(transaction ? { transaction } : {}),
      message: response.errorMessage ?? SETTLEMENT_PENDING,
    }
  }
  return {
    status: 'failed',
    upstreamReason: response.errorReason ?? 'settlement_failed',
    ...(response.errorMessage ? { message: response.errorMessage } : {}),
    response,
  }
}

function isTxHash(value: unknown): value is Hex {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)
}

interface SettleErrorShape {
  errorReason?: string
  errorMessage?: string
  transaction?: string
}

function isSettleError(error: unknown): error is Error & SettleErrorShape {
  return error instanceof Error && error.name === 'SettleError'
}

function rejection(error: unknown, field: 'invalidReason'): string | undefined {
  if (error instanceof Error && error.name === 'VerifyError') {
    const reason = (error as Error & { invalidReason?: unknown })[field]
    return typeof reason === 'string' && reason ? reason : 'verification_failed'
  }
  return undefined
}

/** True when the facilitator's TCP port refused the connection: the request never left. */
function connectionRefused(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code
    if (code === 'ECONNREFUSED') return true
    const nested = (current as { errors?: unknown }).errors
    if (
      Array.isArray(nested) &&
      nested.some((e) => (e as { code?: unknown }).code === 'ECONNREFUSED')
    )
      return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const cause =
    error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${message}${cause}`.slice(0, 300)
}
