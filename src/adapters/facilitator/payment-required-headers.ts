import { encodePaymentRequiredHeader } from '@x402/core/http'
import { paidResource } from '../../domain/payment/offer.js'
import type { PaymentRail } from '../../domain/payment/payment-rail.js'
import type { PaymentReason } from '../../domain/payment/payment-reasons.js'

/** The encoded PAYMENT-REQUIRED header of the paid route for a reason on a base URL. */
export type PaymentRequiredHeaders = (baseUrl: string, reason: PaymentReason) => Promise<string>

/** Encoded headers kept at most (per app): past it the oldest goes. */
export const PAYMENT_REQUIRED_CACHE_SIZE = 64

/**
 * The paid route's PAYMENT-REQUIRED headers over `rail`, cached per (base URL, reason). The
 * PaymentRequired depends on nothing else (the rail's requirements are fixed when it is built,
 * the resource is the route's URL on `baseUrl`, and the extensions are fixed per app), so each
 * one is built and base64-encoded once and then reused, byte for byte; `extensions` is called
 * only on a miss. Bounded: without PUBLIC_BASE_URL the base URL comes from the request's Host,
 * which a client chooses; past the bound the oldest entry goes. A failed build is not kept:
 * the next request tries again. Built once per app by the composition (`src/service/build-app.ts`,
 * or `createApp` for an app built without one).
 */
export function createPaymentRequiredHeaders(
  rail: Pick<PaymentRail, 'paymentRequired'>,
  extensions: () => Record<string, unknown>,
  size = PAYMENT_REQUIRED_CACHE_SIZE,
): PaymentRequiredHeaders {
  const cache = new Map<string, Promise<string>>()
  return (baseUrl, reason) => {
    const key = `${reason} ${baseUrl}`
    const cached = cache.get(key)
    if (cached) return cached
    const header = rail
      .paymentRequired(paidResource(baseUrl), reason, extensions())
      .then(encodePaymentRequiredHeader)
    // A failed build is not kept: the next request tries again.
    header.catch(() => cache.delete(key))
    if (cache.size >= size) {
      const oldest = cache.keys().next().value
      if (oldest !== undefined) cache.delete(oldest)
    }
    cache.set(key, header)
    return header
  }
}
