import type { ServedNetwork } from '../types/networks.js'
import { ROUTES, routePath } from '../types/routes.js'
import { DEFAULT_MAX_PAYMENT } from './check-challenge.js'
import { GuardError } from './guard-error.js'
import { decodeOffer, errorOf, parseBody, unreachable } from './guard-replies.js'
import {
  AuthorizationResultSchema,
  BundleResultSchema,
  DiscoveryReaderSchema,
  PageEvidenceSchema,
  PreflightResultSchema,
  ReceiptSchema,
  TypedDataResultSchema,
  UserOperationResultSchema,
} from './guard-responses.js'
import type { GuardClient, GuardClientOptions } from './guard-types.js'
import { overloadRetriesOf, retryWhenShed } from './overload-retry.js'
import { paidPreflight } from './paid-preflight.js'
import { servedNetworkOf } from './served-network.js'
import { verifyReceipt } from './verify-receipt.js'

export * from './guard-types.js'

/**
 * Creates a client of the guard at `baseUrl`. Replies are validated; failures are GuardErrors
 * with the service's `error` code.
 *
 * @example
 * const guard = createGuardClient({ baseUrl: 'http://127.0.0.1:8402' })
 * const { verdict, findings } = await guard.preflight({ from, to, data: '0x', value: '0x0' })
 */
export function createGuardClient(options: GuardClientOptions): GuardClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const fetchFn = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 30_000
  const maxPayment = options.maxPayment ?? DEFAULT_MAX_PAYMENT
  const overloadRetries = overloadRetriesOf(options.overloadRetries)

  /** One request, bounded by `boundMs` (default `timeoutMs`); no answer is `guard_unreachable`. */
  async function send(url: string, init: RequestInit = {}, boundMs = timeoutMs) {
    try {
      const signal = AbortSignal.timeout(Math.max(1, Math.ceil(boundMs)))
      return await fetchFn(url, { ...init, signal })
    } catch (error) {
      throw unreachable(url, error)
    }
  }

  const postJson = (
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
    boundMs?: number,
  ) =>
    send(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      },
      boundMs,
    )

  /**
   * Sends `attempt` (given the ms it may take) again while the guard sheds it (503
   * `overloaded`: nothing ran, nothing was charged), as its `Retry-After` asks. Every try and
   * wait ends within `timeoutMs` after `since` (the call's start, `performance.now()`; default
   * now). `first`: the answer already had.
   */
  const unlessShed = async (
    attempt: (boundMs: number) => Promise<Response>,
    { first, since = performance.now() }: { first?: Response; since?: number } = {},
  ) => {
    const deadline = since + timeoutMs
    return retryWhenShed(first ?? (await attempt(deadline - performance.now())), attempt, {
      retries: overloadRetries,
      deadline,
    })
  }

  /** A free preflight: POSTed, and sent again if shed. */
  const preflightPost = (path: string, body: unknown) =>
    unlessShed((boundMs) => postJson(path, body, {}, boundMs))

  // The served network never changes while a guard runs: asked once, kept (not a failure).
  let served: Promise<ServedNetwork | undefined> | undefined

  const client: GuardClient = {
    baseUrl,

    async discovery() {
      const res = await send(`${baseUrl}${ROUTES.discovery}`)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, DiscoveryReaderSchema, 'discovery document')
    },

    network() {
      served ??= client.discovery().then(servedNetworkOf, (error: unknown) => {
        // A guard without a paid route publishes no discovery: it names no network.
        if (error instanceof GuardError && error.status === 404) return undefined
        served = undefined
        throw error
      })
      return served
    },

    async preflight(tx) {
      const res = await preflightPost(ROUTES.transactionPreflight, tx)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, PreflightResultSchema, 'preflight answer')
    },

    async typedDataPreflight(request) {
      const res = await preflightPost(ROUTES.typedDataPreflight, request)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, TypedDataResultSchema, 'typed-data preflight answer')
    },

    async bundlePreflight(bundle) {
      const res = await preflightPost(ROUTES.bundlePreflight, bundle)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, BundleResultSchema, 'bundle preflight answer')
    },

    async authorizationPreflight(request) {
      const res = await preflightPost(ROUTES.authorizationPreflight, request)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, AuthorizationResultSchema, 'authorization preflight answer')
    },

    async userOperationPreflight(request) {
      const res = await preflightPost(ROUTES.userOperationPreflight, request)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, UserOperationResultSchema, 'user-operation preflight answer')
    },

    async unpaidChallenge(tx, opts = {}) {
      const route = opts.discovery?.route ?? ROUTES.paidTransactionPreflight
      const url = `${baseUrl}${route}`
      const res = await postJson(route, tx)
      // A malformed body or a broken guard is the buyer's to fix, not a challenge to judge.
      if (res.status === 422 || res.status >= 500) throw await errorOf(res)
      return {
        url,
        status: res.status,
        body: await res.json().catch(() => undefined),
        paymentRequired: decodeOffer(res.headers.get('PAYMENT-REQUIRED')),
      }
    },

    paidPreflight(tx, opts = {}) {
      return paidPreflight(
        {
          baseUrl,
          fetch: fetchFn,
          timeoutMs,
          maxPayment,
          payer: options.payer,
          discovery: () => client.discovery(),
          postJson,
          unlessShed,
        },
        tx,
        opts,
      )
    },

    async receipt(id) {
      const res = await send(`${baseUrl}${routePath(ROUTES.receipt, { id })}`)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, ReceiptSchema, 'receipt')
    },

    async receiptByAuthorization(payer, nonce) {
      const res = await send(
        `${baseUrl}${routePath(ROUTES.receiptByAuthorization, { payer, nonce })}`,
      )
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, ReceiptSchema, 'receipt')
    },

    verifyReceipt(receipt, discovery, binding) {
      return verifyReceipt(receipt, discovery, binding)
    },

    async evidence(url, maxChars) {
      const res = await postJson(ROUTES.evidence, {
        url,
        ...(maxChars === undefined ? {} : { max_chars: maxChars }),
      })
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, PageEvidenceSchema, 'page evidence')
    },
  }
  return client
}
