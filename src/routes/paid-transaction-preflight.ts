import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import {
  PaidPreflightResponseSchema,
  PaymentChallengeSchema,
  requestBodiesOn,
} from '@pre-send-guard/client/schemas'
import {
  DEFAULT_NETWORK,
  type NetworkFacts,
  type PaymentReason,
  ROUTES,
} from '@pre-send-guard/client/types'
import { encodePaymentResponseHeader } from '@x402/core/http'
import type { Context, TypedResponse } from 'hono'
import type { TransactionInput } from '../domain/evm/transaction.js'
import {
  type ChallengeBody,
  createPaidChallengeJson,
  type PaidChallengeJson,
} from '../domain/payment/challenge.js'
import { PRICE, paidResource } from '../domain/payment/offer.js'
import { handlePaidPreflight, type PaidPreflightDeps } from '../domain/payment/paid-preflight.js'
import type {
  ErrorOutcome,
  PaidPreflightOutcome,
  PaymentRequiredOutcome,
  PhaseTimings,
} from '../domain/payment/paid-preflight-outcome.js'
import {
  PAYMENT_IDENTIFIER,
  paymentIdentifierDeclaration,
} from '../domain/payment/payment-identifier.js'
import { AppError } from '../errors.js'
import { publicBaseUrl } from '../http/base-url.js'
import { jsonBody } from '../http/json-body.js'
import { refundRateLimit } from '../http/rate-limit.js'
import { completeAnswer } from '../http/security-headers.js'
import type { Redactor } from '../secrets.js'
import { paidRouteBazaar } from './paid-route-bazaar.js'
import { toTransactionInput } from './request-inputs.js'
import { errorResponses } from './schemas/error-body.js'

/** What the paid route needs beyond the preflight itself. */
export interface PaidTransactionPreflightDeps {
  maxBodyBytes: number
  /** The served network (the body's chain id, the payment's network); Base mainnet when absent. */
  network?: NetworkFacts
  /** Origin for absolute URLs in the challenge; the request's origin when unset. */
  publicBaseUrl: string | undefined
  paid: () => PaidPreflightDeps
  /**
   * The encoded PAYMENT-REQUIRED header for a reason on a base URL: an adapter that builds it
   * over the rail and keeps it (`adapters/facilitator/payment-required-headers.ts`).
   */
  paymentRequiredHeader: (baseUrl: string, reason: PaymentReason) => Promise<string>
  /** Scrubs the facilitator's quoted words in a 402 body (the app's one redactor). */
  redactor: Redactor
  /**
   * Admission control at the door, for a call carrying a payment: the error that sheds it
   * (503 `overloaded`) before it claims anything, or undefined to go on. Once it holds its
   * payment its preflight waits for a slot instead (`runPreflight`). An unpaid call (the 402)
   * runs no preflight and is never shed.
   */
  shedPaid?: () => AppError | undefined
  /**
   * Told how each paid call ended (metrics): `paid`, `replayed`, `payment_required` with its
   * reason, or the error code; with the settle time when settle ran.
   */
  onOutcome?: (outcome: string, reason: string | undefined, settleMs: number | undefined) => void
}

/**
 * The paid operation's `x-payment-info` in the OpenAPI document: a fixed price in USD, paid
 * over x402 (the 402's PAYMENT-REQUIRED carries the exact offer: USDC on eip155:8453).
 */
const paymentInfo = (network: NetworkFacts) =>
  ({
    price: { mode: 'fixed', currency: 'USD', amount: PRICE.replace(/^\$/, '') },
    protocols: [{ x402: { network: network.id, x402Version: 2 } }],
  }) as const

/** The paid route's bazaar declaration per network (built once each: it never changes). */
const bazaarOn = new Map<string, ReturnType<typeof paidRouteBazaar>>()

/** The x402 extensions every 402 of the paid route declares: bazaar and payment-identifier. */
export function paidTransactionPreflightExtensions(
  paid: Pick<PaidPreflightDeps, 'paymentIdentifierRequired'>,
  network: NetworkFacts = DEFAULT_NETWORK,
): Record<string, unknown> {
  let bazaar = bazaarOn.get(network.id)
  if (!bazaar) {
    bazaar = paidRouteBazaar(network)
    bazaarOn.set(network.id, bazaar)
  }
  return {
    ...bazaar,
    [PAYMENT_IDENTIFIER]: paymentIdentifierDeclaration(paid.paymentIdentifierRequired ?? false),
  }
}

