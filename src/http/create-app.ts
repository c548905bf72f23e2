import type { IncomingMessage } from 'node:http'
import { OpenAPIHono } from '@hono/zod-openapi'
import { FREE_ROUTES_PREFIX, ROUTES } from '@pre-send-guard/client/types'
import type { Context } from 'hono'
import { cors } from 'hono/cors'
import { routePath } from 'hono/route'
import type { Logger } from 'pino'
import {
  createPaymentRequiredHeaders,
  type PaymentRequiredHeaders,
} from '../adapters/facilitator/payment-required-headers.js'
import { createServiceMetrics, type ServiceMetrics } from '../adapters/metrics/service-metrics.js'
import type { DevnetDescription } from '../domain/discovery/discovery-document.js'
import type { PageReader } from '../domain/evidence/page-reader.js'
import type { PhishingList } from '../domain/evidence/phishing-hosts.js'
import { BASE_MAINNET, type NetworkProfile } from '../domain/network/network-profile.js'
import { railReadiness } from '../domain/payment/challenge.js'
import type { PaidPreflightDeps } from '../domain/payment/paid-preflight.js'
import { type PreflightDeps, runPreflightAtTrackedHead } from '../domain/preflight/run-preflight.js'
import type { BucketPolicy, BucketStore } from '../domain/rate-limit/token-bucket.js'
import { AppError } from '../errors.js'
import { registerBaseAuthorizationPreflight } from '../routes/base-authorization-preflight.js'
import { registerBaseBundlePreflight } from '../routes/base-bundle-preflight.js'
import { registerBaseTransactionPreflight } from '../routes/base-transaction-preflight.js'
import { registerBaseTypedDataPreflight } from '../routes/base-typed-data-preflight.js'
import { registerBaseUserOperationPreflight } from '../routes/base-user-operation-preflight.js'
import { type DevnetFaucet, registerDevnetFaucet } from '../routes/devnet-faucet.js'
import { registerDiscovery } from '../routes/discovery.js'
import { registerMcp } from '../routes/mcp.js'
import { registerOpenApiDocument } from '../routes/openapi-document.js'
import { registerOperations } from '../routes/operations.js'
import {
  notFoundPage,
  pagesContentSecurityPolicy,
  registerPages,
  wantsHtml,
} from '../routes/pages.js'
import {
  paidTransactionPreflightExtensions,
  registerPaidTransactionPreflight,
} from '../routes/paid-transaction-preflight.js'
import { registerPublicPageEvidence } from '../routes/public-page-evidence.js'
import { registerReceipts } from '../routes/receipts.js'
import { DEFAULT_REDACTOR, type Redactor } from '../secrets.js'
import { createAdaptiveLimit, DEFAULT_MIN_PREFLIGHTS_IN_FLIGHT } from './adaptive-limit.js'
import { createErrorRenderer } from './errors.js'
import { mcpOriginAllowed } from './mcp-origins.js'
import {
  admitPreflight,
  createPreflightAdmission,
  DEFAULT_MAX_PREFLIGHTS_IN_FLIGHT,
  overloaded,
  type ShedReason,
  shedReason,
} from './preflight-admission.js'
import { createPreflightDoor, type PreflightDoor } from './preflight-door.js'
import { rateLimit } from './rate-limit.js'
import { answerHeaders } from './security-headers.js'

