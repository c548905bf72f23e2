import { AsyncLocalStorage } from 'node:async_hooks'
import { isBytes32Text } from '@pre-send-guard/client/types'
import {
  type FacilitatorClient,
  FacilitatorResponseError,
  FacilitatorTimeoutError,
  x402ResourceServer,
} from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import type { Address, Hex } from 'viem'
import { BASE_MAINNET, type NetworkProfile } from '../../domain/network/network-profile.js'
import { paymentRequirements } from '../../domain/payment/offer.js'
import type {
  FacilitatorStatus,
  PaymentRail,
  SettleOutcome,
  VerifyOutcome,
} from '../../domain/payment/payment-rail.js'
import { SettlementNotAnnouncedError } from '../../domain/payment/settlement-announcement.js'
import {
  errorCodes,
  FacilitatorUnavailableError,
  LedgerUnavailableError,
  RpcUnavailableError,
} from '../../errors.js'
import { DEFAULT_REDACTOR, type Redactor } from '../../secrets.js'
import { withSettlementAnnouncer } from './settlement-announcement.js'

/**
 * Settle failure codes that a facilitator only returns before it sends anything: the payment
 * is refused on its face (format, signature, recipient, amount, validity window, balance,
 * token). Exact codes, never patterns: every other code - `invalid_exact_evm_transaction_failed`
 * (which `@x402/evm` also returns when the broadcast itself timed out),
 * `unexpected_settle_error`, `settlement_pending`, `invalid_exact_evm_nonce_already_used`
 * (someone used the authorization: maybe to pay us) - leaves the outcome to the chain.
 */
export const PRE_SEND_SETTLE_FAILURES: ReadonlySet<string> = new Set([
  // ours: the payment does not match the one offer, so it is never handed over
  'no_matching_requirements',
  // ours (built-in facilitator): the settlement would need more gas than the ceiling
  'settlement_gas_over_ceiling',
  // @x402/evm exact (EIP-3009)
  'invalid_exact_evm_scheme',
  'invalid_exact_evm_network_mismatch',
  'invalid_exact_evm_missing_eip712_domain',
  'invalid_exact_evm_recipient_mismatch',
  'invalid_exact_evm_signature',
  'invalid_exact_evm_failed_to_parse_signature',
  'invalid_exact_evm_payload_authorization_valid_before',
  'invalid_exact_evm_payload_authorization_valid_after',
  'invalid_exact_evm_authorization_value',
  'invalid_exact_evm_payload_authorization_value_mismatch',
  'invalid_exact_evm_token_name_mismatch',
  'invalid_exact_evm_token_version_mismatch',
  'invalid_exact_evm_eip3009_not_supported',
  'invalid_exact_evm_insufficient_balance',
  'invalid_exact_evm_transaction_simulation_failed',
  'asset_not_deployed_contract',
  'eip6492_factory_not_allowed',
  // x402 specification codes (other facilitators, CDP)
  'insufficient_funds',
  'invalid_exact_evm_payload_authorization_value',
  'invalid_exact_evm_payload_recipient_mismatch',
  'invalid_exact_evm_payload_signature',
  'invalid_network',
  'invalid_payload',
  'invalid_payment_requirements',
  'invalid_scheme',
  'unsupported_scheme',
  'invalid_x402_version',
])

/** Options for {@link createX402PaymentRail}. */
export interface X402PaymentRailOptions {
  facilitator: FacilitatorClient
  /** The network payments are taken on (its CAIP-2 id, USDC, chain); Base mainnet when absent. */
  network?: NetworkProfile
  payTo: Address
  facilitatorStatus: () => FacilitatorStatus
  /**
   * Scrubs the facilitator's text quoted in outcomes and errors (the configuration's secrets).
   * Default: `DEFAULT_REDACTOR` (no configured secret known; any URL's userinfo still removed).
   */
  redactor?: Redactor
}

/**
 * The payment rail over `@x402/core`'s x402ResourceServer with `@x402/evm`'s exact scheme
 * (server side): it builds the PaymentRequired, matches the payment to the offer and drives
 * the facilitator's verify and settle. Our code only classifies the outcomes, because a
 * settle that throws is not the same as a settle that failed.
 */