/** Builds the paid route's definition. */
export function paidTransactionPreflightRoute(
  maxBodyBytes: number,
  network: NetworkFacts = DEFAULT_NETWORK,
) {
  return createRoute({
    method: 'post',
    path: ROUTES.paidTransactionPreflight,
    operationId: 'paidTransactionPreflight',
    tags: ['preflight'],
    summary: 'Paid preflight ($0.01 USDC on Base, x402 v2) with a signed PRE_SEND_PROOF_RECEIPT',
    description:
      'Simulates the transaction (never broadcasts) like the read-only preflight and returns the result with an EIP-712 signed receipt. Without payment: 402 with the x402 v2 PAYMENT-REQUIRED header. Order: body validated (422), payment decoded and verified (402), preflight run (503 if the RPC is down: nothing charged), payment settled (402 if the facilitator refuses it before sending anything: no result; 503 settlement_pending when the outcome is unknown), 200 with PAYMENT-RESPONSE. Retrying with the same PAYMENT-SIGNATURE returns the stored answer and is never charged twice.',
    middleware: jsonBody(maxBodyBytes),
    // What OpenAPI-reading x402 indexers (x402scan) look for on a paid operation.
    'x-payment-info': paymentInfo(network),
    request: {
      headers: z.object({
        'payment-signature': z.string().optional().openapi({
          description: 'x402 v2 payment: base64 of the PaymentPayload JSON.',
        }),
      }),
      body: {
        required: true,
        content: { 'application/json': { schema: requestBodiesOn(network).transaction } },
      },
    },
    responses: {
      200: {
        description:
          'Preflight result and receipt. PAYMENT-RESPONSE carries the settlement, with the x402 offer-receipt extension\'s EIP-712 signed receipt in its extensions["offer-receipt"].info.receipt (same receipt key).',
        content: { 'application/json': { schema: PaidPreflightResponseSchema } },
      },
      402: {
        description:
          'Payment required (no payment, or it was rejected, or settlement failed). PAYMENT-REQUIRED header always set.',
        content: { 'application/json': { schema: PaymentChallengeSchema } },
      },
      ...errorResponses({
        400: 'x402 payment-identifier: `invalid_payment_identifier` (an id outside 16-128 of [A-Za-z0-9_-]) or `payment_identifier_required` (the service requires one and the payment has none). Nothing was charged.',
        409: '`payment_identifier_conflict`: the payment-identifier already names another payment or another request body. Nothing was charged; the first call keeps its answer.',
        422: 'Invalid transaction input; no payment is looked at.',
        429: "Too many requests from this client (the free routes' rate limit; a call carrying PAYMENT-SIGNATURE counts too, until its payment verified: then its token is given back, so paid calls never throttle their payer). Retry-After and the IETF RateLimit-Policy/RateLimit fields are set.",
        431: '`headers_too_large`: PAYMENT-SIGNATURE over 16 KiB (or headers over 64 KiB).',
        502: '`facilitator_unavailable`: the payment facilitator is unavailable (nothing was charged), or it reported a settlement the chain does not show (no receipt; the payment stays pending: retry with the same PAYMENT-SIGNATURE).',
        503: 'Retry with the same PAYMENT-SIGNATURE (Retry-After is set; never charged twice): `overloaded` (every preflight slot of the instance was taken, or its event loop lagged past SHED_EVENT_LOOP_DELAY_MS with another preflight in flight, when the call arrived: it was refused before its payment was looked at, nothing charged; a call that already holds its payment waits for a slot instead), `rpc_unavailable` (nothing charged), `ledger_unavailable` (the payment ledger is down), `payment_in_progress` (a living request holds this payment until its lease, named in the message, runs out; then a retry takes it over and finishes it from the chain), `settlement_pending` (the settlement outcome is being resolved from the chain).',
      }),
    },
  })
}

