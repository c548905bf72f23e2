import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { BundleResultSchema, requestBodiesOn } from '@pre-send-guard/client/schemas'
import {
  DEFAULT_NETWORK,
  type NetworkFacts,
  REQUEST_LIMITS,
  ROUTES,
} from '@pre-send-guard/client/types'
import { runBundlePreflight } from '../domain/preflight/run-bundle-preflight.js'
import { AppError } from '../errors.js'
import { jsonBody } from '../http/json-body.js'
import { jsonAnswer } from '../http/security-headers.js'
import { type FreePreflightRouteDeps, withAdmission } from './free-preflight-route.js'
import { toSignedAuthorization, toStateOverrides, toTransactionInput } from './request-inputs.js'
import { errorResponses } from './schemas/error-body.js'

/** Bounds on `stateOverrides`: a node simulates whatever it is given, so we do not. */
const OVERRIDE_LIMITS = REQUEST_LIMITS.overrides

/** Builds the route definition; `maxBodyBytes` guards the body before validation. */
export function baseBundlePreflightRoute(
  maxBodyBytes: number,
  network: NetworkFacts = DEFAULT_NETWORK,
) {
  return createRoute({
    method: 'post',
    path: ROUTES.bundlePreflight,
    operationId: 'bundlePreflight',
    tags: ['preflight'],
    summary: 'Read-only Base bundle preflight: transactions simulated in order, with one verdict',
    description: `Simulates 1 to 8 transactions in order at one pinned block with eth_simulateV1 (each sees the state the earlier ones left: approve then swap), optionally under eth_simulateV1-shaped state overrides (at most ${OVERRIDE_LIMITS.addresses} addresses, ${OVERRIDE_LIMITS.slotsPerAddress} slots each, ${OVERRIDE_LIMITS.slots} in all, ${OVERRIDE_LIMITS.codeBytes} code bytes each). Each transaction gets its call, gas, fees, findings and effects; the bundle its net effects per sender and the worst verdict. Gas for the first transaction is eth_estimateGas; for later ones (and all under overrides) the simulated gasUsed x 1.3. Free; never broadcasts.`,
    middleware: jsonBody(maxBodyBytes),
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: requestBodiesOn(network).bundle } },
      },
    },
    responses: {
      200: {
        description: 'Per-transaction results, net effects and the overall verdict.',
        content: { 'application/json': { schema: BundleResultSchema } },
      },
      ...errorResponses({
        422: 'Invalid bundle (bad transaction, more than 8, overrides beyond the bounds), or the node refused to simulate it as a whole (`simulation_refused`).',
        502: 'The Base RPC does not offer eth_simulateV1, which bundles need (`simulation_unavailable`).',
        429: 'Too many requests from this client (rate limit). Retry-After and the IETF RateLimit-Policy/RateLimit fields are set.',
        503: '`rpc_unavailable`: the Base RPC is temporarily unavailable; `overloaded`: every preflight slot of the instance is taken (MAX_PREFLIGHTS_IN_FLIGHT, lowered while its event loop lags: PREFLIGHT_LIMIT_LOOP_DELAY_MS) or its event loop lags with another preflight in flight (SHED_EVENT_LOOP_DELAY_MS), answered at once without reading the body. Retry-After is set.',
      }),
    },
  })
}

/** Mounts the read-only bundle preflight. */
export function registerBaseBundlePreflight(app: OpenAPIHono, deps: FreePreflightRouteDeps): void {
  app.openapi(
    withAdmission(baseBundlePreflightRoute(deps.maxBodyBytes, deps.network), deps.admit),
    async (c) => {
      const body = c.req.valid('json')
      const overrides = toStateOverrides(body.stateOverrides)
      if (overrides !== undefined && 'duplicate' in overrides) {
        throw new AppError('invalid_request', 'an address is overridden twice', {
          issues: [{ path: `stateOverrides.${overrides.duplicate}`, message: 'given twice' }],
        })
      }
      const txs = body.transactions.map((t) => {
        const tx = toTransactionInput(t)
        if (t.authorizationList !== undefined) {
          tx.authorizationList = t.authorizationList.map(toSignedAuthorization)
        }
        return tx
      })
      const result = await runBundlePreflight(deps.preflight(), txs, overrides)
      return jsonAnswer(c, result, 200)
    },
  )
}