/** What the HTTP app needs; `main.ts` builds it from config, tests build it directly. */
export interface AppDeps {
  logger: Logger
  /**
   * Scrubs every error body (the configuration's secrets: `main.ts` builds it once). Default:
   * `DEFAULT_REDACTOR` (no configured secret known; any URL's userinfo still removed).
   */
  redactor?: Redactor
  environment: 'devnet' | 'mainnet'
  /** The served network (`NETWORK`): request chain ids, the offer, discovery; Base mainnet when absent. */
  network?: NetworkProfile
  maxBodyBytes: number
  /**
   * MAX_PREFLIGHTS_IN_FLIGHT: most preflights running at once (the free preflight routes and
   * the paid route's). A free preflight past it is shed with 503 `overloaded`, as is a paid call
   * that does not hold a payment yet; a paid call holding one waits its turn. Default:
   * `DEFAULT_MAX_PREFLIGHTS_IN_FLIGHT`.
   */
  maxPreflightsInFlight?: number
  /**
   * SHED_EVENT_LOOP_DELAY_MS: the door (`preflightDoor`) sheds new preflights while the event
   * loop lags past it (ms); 0 or absent: slots only.
   */
  shedEventLoopDelayMs?: number
  /**
   * PREFLIGHT_LIMIT_LOOP_DELAY_MS: the preflight bound is lowered while the event loop lags past
   * it and raised back when it does not (`adaptive-limit.ts`); 0 or absent: the bound is fixed.
   */
  preflightLimitLoopDelayMs?: number
  /** MIN_PREFLIGHTS_IN_FLIGHT: the adaptive bound's floor (DEFAULT_MIN_PREFLIGHTS_IN_FLIGHT). */
  minPreflightsInFlight?: number
  preflight: PreflightDeps
  /** Fetches public pages as markdown for the evidence route. */
  reader: PageReader
  /** Known phishing hosts the evidence route refuses (loaded on first use). */
  phishingList: () => Promise<PhishingList>
  /**
   * The paid route's rail, ledger and receipt key (the preflight comes from `preflight`).
   * Without it the paid route and `/receipts/{id}` are not mounted.
   */
  payments?: Omit<PaidPreflightDeps, 'runPreflight'>
  /**
   * The paid route's PAYMENT-REQUIRED headers, built and kept per app over `payments.rail`
   * (`src/service/build-app.ts` makes it); a fresh one over the rail when absent.
   */
  paymentRequiredHeaders?: PaymentRequiredHeaders
  /**
   * PUBLIC_BASE_URL: origin for absolute URLs in answers. Required on mainnet (the request's
   * Host header is the client's to choose); on the devnet the request's origin when unset.
   */
  publicBaseUrl?: string
  /**
   * MCP_ALLOWED_ORIGINS: browser origins besides the service's own that may call `POST /mcp`
   * (on the devnet, loopback pages may too).
   */
  mcpAllowedOrigins?: readonly string[]
  /** The embedded devnet, published in discovery; absent on mainnet. */
  devnet?: DevnetDescription
  /**
   * The devnet demo buyer's key (anvil test account #1: public, devnet only). Never in
   * discovery; shown on the devnet quickstart only, so its paid-call snippet runs as pasted.
   */
  devnetBuyerKey?: `0x${string}`
  /** The devnet faucet (`POST /devnet/faucet`); absent on mainnet, where the route is a 404. */
  devnetFaucet?: DevnetFaucet
  /** Prometheus metrics (`main.ts` shares them with the RPC client); a fresh set when absent. */
  metrics?: ServiceMetrics
  /** When set, `/metrics` needs `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string
  /** Rate limits on the free routes; none when absent. */
  rateLimits?: RateLimitSettings
  /** `/readyz` calls the RPC not ready when its latest block is older (s); none on the devnet. */
  readyMaxBlockAgeSeconds?: number
}

/** Rate limits on the free routes (see README, "Rate limits"). */
export interface RateLimitSettings {
  store: BucketStore
  /** The read-only preflights and unpaid calls to the paid route; unlimited when absent. */
  free?: BucketPolicy
  /** The public-page evidence route (it spends the reader's quota); unlimited when absent. */
  evidence?: BucketPolicy
  /** Trusted proxy header naming the client; the socket address when absent. */
  clientHeader?: string
  /** Loopback clients go unlimited (the devnet default: the user is the operator). */
  exemptLoopback: boolean
}

/** CORS for browser clients (x402 needs its headers exposed), on {@link browserFacing} paths. */
const CORS = {
  origin: '*',
  allowMethods: ['GET', 'POST', 'OPTIONS'],
  allowHeaders: ['Content-Type', 'PAYMENT-SIGNATURE', 'X-PAYMENT'],
  exposeHeaders: [
    'PAYMENT-REQUIRED',
    'PAYMENT-RESPONSE',
    'X-Request-Id',
    'Retry-After',
    'RateLimit',
    'RateLimit-Policy',
  ],
}
const EXPOSE_HEADERS = CORS.exposeHeaders.join(',')

/**
 * The paths a page on another origin may call (CORS): the free API routes, the paid route
 * (its PAYMENT-* headers exposed), discovery, the OpenAPI document and the receipts. Not the
 * operator's routes (`/healthz`, `/readyz`, `/metrics`), not `/mcp` (its clients are not
 * pages; it checks Origin instead), not the devnet faucet nor the pages and their scripts,
 * which only this origin's pages use.
 */
export function browserFacing(path: string): boolean {
  return (
    path.startsWith(FREE_ROUTES_PREFIX) ||
    path === ROUTES.paidTransactionPreflight ||
    path === ROUTES.discovery ||
    path === ROUTES.openapi ||
    path.startsWith('/receipts/')
  )
}

/** Anvil account #2, the devnet's payTo; only an example address when no rail is configured. */
const DEVNET_PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