/** Mounts the paid route, `POST /simulate/transaction-preflight`. */
export function registerPaidTransactionPreflight(
  app: OpenAPIHono,
  deps: PaidTransactionPreflightDeps,
): void {
  const { middleware, ...documented } = paidTransactionPreflightRoute(
    deps.maxBodyBytes,
    deps.network,
  )
  // PAYMENT-SIGNATURE is documented, not validated: an optional string header cannot fail, and
  // hono's header validator copies every request header into a new object on every call (the
  // unpaid 402's path, bench/unpaid-402.ts). The handler reads the header itself.
  app.openAPIRegistry.registerPath(documented)
  const { headers: _documentedOnly, ...request } = documented.request
  // The 402 body's text, kept per reason and base URL (the unpaid call's path).
  const challengeJson = createPaidChallengeJson()
  app.openapi({ ...documented, middleware, request, hide: true }, async (c) => {
    const body = c.req.valid('json')
    const paid = deps.paid()
    const header = c.req.header('payment-signature')
    const baseUrl = publicBaseUrl(c, deps.publicBaseUrl)
    if (header === undefined) {
      if (c.req.header('x-payment') !== undefined) {
        return challenge(c, deps, challengeJson, paid, baseUrl, {
          reason: 'unsupported_x402_version',
        })
      }
      // What `handlePaidPreflight` answers a call without a payment (it holds nothing, times
      // nothing), without the call record it sets up for one that has a payment.
      deps.onOutcome?.('payment_required', 'payment_missing', undefined)
      return challenge(c, deps, challengeJson, paid, baseUrl, { reason: 'payment_missing' })
    }
    const shed = deps.shedPaid?.()
    if (shed) throw shed
    let outcome: PaidPreflightOutcome
    let tx: TransactionInput | undefined
    try {
      outcome = await handlePaidPreflight(paid, {
        body,
        // Converted on first read: a call without a payment never reads it (its 402 comes first).
        get tx() {
          tx ??= toTransactionInput(body)
          return tx
        },
        paymentHeader: header,
        resourceUrl: paidResource(baseUrl).url,
        // The client's rate-limit token comes back once its payment verified.
        onVerified: refundRateLimit(c),
      })
    } catch (error) {
      // A bug: the app's error renderer answers it (500, nothing of it leaks).
      deps.onOutcome?.(error instanceof AppError ? error.code : 'error', undefined, undefined)
      throw error
    }
    switch (outcome.kind) {
      case 'paid': {
        deps.onOutcome?.(
          outcome.replayed ? 'replayed' : 'paid',
          undefined,
          outcome.timings.settleMs,
        )
        const timing = serverTiming(outcome.timings)
        if (timing) c.header('Server-Timing', timing)
        // The settlement carries the x402 offer-receipt already (the domain signed it).
        c.header('PAYMENT-RESPONSE', encodePaymentResponseHeader(outcome.settlement))
        c.header('Cache-Control', 'private, no-store')
        return c.json({ result: outcome.result, receipt: outcome.receipt }, 200)
      }
      case 'payment_required':
        deps.onOutcome?.(outcome.kind, outcome.reason, outcome.timings.settleMs)
        return challenge(c, deps, challengeJson, paid, baseUrl, {
          ...outcome,
          serverTiming: serverTiming(outcome.timings),
        })
      default:
        deps.onOutcome?.(outcome.code, undefined, undefined)
        // Rendered by the app's one error renderer: the error body, its status and Retry-After.
        throw errorOf(outcome)
    }
  })
}

/**
 * The wire error of an outcome answered with an error body. By kind: `pending` 503
 * `settlement_pending`; `in_progress` and `abandoned` 503 `payment_in_progress`;
 * `unconfirmed` 502 `facilitator_unavailable`; `unavailable` 502/503 (the upstream's code);
 * `refused` 400/409 (the payment-identifier's code); `failed` (the stored failure's code).
 */
function errorOf(outcome: ErrorOutcome): AppError {
  return new AppError(outcome.code, outcome.message, {
    ...(outcome.retryAfter !== undefined ? { retryAfter: outcome.retryAfter } : {}),
    ...(outcome.issues ? { issues: outcome.issues } : {}),
  })
}

type Challenge = Pick<
  PaymentRequiredOutcome,
  'reason' | 'detail' | 'facilitatorReason' | 'settlement'
> & { serverTiming?: string | undefined }

/**
 * Every 402 of the route: the PAYMENT-REQUIRED header and the spec's body with a reason, as
 * one complete answer (every header in one plain record, the app's own included: the unpaid
 * call's path, bench/unpaid-402.ts).
 */
async function challenge(
  c: Context,
  deps: PaidTransactionPreflightDeps,
  challengeJson: PaidChallengeJson,
  paid: PaidPreflightDeps,
  baseUrl: string,
  outcome: Challenge,
) {
  const headers: Record<string, string> = {
    'cache-control': 'no-store',
    'content-type': 'application/json',
    'payment-required': await deps.paymentRequiredHeader(baseUrl, outcome.reason),
  }
  if (outcome.settlement)
    headers['payment-response'] = encodePaymentResponseHeader(outcome.settlement)
  if (outcome.serverTiming) headers['server-timing'] = outcome.serverTiming
  const requestId = c.get('requestId') as string | undefined
  const body = challengeJson(paid, {
    baseUrl,
    reason: outcome.reason,
    // Upstream words (the facilitator's message and code): scrubbed before the body cuts them.
    ...(outcome.detail ? { detail: deps.redactor.redact(outcome.detail) } : {}),
    ...(outcome.facilitatorReason
      ? { facilitatorReason: deps.redactor.redact(outcome.facilitatorReason) }
      : {}),
    ...(requestId ? { requestId } : {}),
  })
  // What `c.json(paidChallengeBody(...), 402)` answers (the same text and headers), typed so.
  return completeAnswer(c, 402, body, headers) as unknown as TypedResponse<
    ChallengeBody,
    402,
    'json'
  >
}

const TIMED_PHASES = ['verify', 'preflight', 'settle'] as const

/** The `Server-Timing` value of the phases that ran, or undefined when none did. */
function serverTiming(timings: PhaseTimings): string | undefined {
  let value = ''
  for (const phase of TIMED_PHASES) {
    const ms = timings[`${phase}Ms`]
    if (ms !== undefined) value += `${value ? ', ' : ''}${phase};dur=${ms.toFixed(1)}`
  }
  return value || undefined
}
