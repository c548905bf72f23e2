import { OpenAPIHono } from '@hono/zod-openapi'
import { cors } from 'hono/cors'
import { requestId } from 'hono/request-id'
import type { Logger } from 'pino'
import type { DevnetDescription } from './domain/discovery/discovery-document.js'
import type { PageReader } from './domain/evidence/page-reader.js'
import type { PaidPreflightDeps } from './domain/payment/paid-preflight.js'
import { type PreflightDeps, runPreflight } from './domain/preflight/run-preflight.js'
import { notFound, onError, validationHook } from './http/errors.js'
import { registerBaseBundlePreflight } from './routes/base-bundle-preflight.js'
import { registerBaseTransactionPreflight } from './routes/base-transaction-preflight.js'
import { registerDiscovery } from './routes/discovery.js'
import { registerPages } from './routes/pages.js'
import { registerPublicPageEvidence } from './routes/public-page-evidence.js'
import { registerReceipts } from './routes/receipts.js'
import { registerTransactionPreflight } from './routes/transaction-preflight.js'

/** What the HTTP app needs; `main.ts` builds it from config, tests build it directly. */
export interface AppDeps {
  logger: Logger
  environment: 'devnet' | 'mainnet'
  maxBodyBytes: number
  preflight: PreflightDeps
  /** Fetches public pages as markdown for the evidence route. */
  reader: PageReader
  /**
   * The paid route's rail, ledger and receipt key (the preflight comes from `preflight`).
   * Without it the paid route and `/receipts/{id}` are not mounted.
   */
  payments?: Omit<PaidPreflightDeps, 'runPreflight'>
  /** PUBLIC_BASE_URL: origin for absolute URLs in answers; the request's origin when unset. */
  publicBaseUrl?: string
  /** The embedded devnet, published in discovery; absent on mainnet. */
  devnet?: DevnetDescription
}

/** Anvil account #2, the devnet's payTo; only an example address when no rail is configured. */
const DEVNET_PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

/** The OpenAPI document's identity (spec section 9). */
export const OPENAPI_VERSION = '1.2.0'

/** Wires every route. No I/O happens here; adapters arrive in `deps`. */
export function createApp(deps: AppDeps): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook })
  app.use('*', requestId())
  app.use(
    '*',
    cors({
      origin: '*',
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'PAYMENT-SIGNATURE', 'X-PAYMENT'],
      exposeHeaders: ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-Request-Id', 'Retry-After'],
    }),
  )
  app.use('*', async (c, next) => {
    const started = performance.now()
    await next()
    deps.logger.info(
      {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    )
  })
  app.onError(onError(deps.logger))
  app.notFound(notFound)

  app.get('/healthz', (c) =>
    c.json({ status: 'ok', environment: deps.environment, chainId: deps.preflight.chainId }),
  )

  registerBaseTransactionPreflight(app, {
    maxBodyBytes: deps.maxBodyBytes,
    preflight: () => deps.preflight,
  })
  registerBaseBundlePreflight(app, {
    maxBodyBytes: deps.maxBodyBytes,
    preflight: () => deps.preflight,
  })
  registerPublicPageEvidence(app, { maxBodyBytes: deps.maxBodyBytes, reader: () => deps.reader })
  const payments = deps.payments
  if (payments) {
    const paid: PaidPreflightDeps = {
      ...payments,
      runPreflight: (tx) => runPreflight(deps.preflight, tx),
    }
    registerTransactionPreflight(app, {
      maxBodyBytes: deps.maxBodyBytes,
      publicBaseUrl: deps.publicBaseUrl,
      paid: () => paid,
    })
    registerReceipts(app, { ledger: () => payments.ledger })
    registerDiscovery(app, {
      publicBaseUrl: deps.publicBaseUrl,
      environment: deps.environment,
      rail: payments.rail,
      receiptSigner: payments.receiptSigner,
      devnet: deps.devnet,
    })
  }
  registerPages(app, {
    publicBaseUrl: deps.publicBaseUrl,
    environment: deps.environment,
    // Without a rail the pages still explain the flow; the example pays the devnet payTo.
    payTo: payments?.rail.requirements.payTo ?? DEVNET_PAY_TO,
  })

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Pre-Send Guard',
      version: OPENAPI_VERSION,
      description:
        'A pre-send transaction guard for programmatic EVM agents on Base: simulate, judge, never broadcast.',
    },
  })
  return app
}