/** Largest PAYMENT-SIGNATURE (or X-PAYMENT) accepted, in bytes: larger is a JSON 431. */
export const MAX_PAYMENT_HEADER_BYTES = 16 * 1024

/** The app, and its door: the server sheds preflights with it before the app sees them. */
export type GuardApp = OpenAPIHono & { preflightDoor: PreflightDoor }

/** Wires every route. No I/O happens here; adapters arrive in `deps`. */
export function createApp(deps: AppDeps): GuardApp {
  if (deps.environment === 'mainnet' && deps.publicBaseUrl === undefined) {
    // config.ts refuses to start so; an app built without it would print a forged Host.
    throw new Error('a mainnet app needs publicBaseUrl (PUBLIC_BASE_URL): it never reflects Host')
  }
  // One redactor for every error body and the paid route's quoted facilitator words.
  const redactor = deps.redactor ?? DEFAULT_REDACTOR
  const network = deps.network ?? BASE_MAINNET
  const errors = createErrorRenderer(redactor)
  const app = new OpenAPIHono({ defaultHook: errors.validationHook })
  // Without a rail the pages still explain the flow; the example pays the devnet payTo.
  const payTo = deps.payments?.rail.requirements.payTo ?? DEVNET_PAY_TO
  // The request id, the security headers and CORS, on the route's own answer (hono's `cors`
  // only for OPTIONS: on other requests it would write to `c.res` before the route runs, which
  // makes hono rebuild the route's answer around a placeholder, its body as a stream).
  app.use(
    '*',
    answerHeaders(pagesContentSecurityPolicy(payTo), {
      applies: browserFacing,
      preflight: cors(CORS),
      allowOrigin: CORS.origin,
      exposeHeaders: EXPOSE_HEADERS,
    }),
  )
  const metrics =
    deps.metrics ??
    createServiceMetrics({
      processMetrics: false,
      ...(deps.payments ? { unresolvedPayments: deps.payments.ledger.unresolvedCount } : {}),
    })
  // Each answer metered and logged; one layer with the PAYMENT-SIGNATURE size check. The server
  // lets headers up to 64 KiB through so that this refusal is ours, in JSON: a PAYMENT-SIGNATURE
  // is a few hundred bytes, and over 16 KiB breaks x402 clients anyway.
  app.use('*', async (c, next) => {
    const started = performance.now()
    const oversized = oversizedPaymentHeader(c)
    if (oversized) c.res = errors.response(c, oversized)
    else await next()
    const ms = performance.now() - started
    metrics.http([routeLabel(c), c.req.method, String(c.res.status)], ms / 1000)
    deps.logger.info(
      {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(ms),
      },
      'request',
    )
  })
  app.onError(errors.onError(deps.logger))
  // A browser gets a small page; API clients keep the JSON error body.
  app.notFound(async (c) =>
    wantsHtml(c)
      ? c.html(await notFoundPage(c.req.path, deps.environment), 404)
      : errors.notFound(c),
  )

  const limits = deps.rateLimits
  if (limits) {
    app.use(
      '*',
      rateLimit({
        store: limits.store,
        errorResponse: errors.response,
        exemptLoopback: limits.exemptLoopback,
        ...(limits.clientHeader ? { clientHeader: limits.clientHeader } : {}),
        policyFor: (c) => {
          if (c.req.method !== 'POST') return undefined
          if (c.req.path === ROUTES.evidence) return limits.evidence
          if (c.req.path.startsWith(FREE_ROUTES_PREFIX)) return limits.free
          // Every call counts as free, one carrying a payment too, until its payment verified:
          // the route gives the token back then (refundRateLimit), so a payer's paid volume
          // never throttles it while forged payments meet 429 as unpaid calls do.
          if (c.req.path === ROUTES.paidTransactionPreflight) return limits.free
          return undefined
        },
        onStoreError: (error) => {
          metrics.rateLimitStoreErrors.inc()
          deps.logger.warn({ err: error }, 'rate-limit store failed; request let through')
        },
        onLimited: (policy) => metrics.rateLimited.inc({ policy: policy.name }),
      }),
    )
  }

  // Admission control: the preflights in flight on this instance, bounded.
  const admission = createPreflightAdmission(
    deps.maxPreflightsInFlight ?? DEFAULT_MAX_PREFLIGHTS_IN_FLIGHT,
    (inFlight, waiting) => {
      metrics.preflightsInFlight.set(inFlight)
      metrics.preflightsWaiting.set(waiting)
    },
  )
  metrics.preflightsLimit.set(admission.limit)
  const adaptiveLimit =
    (deps.preflightLimitLoopDelayMs ?? 0) > 0
      ? createAdaptiveLimit({
          admission,
          minLimit: deps.minPreflightsInFlight ?? DEFAULT_MIN_PREFLIGHTS_IN_FLIGHT,
          targetDelayMs: deps.preflightLimitLoopDelayMs ?? 0,
          onChange: (limit) => metrics.preflightsLimit.set(limit),
        })
      : undefined
  /** Counts a shed, in the app or at the door; one for the slots tells the adaptive bound. */
  const shed = (route: string) => (reason: ShedReason) => {
    metrics.preflightsShed.inc({ route, reason })
    if (reason === 'slots') adaptiveLimit?.shedForSlots()
  }
  // The door is made once every route is: the routes ask it whether the loop lags.
  let preflightDoor: PreflightDoor | undefined
  const loopLags = () => preflightDoor?.loopLags() ?? false
  const freeRoutes: string[] = []
  const freePreflight = (route: string) => {
    freeRoutes.push(route)
    return {
      maxBodyBytes: deps.maxBodyBytes,
      network,
      preflight: () => deps.preflight,
      admit: admitPreflight(admission, shed(route), loopLags),
    }
  }

  const payments = deps.payments
  let lastRailDetail: string | undefined
  registerOperations(app, {
    environment: deps.environment,
    errorResponse: errors.response,
    chainId: deps.preflight.chainId,
    metrics: metrics.registry,
    ...(deps.metricsToken ? { metricsToken: deps.metricsToken } : {}),
    readiness: {
      latestBlock: () => deps.preflight.chain.latestBlock(),
      maxBlockAgeSeconds: deps.readyMaxBlockAgeSeconds,
      timeoutMs: 3_000,
      ...(payments
        ? {
            ledger: () => payments.ledger.unresolvedCount(),
            paymentRail: () => {
              const rail = railReadiness({
                rail: payments.rail,
                receiptSigner: payments.receiptSigner.address,
              })
              if (rail.ready) return { ready: true }
              // Public words only: the facilitator's own error text goes to `detail`, which
              // /readyz shows behind the metrics token, and to the log (once per new text).
              const detail =
                rail.facilitator.error === undefined
                  ? undefined
                  : redactor.redact(rail.facilitator.error)
              if (detail !== undefined && detail !== lastRailDetail) {
                deps.logger.warn({ detail }, 'readiness: the payment rail is not ready')
              }
              lastRailDetail = detail
              return {
                ready: false,
                problem: rail.receiptSigner.configured
                  ? `the facilitator does not list exact on ${network.id} (x402 v2), or its last /supported check failed`
                  : 'no receipt key is configured',
                ...(detail === undefined ? {} : { detail }),
              }
            },
          }
        : {}),
    },
  })

  registerBaseTransactionPreflight(app, freePreflight(ROUTES.transactionPreflight))
  registerBaseTypedDataPreflight(app, freePreflight(ROUTES.typedDataPreflight))
  registerBaseBundlePreflight(app, freePreflight(ROUTES.bundlePreflight))
  registerBaseAuthorizationPreflight(app, freePreflight(ROUTES.authorizationPreflight))
  registerBaseUserOperationPreflight(app, freePreflight(ROUTES.userOperationPreflight))
  const reader = observedReader(deps.reader, (outcome) => metrics.readerOutcomes.inc({ outcome }))
  registerPublicPageEvidence(app, {
    maxBodyBytes: deps.maxBodyBytes,
    reader: () => reader,
    phishingList: deps.phishingList,
  })
  if (payments) {
    const paid: PaidPreflightDeps = {
      ...payments,
      // The call holds its payment by now: it waits for a slot, never shed.
      runPreflight: async (tx) => {
        const release = await admission.enter()
        try {
          return await runPreflightAtTrackedHead(deps.preflight, tx)
        } finally {
          release()
        }
      },
    }
    registerPaidTransactionPreflight(app, {
      maxBodyBytes: deps.maxBodyBytes,
      network,
      publicBaseUrl: deps.publicBaseUrl,
      paid: () => paid,
      paymentRequiredHeader:
        deps.paymentRequiredHeaders ??
        createPaymentRequiredHeaders(payments.rail, () =>
          paidTransactionPreflightExtensions(payments, network),
        ),
      redactor,
      shedPaid: () => {
        const reason = shedReason(admission, loopLags)
        if (reason === undefined) return undefined
        shed(ROUTES.paidTransactionPreflight)(reason)
        return overloaded(admission, reason)
      },
      onOutcome: (outcome, reason, settleMs) => {
        metrics.payments.inc({ outcome, reason: reason ?? '' })
        if (settleMs !== undefined) metrics.settlementDuration.observe(settleMs / 1000)
      },
    })
    registerReceipts(app, {
      ledger: () => payments.ledger,
      offer: () => payments.rail.requirements,
    })
    registerDiscovery(app, {
      publicBaseUrl: deps.publicBaseUrl,
      network,
      environment: deps.environment,
      rail: payments.rail,
      receiptSigner: payments.receiptSigner,
      devnet: deps.devnet,
    })
  }
  if (deps.environment === 'devnet' && deps.devnetFaucet) {
    registerDevnetFaucet(app, { maxBodyBytes: deps.maxBodyBytes, faucet: deps.devnetFaucet })
  }
  registerMcp(app, {
    maxBodyBytes: deps.maxBodyBytes,
    paid: payments !== undefined,
    network,
    originAllowed: mcpOriginAllowed({
      environment: deps.environment,
      ...(deps.publicBaseUrl === undefined ? {} : { publicBaseUrl: deps.publicBaseUrl }),
      ...(deps.mcpAllowedOrigins === undefined ? {} : { allowed: deps.mcpAllowedOrigins }),
    }),
  })
  registerPages(app, {
    publicBaseUrl: deps.publicBaseUrl,
    environment: deps.environment,
    payTo,
    ...(deps.environment === 'devnet' && deps.devnetBuyerKey
      ? { devnetBuyerKey: deps.devnetBuyerKey }
      : {}),
  })

  registerOpenApiDocument(app, { publicBaseUrl: deps.publicBaseUrl })
  preflightDoor = createPreflightDoor({
    admission,
    freeRoutes,
    ...(payments ? { paidRoute: ROUTES.paidTransactionPreflight } : {}),
    maxPaymentHeaderBytes: MAX_PAYMENT_HEADER_BYTES,
    maxEventLoopDelayMs: deps.shedEventLoopDelayMs ?? 0,
    ...(limits ? { judgedFirst: (req) => judgedByRateLimit(limits, req) } : {}),
    // What securityHeaders and corsHeaders put on a JSON answer of these (browser-facing) routes.
    headers: {
      'access-control-allow-origin': CORS.origin,
      'access-control-expose-headers': EXPOSE_HEADERS,
      'x-content-type-options': 'nosniff',
    },
    ...(adaptiveLimit ? { onLoopSample: adaptiveLimit.sample } : {}),
    onShed: (route, reason, seconds) => {
      shed(route)(reason)
      metrics.http([route, 'POST', '503'], seconds)
    },
  })
  return Object.assign(app, { preflightDoor })
}

