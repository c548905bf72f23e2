import type { PaymentChallenge as ChallengeBody } from '@pre-send-guard/client/schemas'
import type { Address } from 'viem'
import { PRICE, PRODUCT } from './offer.js'
import type { PaymentRail, RailReadiness } from './payment-rail.js'
import { networkMismatchMessage, PAYMENT_REASONS, type PaymentReason } from './payment-reasons.js'

/** Paths of the pages the challenge points a newcomer to (served on the same host). */
export const FIRST_CHECK_PATH = '/first-unpaid-402'
export const QUICKSTART_PATH = '/quickstart'
export const BROWSER_DEMO_PATH = '/first-unpaid-402#browser-demo'

/** The 402 body of the paid route (`error: payment_required`, product, price, network, the first-check, quickstart and demo URLs, `settlement.railReadiness`), declared once in the client package's schemas. */
export type { PaymentChallenge as ChallengeBody } from '@pre-send-guard/client/schemas'

/** Absolute URLs of the onboarding pages on `baseUrl` (no trailing slash). */
export function onboardingUrls(baseUrl: string) {
  return {
    firstCheckUrl: `${baseUrl}${FIRST_CHECK_PATH}`,
    quickstartUrl: `${baseUrl}${QUICKSTART_PATH}`,
    browserDemoUrl: `${baseUrl}${BROWSER_DEMO_PATH}`,
  }
}

/** Builds the 402 body for `reason`. */
export function challengeBody(params: {
  baseUrl: string
  readiness: RailReadiness
  reason: PaymentReason
  detail?: string
  facilitatorReason?: string
  requestId?: string
}): ChallengeBody {
  const base =
    params.reason === 'network_mismatch'
      ? networkMismatchMessage(params.readiness.network)
      : PAYMENT_REASONS[params.reason]
  return {
    error: 'payment_required',
    product: PRODUCT,
    price: PRICE,
    network: params.readiness.network,
    ...onboardingUrls(params.baseUrl),
    settlement: { railReadiness: params.readiness },
    reason: params.reason,
    // Upstream details can be long (viem errors): keep the body small and the header readable.
    message: params.detail ? `${base} (${params.detail.slice(0, 200)})` : base,
    ...(params.facilitatorReason ? { facilitatorReason: params.facilitatorReason } : {}),
    issues: [],
    ...(params.requestId ? { requestId: params.requestId } : {}),
  }
}

/** The rail's readiness right now, from cached facts only (never waits on the network). */
export function railReadiness(params: {
  rail: Pick<PaymentRail, 'requirements' | 'facilitatorStatus'>
  receiptSigner: Address | null
}): RailReadiness {
  const facilitator = params.rail.facilitatorStatus()
  const payTo = params.rail.requirements.payTo
  return {
    ready: facilitator.supportsExactBase && params.receiptSigner !== null,
    network: params.rail.requirements.network,
    asset: params.rail.requirements.asset,
    payTo,
    facilitator,
    receiptSigner: { configured: params.receiptSigner !== null, address: params.receiptSigner },
  }
}

/**
 * The paid route's 402 body for `reason`, with the rail's readiness right now (cached facts
 * only). Upstream words (`detail`, `facilitatorReason`) arrive already scrubbed of secrets.
 */
export function paidChallengeBody(
  deps: {
    rail: Pick<PaymentRail, 'requirements' | 'facilitatorStatus'>
    receiptSigner: { address: Address }
  },
  params: Omit<Parameters<typeof challengeBody>[0], 'readiness'>,
): ChallengeBody {
  return challengeBody({
    ...params,
    readiness: railReadiness({ rail: deps.rail, receiptSigner: deps.receiptSigner.address }),
  })
}

/** The paid route's 402 body as JSON text: see {@link createPaidChallengeJson}. */
export type PaidChallengeJson = (
  deps: Parameters<typeof paidChallengeBody>[0],
  params: Parameters<typeof paidChallengeBody>[1],
) => string

/** Bodies kept at most by one {@link createPaidChallengeJson}: past it the oldest goes. */
const PAID_CHALLENGE_JSON_CACHE_SIZE = 64

/**
 * The paid route's 402 body as JSON text, byte for byte `JSON.stringify(paidChallengeBody(...))`,
 * without building and serializing the same body on every unpaid call. A body without upstream
 * words depends only on the rail, its readiness, the reason, the base URL and the request id,
 * which is its last key: the text before the request id is kept per (reason, base URL) while
 * the rail, the facilitator status it reports (a new object whenever it changes) and the
 * receipt signer are the same ones, and the request id is appended. A body quoting upstream
 * words is built in full every time. Bounded like the PAYMENT-REQUIRED headers: the base URL
 * can come from the request's Host.
 */
export function createPaidChallengeJson(size = PAID_CHALLENGE_JSON_CACHE_SIZE): PaidChallengeJson {
  const cache = new Map<
    string,
    { rail: object; facilitator: object; signer: Address; head: string }
  >()
  return (deps, params) => {
    if (params.detail || params.facilitatorReason) {
      return JSON.stringify(paidChallengeBody(deps, params))
    }
    const readiness = railReadiness({ rail: deps.rail, receiptSigner: deps.receiptSigner.address })
    const key = `${params.reason} ${params.baseUrl}`
    let entry = cache.get(key)
    if (
      entry?.rail !== deps.rail ||
      entry.facilitator !== readiness.facilitator ||
      entry.signer !== deps.receiptSigner.address
    ) {
      // Without the request id the body ends with its last other key; the id goes after it.
      const text = JSON.stringify(
        challengeBody({ baseUrl: params.baseUrl, reason: params.reason, readiness }),
      )
      entry = {
        rail: deps.rail,
        facilitator: readiness.facilitator,
        signer: deps.receiptSigner.address,
        head: text.slice(0, -1),
      }
      cache.delete(key)
      if (cache.size >= size) {
        const oldest = cache.keys().next().value
        if (oldest !== undefined) cache.delete(oldest)
      }
      cache.set(key, entry)
    }
    return params.requestId
      ? `${entry.head},"requestId":${JSON.stringify(params.requestId)}}`
      : `${entry.head}}`
  }
}
