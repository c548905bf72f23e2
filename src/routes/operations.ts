import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Registry } from 'prom-client'
import { checkReadiness, type ReadinessProbes } from '../domain/readiness/check-readiness.js'
import { AppError } from '../errors.js'
import type { ErrorRenderer } from '../http/errors.js'
import { errorResponses } from './schemas/error-body.js'
import { HealthSchema, NotReadySchema, ReadySchema } from './schemas/operations.js'

export const HEALTHZ_PATH = '/healthz'
export const READYZ_PATH = '/readyz'
export const METRICS_PATH = '/metrics'

/** What the operations routes need. */
export interface OperationsDeps {
  environment: 'devnet' | 'mainnet'
  chainId: number
  readiness: Omit<ReadinessProbes, 'now'>
  metrics: Registry
  /** When set, `/metrics` answers only `Authorization: Bearer <token>`. */
  metricsToken?: string
  /** Renders the error bodies (the app's error renderer, which scrubs secrets). */
  errorResponse: ErrorRenderer['response']
}

/**
 * Mounts the operator's routes: `/healthz` (liveness: the process answers, no I/O),
 * `/readyz` (readiness: RPC with a recent block, ledger, payment rail; 503 `not_ready` with
 * every check when one fails) and `/metrics` (Prometheus text format).
 */
export function registerOperations(app: OpenAPIHono, deps: OperationsDeps): void {
  documentOperations(app)
  app.get(HEALTHZ_PATH, (c) =>
    c.json({ status: 'ok', environment: deps.environment, chainId: deps.chainId }),
  )

  app.get(READYZ_PATH, async (c) => {
    const readiness = await checkReadiness(deps.readiness)
    if (readiness.ready) {
      return c.json({ status: 'ready', environment: deps.environment, checks: readiness.checks })
    }
    const failed = Object.entries(readiness.checks).filter(([, check]) => !check.ok)
    const response = deps.errorResponse(
      c,
      new AppError('not_ready', `not ready: ${failed.map(([name]) => name).join(', ')}`, {
        issues: failed.map(([name, check]) => ({ path: name, message: check.problem ?? 'failed' })),
        retryAfter: 5,
      }),
    )
    // The error body plus every check, so an operator sees the healthy ones too.
    const body = (await response.json()) as Record<string, unknown>
    return c.json({ ...body, status: 'not_ready', checks: readiness.checks }, 503)
  })

  app.get(METRICS_PATH, async (c) => {
    if (deps.metricsToken && c.req.header('authorization') !== `Bearer ${deps.metricsToken}`) {
      c.header('WWW-Authenticate', 'Bearer')
      return deps.errorResponse(
        c,
        new AppError('unauthorized', 'metrics need Authorization: Bearer <METRICS_TOKEN>'),
      )
    }
    c.header('Content-Type', deps.metrics.contentType)
    return c.body(await deps.metrics.metrics())
  })
}

/** The operator's routes in the OpenAPI document (their handlers stay plain Hono routes). */
function documentOperations(app: OpenAPIHono): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: HEALTHZ_PATH,
    operationId: 'getHealth',
    tags: ['operations'],
    summary: 'Liveness: the process answers (no I/O)',
    responses: {
      200: { description: 'Alive.', content: { 'application/json': { schema: HealthSchema } } },
    },
  })
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: READYZ_PATH,
    operationId: 'getReadiness',
    tags: ['operations'],
    summary: 'Readiness: RPC with a recent block, ledger, payment rail',
    responses: {
      200: {
        description: 'Every check passed.',
        content: { 'application/json': { schema: ReadySchema } },
      },
      503: {
        description:
          '`not_ready`: the error body with every check, failed or not. Retry-After is set.',
        content: { 'application/json': { schema: NotReadySchema } },
      },
    },
  })
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: METRICS_PATH,
    operationId: 'getMetrics',
    tags: ['operations'],
    summary: 'Prometheus metrics (text exposition format)',
    description: 'With METRICS_TOKEN set, only for `Authorization: Bearer <METRICS_TOKEN>`.',
    security: [{}, { metricsToken: [] }],
    responses: {
      200: {
        description: 'The metrics.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      ...errorResponses({ 401: '`unauthorized`: METRICS_TOKEN is set and was not presented.' }),
    },
  })
}
