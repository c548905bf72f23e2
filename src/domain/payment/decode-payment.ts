import { decodePaymentSignatureHeader } from '@x402/core/http'
import { parsePaymentPayload } from '@x402/core/schemas'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { type Address, getAddress, type Hex } from 'viem'
import { z } from 'zod'
import type { PaymentReason } from './payment-reasons.js'

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
const uint = z.string().regex(/^[0-9]{1,78}$/)
const eip3009PayloadSchema = z.object({
  signature: z.string().regex(/^0x(?:[0-9a-fA-F]{2})+$/),
  authorization: z.object({
    from: address,
    to: address,
    value: uint,
    validAfter: uint,
    validBefore: uint,
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  }),
})

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
  payload: PaymentPayload
  authorization: Authorization
}

/** Decoding outcome: the payment, or the 402 reason it fails with. */
export type DecodePaymentResult =
  | { ok: true; payment: DecodedPayment }
  | { ok: false; reason: PaymentReason; detail?: string }

/**
 * Decodes and checks a PAYMENT-SIGNATURE header against our one offer, without any I/O:
 * base64 JSON (x402's own decoder), x402's PaymentPayload schema, version 2, the `accepted`
 * offer equal to ours field by field (so the reason names the field), and an EIP-3009 payload.
 * Signature, balance and expiry are the facilitator's to verify.
 */
export function decodePayment(header: string, offer: PaymentRequirements): DecodePaymentResult {
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
  const payload = parsed.data as PaymentPayload
  const mismatch = offerMismatch(offer, payload.accepted)
  if (mismatch) return { ok: false, reason: mismatch }
  const inner = eip3009PayloadSchema.safeParse(payload.payload)
  if (!inner.success) {
    return {
      ok: false,
      reason: 'payment_malformed',
      detail: 'payload is not an EIP-3009 authorization with a signature',
    }
  }
  const auth = inner.data.authorization
  return {
    ok: true,
    payment: {
      payload,
      authorization: {
        payer: getAddress(auth.from.toLowerCase()),
        to: getAddress(auth.to.toLowerCase()),
        value: BigInt(auth.value),
        validAfter: BigInt(auth.validAfter),
        validBefore: BigInt(auth.validBefore),
        nonce: auth.nonce.toLowerCase() as Hex,
      },
    },
  }
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