export function createX402PaymentRail(options: X402PaymentRailOptions): PaymentRail {
  const redactor = options.redactor ?? DEFAULT_REDACTOR
  // Every transaction hash any settle attempt reported (x402's resource server retries a
  // `settlement_pending` once, and only returns the second answer): once one was seen, the
  // outcome can never be "nothing was sent".
  const attempts = new AsyncLocalStorage<Hex[]>()
  const seen = (value: unknown) => {
    if (isTxHash(value)) attempts.getStore()?.push(value)
  }
  const facilitator: FacilitatorClient = {
    verify: (payload, requirements) => options.facilitator.verify(payload, requirements),
    getSupported: () => options.facilitator.getSupported(),
    async settle(payload, requirements) {
      try {
        const response = await options.facilitator.settle(payload, requirements)
        seen(response?.transaction)
        return response
      } catch (error) {
        seen((error as { transaction?: unknown } | undefined)?.transaction)
        throw error
      }
    },
  }
  const network = options.network ?? BASE_MAINNET
  const server = new x402ResourceServer(facilitator).register(network.id, new ExactEvmScheme())
  const requirements = paymentRequirements(options.payTo, network)
  const match = (payload: PaymentPayload): PaymentRequirements | undefined =>
    server.findMatchingRequirements([requirements], payload)

  return {
    requirements,
    paymentRequired: (resource, error, extensions) =>
      server.createPaymentRequiredResponse([requirements], resource, error, extensions),

    async verify(payload): Promise<VerifyOutcome> {
      const matched = match(payload)
      if (!matched) return { valid: false, facilitatorReason: 'no_matching_requirements' }
      try {
        const result = await server.verifyPayment(payload, matched)
        // cast: the facilitator's word, unchecked here on purpose: the paid path compares it
        // with the checked authorization.from before trusting it (a mismatch is its own error).
        if (result.isValid && result.payer) return { valid: true, payer: result.payer as Address }
        return {
          valid: false,
          facilitatorReason: result.invalidReason ?? 'verification_failed',
          ...(result.invalidMessage ? { message: result.invalidMessage } : {}),
        }
      } catch (error) {
        // A facilitator that answered "invalid" with a non-2xx status is still an answer.
        const rejected = rejection(error, 'invalidReason')
        if (rejected) return { valid: false, facilitatorReason: rejected }
        // The built-in facilitator's RPC failed: its own typed, retryable failure.
        if (error instanceof RpcUnavailableError) throw error
        throw new FacilitatorUnavailableError(
          `the payment facilitator could not verify the payment: ${describe(error, redactor)}`,
          error,
        )
      }
    },

    async settle(payload, settleOptions): Promise<SettleOutcome> {
      const matched = match(payload)
      if (!matched) return { status: 'failed', facilitatorReason: 'no_matching_requirements' }
      const transactions: Hex[] = []
      const settlement = () => server.settlePayment(payload, matched)
      const outcome = await attempts.run(transactions, async (): Promise<SettleOutcome> => {
        try {
          const response = await withSettlementAnnouncer(settleOptions?.announce, settlement)
          return classifySettle(response, redactor)
        } catch (error) {
          if (isSettleError(error)) {
            return classifySettle(
              {
                success: false,
                errorReason: error.errorReason ?? 'settlement_failed',
                ...(error.errorMessage ? { errorMessage: error.errorMessage } : {}),
                transaction: error.transaction ?? '',
                network: network.id,
              },
              redactor,
            )
          }
          // The built-in facilitator's RPC failed before it sent anything, or it may not send
          // (its settlement account lease is not surely held, or the settlement could not be
          // announced in the ledger before sending).
          if (
            error instanceof RpcUnavailableError ||
            error instanceof LedgerUnavailableError ||
            error instanceof SettlementNotAnnouncedError
          ) {
            return { status: 'unreachable', message: error.message }
          }
          if (error instanceof FacilitatorTimeoutError) {
            return { status: 'unknown', message: error.message }
          }
          if (!(error instanceof FacilitatorResponseError) && connectionRefused(error)) {
            return { status: 'unreachable', message: describe(error, redactor) }
          }
          // The request may have reached the facilitator: only the chain can tell.
          return { status: 'unknown', message: describe(error, redactor) }
        }
      })
      const earlier = transactions[0]
      if (
        earlier &&
        outcome.status !== 'settled' &&
        !('transaction' in outcome && outcome.transaction)
      ) {
        return {
          status: 'unknown',
          transaction: earlier,
          message: `an earlier settle attempt sent ${earlier}; then: ${'facilitatorReason' in outcome ? outcome.facilitatorReason : outcome.message}`,
        }
      }
      return outcome
    },

    facilitatorStatus: options.facilitatorStatus,
  }
}

/**
 * A settle answer as an outcome. `failed` only for a refusal on the allow-list
 * ({@link PRE_SEND_SETTLE_FAILURES}) that names no transaction; everything else that is not a
 * success with a hash is `unknown`, for the chain to decide.
 */
export function classifySettle(
  response: SettleResponse,
  /** Scrubs the facilitator's text in an `unknown` outcome; default {@link DEFAULT_REDACTOR}. */
  redactor: Redactor = DEFAULT_REDACTOR,
): SettleOutcome {
  const transaction = isTxHash(response.transaction) ? response.transaction : undefined
  if (response.success) {
    return transaction
      ? { status: 'settled', transaction, response }
      : { status: 'unknown', message: `facilitator reported success without a transaction hash` }
  }
  const reason = response.errorReason ?? 'settlement_failed'
  if (!transaction && PRE_SEND_SETTLE_FAILURES.has(reason)) {
    return {
      status: 'failed',
      facilitatorReason: reason,
      ...(response.errorMessage ? { message: response.errorMessage } : {}),
      response,
    }
  }
  return {
    status: 'unknown',
    ...(transaction ? { transaction } : {}),
    message: redactor
      .redact(`${reason}${response.errorMessage ? `: ${response.errorMessage}` : ''}`)
      .slice(0, 300),
  }
}

function isTxHash(value: unknown): value is Hex {
  return isBytes32Text(value)
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
  return errorCodes(error).includes('ECONNREFUSED')
}

function describe(error: unknown, redactor: Redactor): string {
  const message = error instanceof Error ? error.message : String(error)
  const cause =
    error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  // Facilitator errors carry its URL (fetch) or echo it (an error page): redact before the cut.
  return redactor.redact(`${message}${cause}`).slice(0, 300)
}
