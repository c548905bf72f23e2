import { OpenAPIHono } from '@hono/zod-openapi'
import { cors } from 'hono/cors'
import { requestId } from 'hono/request-id'
import type { Logger } from 'pino'
import type { PreflightDeps } from './domain/preflight/run-preflight.js'
import { notFound, onError, validationHook } from './http/errors.js'
import { registerBaseTransactionPreflight } from './routes/base-transaction-preflight.js'

/** What the HTTP app needs; `main.ts` builds it from config, tests build it directly. */
export interface AppDeps {
  logger: Logger
  environment: 'devnet' | 'mainnet'
  maxBodyBytes: number
  preflight: PreflightDeps
}

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
