import { DEFAULT_NETWORK, networkById, type PaymentReason } from '@pre-send-guard/client/types'

/** `network_mismatch`'s message on the network whose CAIP-2 id the offer names. */
export function networkMismatchMessage(network: string): string {
  return `The payment is not on ${network} (${networkById(network)?.label ?? network}).`
}

/**
 * Stable reason codes carried by every 402 of the paid route (`reason` in the body, `error` in
 * the PAYMENT-REQUIRED header). Once published, a code is API: add new ones, never rename.
 */
export const PAYMENT_REASONS = {
  payment_missing: 'No PAYMENT-SIGNATURE header: pay with x402 v2 and retry.',
  payment_undecodable: 'PAYMENT-SIGNATURE is not base64 of a JSON object.',
  payment_malformed:
    'PAYMENT-SIGNATURE decodes, but is not an x402 v2 exact/EVM payment (EIP-3009 authorization and signature).',
  unsupported_x402_version: 'Only x402 version 2 (PAYMENT-SIGNATURE) is accepted.',
  scheme_mismatch: 'The payment is not for the exact scheme offered.',
  network_mismatch: networkMismatchMessage(DEFAULT_NETWORK.id),
  asset_mismatch: 'The payment is not in Base USDC.',
  amount_mismatch: 'The payment amount is not the price offered (10000 = $0.01 USDC).',
  pay_to_mismatch: 'The payment is not to the payTo address offered.',
  offer_mismatch: 'The payment does not match the offer (maxTimeoutSeconds or extra differ).',
  invalid_signature: 'The authorization signature does not verify for the payer.',
  authorization_expired: 'The authorization expires too soon (validBefore) or has expired.',
  authorization_not_yet_valid: 'The authorization is not valid yet (validAfter).',
  authorization_used:
    'This authorization nonce was already used (on chain, or by another payment here), and not to pay for this call.',
  authorization_canceled:
    'The payer canceled this authorization on chain (cancelAuthorization) before it settled: nothing was charged and no result is returned.',
  authorization_validity_too_long:
    'The authorization stays valid too long: validBefore may be at most maxTimeoutSeconds (plus clock slack) from now.',
  insufficient_funds: 'The payer does not hold enough USDC.',
  verification_failed: 'The facilitator rejected the payment.',
  payment_reused: 'This payment already paid for a different request: sign a new one.',
  settlement_failed:
    'Settlement failed: it was refused before anything was sent, or its transaction reverted on chain without moving the payment; nothing was charged and no result is returned.',
  settlement_gas_over_ceiling:
    "Settling this payment would use more gas than this service's settlement gas ceiling (the payer's signature check costs too much): nothing was charged; pay from a wallet whose signature check costs less.",
  payer_settlement_reverted:
    "A settlement of this payer's reverted on chain recently (the payer's contract refused it when it ran for real): its payments are refused for a while. Nothing was charged.",
} as const satisfies Record<PaymentReason, string>

/** One of the shared reason codes (`@pre-send-guard/client/types`), each with its message above. */
export type { PaymentReason }

/**
 * Maps a facilitator's verify/settle failure code (x402 `invalidReason`/`errorReason`, e.g.
 * `invalid_exact_evm_signature`) to our stable reason; `fallback` when it names nothing we
 * distinguish. The raw code is reported beside it as `facilitatorReason`.
 */
export function reasonFromFacilitator(
  upstream: string | undefined,
  fallback: 'verification_failed' | 'settlement_failed',
): PaymentReason {
  const code = upstream ?? ''
  if (/no_matching_requirements|offer_mismatch/.test(code)) return 'offer_mismatch'
  if (/recipient_mismatch|invalid_destination/.test(code)) return 'pay_to_mismatch'
  if (/value_mismatch|amount_mismatch|authorization_value|invalid_amount/.test(code))
    return 'amount_mismatch'
  if (/network_mismatch/.test(code)) return 'network_mismatch'
  if (/token_mismatch|asset_mismatch|asset_not_deployed/.test(code)) return 'asset_mismatch'
  if (/invalid_scheme/.test(code)) return 'scheme_mismatch'
  if (/signature/.test(code)) return 'invalid_signature'
  if (/valid_before|deadline_expired/.test(code)) return 'authorization_expired'
  if (/valid_after|not_yet_valid|too_early/.test(code)) return 'authorization_not_yet_valid'
  if (/authorization_canceled/.test(code)) return 'authorization_canceled'
  if (/nonce_already_used|invalid_nonce/.test(code)) return 'authorization_used'
  if (/insufficient_(balance|funds)/.test(code)) return 'insufficient_funds'
  if (/settlement_gas_over_ceiling/.test(code)) return 'settlement_gas_over_ceiling'
  return fallback
}
