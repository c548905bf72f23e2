import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import {
  type AuthorizationRequest,
  AuthorizationResultSchema,
  requestBodiesOn,
} from '@pre-send-guard/client/schemas'
import { DEFAULT_NETWORK, type NetworkFacts, ROUTES } from '@pre-send-guard/client/types'
import {
  type AuthorizationInput,
  runAuthorizationPreflight,
} from '../domain/delegation/run-authorization-preflight.js'
import { checksummed } from '../domain/evm/checksummed.js'
import { jsonBody } from '../http/json-body.js'
import { jsonAnswer } from '../http/security-headers.js'
import { type FreePreflightRouteDeps, withAdmission } from './free-preflight-route.js'
import { toWord } from './request-inputs.js'
import { errorResponses } from './schemas/error-body.js'

/** Builds the route definition; `maxBodyBytes` guards the body before validation. */
export function baseAuthorizationPreflightRoute(
  maxBodyBytes: number,
  network: NetworkFacts = DEFAULT_NETWORK,
) {
  return createRoute({
    method: 'post',
    path: ROUTES.authorizationPreflight,
    operationId: 'authorizationPreflight',
    tags: ['preflight'],
    summary: 'Read-only judgement of an EIP-7702 authorization before it is signed or sent',
    description:
      "Recovers the signer (when signed), then in one RPC wave reads the authority's code and nonce and the delegate's code, and runs a behaviour probe of the delegate in `eth_simulateV1`: the account, delegated to a copy of the delegate and given ETH and a canary token, is sent ETH and called by a stranger and by a stand-in for every address hard-coded in the delegate's code, through common executor selectors and every dispatcher selector. Assets moved decide. `sign` only for a recognised wallet delegate (by code hash) with a usable chain and nonce, or for clearing; an unknown delegate with a clean probe is `review`. Signs and sends nothing. Free; no payment.",
    middleware: jsonBody(maxBodyBytes),
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: requestBodiesOn(network).authorization } },
      },
    },
    responses: {
      200: {
        description: 'The authorization, the authority, the delegate, the probe and the verdict.',
        content: { 'application/json': { schema: AuthorizationResultSchema } },
      },
      ...errorResponses({
        422: `Invalid input: \`invalid_request\` (body shape, addresses, hex quantities, a partial signature, chainId other than ${network.chainIdHex}), or the body is not JSON, not an object or too large.`,
        429: 'Too many requests from this client (rate limit). Retry-After and the IETF RateLimit-Policy/RateLimit fields are set.',
        503: '`rpc_unavailable`: the Base RPC is temporarily unavailable (unreachable, timing out or answering garbage); `overloaded`: every preflight slot of the instance is taken (MAX_PREFLIGHTS_IN_FLIGHT, lowered while its event loop lags: PREFLIGHT_LIMIT_LOOP_DELAY_MS) or its event loop lags with another preflight in flight (SHED_EVENT_LOOP_DELAY_MS), answered at once without reading the body. Retry-After is set.',
      }),
    },
  })
}

/** Normalises a validated request: checksummed addresses, quantities as bigint. */
export function toAuthorizationInput(body: AuthorizationRequest): AuthorizationInput {
  const a = body.authorization
  const input: AuthorizationInput = {
    authority: checksummed(body.authority),
    delegate: checksummed(a.address),
    chainId: BigInt(a.chainId),
    nonce: BigInt(a.nonce),
  }
  if (a.yParity !== undefined && a.r !== undefined && a.s !== undefined) {
    input.signature = {
      yParity: BigInt(a.yParity) === 1n ? 1 : 0,
      r: toWord(a.r),
      s: toWord(a.s),
    }
  }
  return input
}

/** Mounts the read-only EIP-7702 authorization preflight. */
export function registerBaseAuthorizationPreflight(
  app: OpenAPIHono,
  deps: FreePreflightRouteDeps,
): void {
  app.openapi(
    withAdmission(baseAuthorizationPreflightRoute(deps.maxBodyBytes, deps.network), deps.admit),
    async (c) => {
      const result = await runAuthorizationPreflight(
        deps.preflight(),
        toAuthorizationInput(c.req.valid('json')),
      )
      return jsonAnswer(c, result, 200)
    },
  )
}
