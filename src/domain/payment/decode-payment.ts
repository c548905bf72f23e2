import {
  ADDRESS_PATTERN,
  isBytes32Text,
  isNonEmptyBytesText,
  lowerHex,
} from '@pre-send-guard/client/types'
import { decodePaymentSignatureHeader } from '@x402/core/http'
import { parsePaymentPayload } from '@x402/core/schemas'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { type Address, getAddress, type Hex } from 'viem'
import { z } from 'zod'
import type { PaymentReason } from './payment-reasons.js'

const address = z.string().regex(ADDRESS_PATTERN)
const uint = z.string().regex(/^[0-9]{1,78}$/)
/**
 * The exact/EVM EIP-3009 payload, and nothing else. Strict on purpose: `@x402/evm` routes a
 * payload holding `permit2Authorization` to its Permit2 path whatever else it holds, so a loose
 * schema would let a fake `authorization` (our ledger identity, our receipt) ride along with a
 * real Permit2 payment that nobody here checked.
 */
const eip3009PayloadSchema = z.strictObject({
  // Typed `Hex` once accepted (the guard checks the same as the pattern did).
  signature: z.custom<Hex>(isNonEmptyBytesText),
  authorization: z.strictObject({
    from: address,
    to: address,
    value: uint,
    validAfter: uint,
    validBefore: uint,
    // The guard narrows: the nonce is typed `Hex` once accepted (the same check as the pattern).
    nonce: z.custom<Hex>(isBytes32Text),
  }),
})

/** The inner exact/EVM payload exactly as signed: `{signature, authorization}`. */
export type Eip3009Payload = z.infer<typeof eip3009PayloadSchema>

/**
 * Clock slack allowed on `validBefore` beyond the offer's `maxTimeoutSeconds`: stock x402
 * clients sign `validBefore = now + maxTimeoutSeconds` with their own clock.
 */
export const VALIDITY_SLACK_SECONDS = 120
/** `@x402/evm` refuses an authorization expiring within 6 s; refuse it here the same way. */
const MIN_REMAINING_SECONDS = 6

/** The EIP-3009 `TransferWithAuthorization` inside an exact/EVM payment, normalised. */
export interface Authorization {
  payer: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  /** Lower-case bytes32: unique per payer and token, which makes it the payment's identity. */
  nonce: Hex
}

/** A PAYMENT-SIGNATURE that decoded into an x402 v2 exact/EVM payment for our offer. */
export interface DecodedPayment {
  /**
   * The payload forwarded to the facilitator, rebuilt from checked parts only: our offer as
   * `accepted` and the strict `{signature, authorization}`. Nothing else the client sent
   * (extensions, extra payload members) reaches the facilitator.
   */
  payload: PaymentPayload
  /** The inner payload as signed; its canonical hash identifies "the same payment". */
  inner: Eip3009Payload
  /** The payload as the client sent it (ledgers before migration 2 keyed on its hash). */
  received: PaymentPayload
  authorization: Authorization
}

/** Decoding outcome: the payment, or the 402 reason it fails with. */
export type DecodePaymentResult =
  | { ok: true; payment: DecodedPayment }
  | { ok: false; reason: PaymentReason; detail?: string }

/**
 * Decodes and checks a PAYMENT-SIGNATURE header against our one offer, without any I/O:
 * {@link decodePaymentShape}, then {@link validityProblem} at `nowSeconds`.
 * Signature and balance are the facilitator's to verify.
 *
 * @param nowSeconds - Unix time to judge validity by (default: this machine's clock).
 */
export function decodePayment(
  header: string,
  offer: PaymentRequirements,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): DecodePaymentResult {
  const decoded = decodePaymentShape(header, offer)
  if (!decoded.ok) return decoded
  const problem = validityProblem(decoded.payment.authorization, offer, nowSeconds)
  return problem ? { ok: false, ...problem } : decoded
}

/**
 * Decodes a PAYMENT-SIGNATURE header and checks everything about it that does not depend on
 * the time: base64 JSON (x402's own decoder), x402's PaymentPayload schema, version 2, the
 * `accepted` offer equal to ours field by field (so the reason names the field), a strict
 * EIP-3009 payload, and the signed authorization to our payTo for our amount. The paid route
 * looks the payment up in the ledger before judging its time window: a stored payment's
 * retry gets its stored answer whatever the time.
 */
