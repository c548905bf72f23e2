import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { PreflightResultSchema, requestBodiesOn } from '@pre-send-guard/client/schemas'
import { DEFAULT_NETWORK, type NetworkFacts, ROUTES } from '@pre-send-guard/client/types'
import { runPreflight } from '../domain/preflight/run-preflight.js'
import { jsonBody } from '../http/json-body.js'
import { jsonAnswer } from '../http/security-headers.js'
import { type FreePreflightRouteDeps, withAdmission } from './free-preflight-route.js'
import { toTransactionInput } from './request-inputs.js'
import { errorResponses } from './schemas/error-body.js'

/** Builds the route definition; `maxBodyBytes` guards the body before validation. */
export function baseTransactionPreflightRoute(
  maxBodyBytes: number,
  network: NetworkFacts = DEFAULT_NETWORK,
) {
  return createRoute({
    method: 'post',
    path: ROUTES.transactionPreflight,
    operationId: 'transactionPreflight',
    tags: ['preflight'],
    summary: 'Read-only Base preflight: revert, gas, fee and calldata risk, with a verdict',
    description:
      'Runs `eth_call` and `eth_estimateGas` (plus reads of balance, code and fees) pinned to one block, never broadcasts, and screens the transaction with a deterministic rule catalogue. Free; no payment.',
    middleware: jsonBody(maxBodyBytes),
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: requestBodiesOn(network).transaction } },
      },
    },
    responses: {
      200: {
        description: 'Simulation result, fee context and verdict.',
        content: { 'application/json': { schema: PreflightResultSchema } },
      },
      ...errorResponses({
        422: `Invalid transaction input (body not JSON, not an object, too large, bad field, extra property, chainId other than ${network.chainIdHex}).`,
        503: '`rpc_unavailable`: the Base RPC is temporarily unavailable (unreachable, timing out or answering garbage); `overloaded`: every preflight slot of the instance is taken (MAX_PREFLIGHTS_IN_FLIGHT, lowered while its event loop lags: PREFLIGHT_LIMIT_LOOP_DELAY_MS) or its event loop lags with another preflight in flight (SHED_EVENT_LOOP_DELAY_MS), answered at once without reading the body. Retry-After is set.',
        429: 'Too many requests from this client (rate limit). Retry-After and the IETF RateLimit-Policy/RateLimit fields are set.',
      }),
    },
  })
}

/** Mounts the read-only preflight. */
export function registerBaseTransactionPreflight(
  app: OpenAPIHono,
  deps: FreePreflightRouteDeps,
): void {
  app.openapi(
    withAdmission(baseTransactionPreflightRoute(deps.maxBodyBytes, deps.network), deps.admit),
    async (c) => {
      const input = toTransactionInput(c.req.valid('json'))
      const result = await runPreflight(deps.preflight(), input)
      return jsonAnswer(c, result, 200)
    },
  )
}
