import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { requestBodiesOn, TypedDataResultSchema } from '@pre-send-guard/client/schemas'
import { DEFAULT_NETWORK, type NetworkFacts, ROUTES } from '@pre-send-guard/client/types'
import { runTypedDataPreflight } from '../domain/typed-data/run-typed-data-preflight.js'
import { jsonBody } from '../http/json-body.js'
import { jsonAnswer } from '../http/security-headers.js'
import { type FreePreflightRouteDeps, withAdmission } from './free-preflight-route.js'
import { toTypedDataInput } from './request-inputs.js'
import { errorResponses } from './schemas/error-body.js'

/** Builds the route definition; `maxBodyBytes` guards the body before validation. */
export function baseTypedDataPreflightRoute(
  maxBodyBytes: number,
  network: NetworkFacts = DEFAULT_NETWORK,
) {
  return createRoute({
    method: 'post',
    path: ROUTES.typedDataPreflight,
    operationId: 'typedDataPreflight',
    tags: ['preflight'],
    summary: 'Read-only screen of EIP-712 typed data before it is signed, with a verdict',
    description:
      'Validates `eth_signTypedData_v4` typed data strictly, recognises permits (EIP-2612, DAI, Permit2), EIP-3009 authorizations, Seaport orders and Safe transactions by structure, reads the verifying contract, spenders and nonces at one pinned block and screens it with the typed-data rules of the catalogue. Signs nothing. Free; no payment.',
    middleware: jsonBody(maxBodyBytes),
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: requestBodiesOn(network).typedData } },
      },
    },
    responses: {
      200: {
        description: 'What the typed data is, what it grants, chain facts and the verdict.',
        content: { 'application/json': { schema: TypedDataResultSchema } },
      },
      ...errorResponses({
        422: `Invalid input: \`invalid_request\` (body shape, signer, chainId other than ${network.chainIdHex}) or \`invalid_typed_data\` (types, values or bounds a strict wallet would refuse; \`issues\` names the path), or the body is not JSON, not an object or too large.`,
        429: 'Too many requests from this client (rate limit). Retry-After and the IETF RateLimit-Policy/RateLimit fields are set.',
        503: '`rpc_unavailable`: the Base RPC is temporarily unavailable (unreachable, timing out or answering garbage); `overloaded`: every preflight slot of the instance is taken (MAX_PREFLIGHTS_IN_FLIGHT, lowered while its event loop lags: PREFLIGHT_LIMIT_LOOP_DELAY_MS) or its event loop lags with another preflight in flight (SHED_EVENT_LOOP_DELAY_MS), answered at once without reading the body. Retry-After is set.',
      }),
    },
  })
}

/** Mounts the read-only typed-data preflight. */
export function registerBaseTypedDataPreflight(
  app: OpenAPIHono,
  deps: FreePreflightRouteDeps,
): void {
  app.openapi(
    withAdmission(baseTypedDataPreflightRoute(deps.maxBodyBytes, deps.network), deps.admit),
    async (c) => {
      const result = await runTypedDataPreflight(
        deps.preflight(),
        toTypedDataInput(c.req.valid('json')),
      )
      return jsonAnswer(c, result, 200)
    },
  )
}