/**
 * Whether the rate limit judges a preflight POST before it may be shed: the free routes and the
 * paid route have a policy; a loopback client is exempt where configured (its socket's address;
 * behind a trusted proxy header every client is judged: the header is the app's to read).
 */
function judgedByRateLimit(limits: RateLimitSettings, req: IncomingMessage): boolean {
  // The free routes and the paid route share the one policy (see policyFor above).
  if (limits.free === undefined) return false
  if (limits.clientHeader !== undefined || !limits.exemptLoopback) return true
  const address = req.socket.remoteAddress ?? ''
  const loopback =
    address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
  return !loopback
}

/** `headers_too_large` for a PAYMENT-SIGNATURE (or X-PAYMENT) over the bound, else undefined. */
function oversizedPaymentHeader(c: Context): AppError | undefined {
  for (const name of ['payment-signature', 'x-payment']) {
    const value = c.req.header(name)
    if (value && Buffer.byteLength(value) > MAX_PAYMENT_HEADER_BYTES) {
      return new AppError(
        'headers_too_large',
        `${name.toUpperCase()} is ${Buffer.byteLength(value)} bytes; at most ${MAX_PAYMENT_HEADER_BYTES} are accepted`,
      )
    }
  }
  return undefined
}

/** The matched route pattern (bounded label values), or `unmatched` for 404s. */
function routeLabel(c: Context): string {
  const path = routePath(c, -1)
  return path === '' || path === '*' || path === '/*' ? 'unmatched' : path
}

/** The reader, counting each read's outcome (`ok`, or the error code it failed with). */
function observedReader(reader: PageReader, count: (outcome: string) => void): PageReader {
  return {
    get info() {
      return reader.info
    },
    async read(url, options) {
      try {
        const page = await reader.read(url, options)
        count('ok')
        return page
      } catch (error) {
        count(error instanceof AppError ? error.code : 'error')
        throw error
      }
    },
  }
}