export function decodePaymentShape(
  header: string,
  offer: PaymentRequirements,
): DecodePaymentResult {
  let raw: unknown
  try {
    raw = decodePaymentSignatureHeader(header.trim())
  } catch (error) {
    return { ok: false, reason: 'payment_undecodable', detail: (error as Error).message }
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, reason: 'payment_undecodable', detail: 'not a JSON object' }
  }
  const version = (raw as { x402Version?: unknown }).x402Version
  if (version !== 2) {
    return version === 1 || typeof version === 'number'
      ? { ok: false, reason: 'unsupported_x402_version', detail: `x402Version ${String(version)}` }
      : { ok: false, reason: 'payment_malformed', detail: 'x402Version missing' }
  }
  const parsed = parsePaymentPayload(raw)
  if (!parsed.success || parsed.data.x402Version !== 2) {
    const detail = parsed.success ? 'not a v2 payload' : parsed.error.issues[0]?.message
    return { ok: false, reason: 'payment_malformed', ...(detail ? { detail } : {}) }
  }
  const received = parsed.data as PaymentPayload
  const mismatch = offerMismatch(offer, received.accepted)
  if (mismatch) return { ok: false, reason: mismatch }
  const inner = eip3009PayloadSchema.safeParse(received.payload)
  if (!inner.success) {
    return {
      ok: false,
      reason: 'payment_malformed',
      detail:
        'payload must be exactly {signature, authorization} (EIP-3009), with no other members',
    }
  }
  const auth = inner.data.authorization
  const authorization: Authorization = {
    payer: getAddress(auth.from.toLowerCase()),
    to: getAddress(auth.to.toLowerCase()),
    value: BigInt(auth.value),
    validAfter: BigInt(auth.validAfter),
    validBefore: BigInt(auth.validBefore),
    nonce: lowerHex(auth.nonce),
  }
  // `accepted` is only what the client says it accepted; the signed authorization is what
  // actually moves money, so it must match the offer too.
  if (!sameAddress(authorization.to, offer.payTo)) {
    return { ok: false, reason: 'pay_to_mismatch', detail: 'authorization.to is not payTo' }
  }
  if (authorization.value !== BigInt(offer.amount)) {
    return { ok: false, reason: 'amount_mismatch', detail: 'authorization.value is not amount' }
  }
  return {
    ok: true,
    payment: {
      payload: { x402Version: 2, accepted: { ...offer }, payload: { ...inner.data } },
      inner: inner.data,
      received,
      authorization,
    },
  }
}

/**
 * The 402 reason an authorization fails with at `nowSeconds`: not valid yet, expiring within
 * 6 s (as `@x402/evm` refuses it), or valid for longer than the offer's `maxTimeoutSeconds`
 * plus {@link VALIDITY_SLACK_SECONDS}; undefined when its window is acceptable now.
 */
export function validityProblem(
  authorization: Authorization,
  offer: PaymentRequirements,
  nowSeconds: number,
): { reason: PaymentReason; detail: string } | undefined {
  const now = BigInt(nowSeconds)
  if (authorization.validAfter > now) {
    return { reason: 'authorization_not_yet_valid', detail: 'validAfter is ahead' }
  }
  if (authorization.validBefore < now + BigInt(MIN_REMAINING_SECONDS)) {
    return { reason: 'authorization_expired', detail: 'validBefore has passed' }
  }
  // The reconciler can only call an unused authorization failed once it expired: a payment
  // valid for a year would stay unresolved for a year.
  if (
    authorization.validBefore >
    now + BigInt(offer.maxTimeoutSeconds) + BigInt(VALIDITY_SLACK_SECONDS)
  ) {
    return {
      reason: 'authorization_validity_too_long',
      detail: `validBefore is more than ${offer.maxTimeoutSeconds + VALIDITY_SLACK_SECONDS} s away`,
    }
  }
  return undefined
}

/** Which field of the accepted offer differs from ours, or undefined when it is ours. */
export function offerMismatch(
  offer: PaymentRequirements,
  accepted: PaymentRequirements,
): PaymentReason | undefined {
  if (accepted.scheme !== offer.scheme) return 'scheme_mismatch'
  if (accepted.network !== offer.network) return 'network_mismatch'
  if (!sameAddress(accepted.asset, offer.asset)) return 'asset_mismatch'
  if (accepted.amount !== offer.amount) return 'amount_mismatch'
  if (!sameAddress(accepted.payTo, offer.payTo)) return 'pay_to_mismatch'
  if (accepted.maxTimeoutSeconds !== offer.maxTimeoutSeconds) return 'offer_mismatch'
  for (const [key, value] of Object.entries(offer.extra ?? {})) {
    if (accepted.extra?.[key] !== value) return 'offer_mismatch'
  }
  return undefined
}

function sameAddress(a: unknown, b: string): boolean {
  return typeof a === 'string' && a.toLowerCase() === b.toLowerCase()
}
