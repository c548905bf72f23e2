import { createHash, timingSafeEqual } from 'node:crypto'
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { Registry } from 'prom-client'
import {
  type ReadinessCheck,
  type ReadinessProbes,
  sharedReadiness,
} from '../domain/readiness/check-readiness.js'
import { AppError } from '../errors.js'
import type { ErrorRenderer } from '../http/errors.js'
import { errorResponses } from './schemas/error-body.js'
import { HealthSchema, NotReadySchema, ReadySchema } from './schemas/operations.js'

export const HEALTHZ_PATH = '/healthz'
export const READYZ_PATH = '/readyz'
export const METRICS_PATH = '/metrics'

/** How long one readiness check answers every `/readyz` (ms): at most one round a second. */
export const READINESS_MAX_AGE_MS = 1_000

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

  const readinessNow = sharedReadiness(deps.readiness, READINESS_MAX_AGE_MS)
  const operator = (authorization: string | undefined) =>
    deps.metricsToken === undefined || presentsToken(authorization, deps.metricsToken)
  // Block numbers and unresolved payments are the operator's: with METRICS_TOKEN set, only its
  // bearer sees them. Upstream words (the facilitator's error) only ever reach that bearer:
  // without a token anyone could read them, so they stay in the logs.
  const readinessView = (c: Context): ReadinessView =>
    deps.metricsToken === undefined
      ? 'facts'
      : presentsToken(c.req.header('authorization'), deps.metricsToken)
        ? 'all'
        : 'status'
  app.get(READYZ_PATH, async (c) => {
    const shared = await readinessNow()
    const readiness = { ...shared, checks: visibleChecks(shared.checks, readinessView(c)) }
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
    if (!operator(c.req.header('authorization'))) {
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

/**
 * Whether an `Authorization` header presents `Bearer <token>`, compared in constant time: both
 * sides are hashed first (SHA-256), so neither the token's bytes nor its length leak through
 * how long a refusal takes.
 */
export function presentsToken(authorization: string | undefined, token: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()
  return timingSafeEqual(digest(authorization ?? ''), digest(`Bearer ${token}`))
}

/**
 * What a `/readyz` caller sees of each check: `status`, whether it is ok and the service's own
 * problem text; `facts`, the figures too (block number and age, unresolved payments); `all`,
 * the upstream words as well (`detail`, scrubbed of secrets).
 */
type ReadinessView = 'status' | 'facts' | 'all'

function visibleChecks(
  checks: Record<string, ReadinessCheck>,
  view: ReadinessView,
): Record<string, ReadinessCheck> {
  if (view === 'all') return checks
  return Object.fromEntries(
    Object.entries(checks).map(([name, check]) => {
      const { ok, problem, detail: _upstream, ...facts } = check
      return [
        name,
        { ok, ...(problem === undefined ? {} : { problem }), ...(view === 'facts' ? facts : {}) },
      ]
    }),
  )
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
    description:
      "One check a second at most, shared by every caller. Each check says `ok` and, when not, a `problem` in the service's own words. The figures (block number and age, unresolved payments) are shown to everyone without METRICS_TOKEN, and only to `Authorization: Bearer <METRICS_TOKEN>` with it; the facilitator's own error text (`detail`) only to that bearer (and the logs).",
    security: [{}, { metricsToken: [] }],
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
