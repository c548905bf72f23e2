import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import {
  requestBodiesOn,
  type UserOperationRequest,
  UserOperationResultSchema,
} from '@pre-send-guard/client/schemas'
import { DEFAULT_NETWORK, lowerHex, type NetworkFacts, ROUTES } from '@pre-send-guard/client/types'
import { entryPointVersion } from '../domain/account-abstraction/entry-points.js'
import { runUserOperationPreflight } from '../domain/account-abstraction/run-user-operation-preflight.js'
import {
  splitAddressPrefixed,
  type UserOperationInput,
} from '../domain/account-abstraction/user-operation.js'
import { checksummed } from '../domain/evm/checksummed.js'
import { AppError } from '../errors.js'
import { jsonBody } from '../http/json-body.js'
import { jsonAnswer } from '../http/security-headers.js'
import { type FreePreflightRouteDeps, withAdmission } from './free-preflight-route.js'
import { toWord } from './request-inputs.js'
import { errorResponses } from './schemas/error-body.js'

const V06_ONLY = ['initCode', 'paymasterAndData'] as const
const V07_ONLY = [
  'factory',
  'factoryData',
  'paymaster',
  'paymasterVerificationGasLimit',
  'paymasterPostOpGasLimit',
  'paymasterData',
  'eip7702Auth',
] as const

/** Builds the route definition; `maxBodyBytes` guards the body before validation. */
export function baseUserOperationPreflightRoute(
  maxBodyBytes: number,
  network: NetworkFacts = DEFAULT_NETWORK,
) {
  return createRoute({
    method: 'post',
    path: ROUTES.userOperationPreflight,
    operationId: 'userOperationPreflight',
    tags: ['preflight'],
    summary: 'Read-only simulation and screen of an ERC-4337 user operation, with a verdict',
    description:
      "Simulates a user operation through its canonical EntryPoint at one pinned block in one RPC wave and judges it. v0.7/v0.8: `simulateHandleOp` of the package's EntryPointSimulations in place of the EntryPoint's code (account creation, validation, prefund, paymaster and execution, without reverting). v0.6: the account is created through the real SenderCreator and called from the EntryPoint (execution only; said in a finding). `eip7702Auth` is checked locally and applied as the sender's code. The account's call is screened by every transaction rule (the account is the sender; `execute`, `executeBatch` and ERC-7821 batches are opened and each inner call judged), plus the user-operation rules. Gas fields and the signature may be omitted (`0x` counts as omitted): defaults, zero fees and a stub signature are simulated, and the answer says so. Signs and sends nothing. Free; no payment.",
    middleware: jsonBody(maxBodyBytes),
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: requestBodiesOn(network).userOperation } },
      },
    },
    responses: {
      200: {
        description: 'The operation, its validation, prefund, execution, effects and verdict.',
        content: { 'application/json': { schema: UserOperationResultSchema } },
      },
      ...errorResponses({
        422: `Invalid input: \`invalid_request\` (body shape, fields of another EntryPoint version, chainId other than ${network.chainIdHex}) or \`unsupported_entry_point\` (not a canonical v0.6/v0.7/v0.8 EntryPoint), or the body is not JSON, not an object or too large.`,
        429: 'Too many requests from this client (rate limit). Retry-After and the IETF RateLimit-Policy/RateLimit fields are set.',
        502: '`simulation_unavailable`: the Base RPC lacks `eth_simulateV1`, which simulating an operation needs; `simulation_refused`: the node refused the simulation as a whole.',
        503: '`rpc_unavailable`: the Base RPC is temporarily unavailable (unreachable, timing out or answering garbage); `overloaded`: every preflight slot of the instance is taken (MAX_PREFLIGHTS_IN_FLIGHT, lowered while its event loop lags: PREFLIGHT_LIMIT_LOOP_DELAY_MS) or its event loop lags with another preflight in flight (SHED_EVENT_LOOP_DELAY_MS), answered at once without reading the body. Retry-After is set.',
      }),
    },
  })
}

const big = (v: string | undefined) => (v === undefined ? undefined : BigInt(v))

/** Normalises a validated request for its EntryPoint version; 422 for what does not fit it. */
export function toUserOperationInput(body: UserOperationRequest): UserOperationInput {
  const version = entryPointVersion(body.entryPoint)
  if (version === undefined) {
    throw new AppError(
      'unsupported_entry_point',
      `${body.entryPoint} is not a canonical EntryPoint (v0.6, v0.7 or v0.8)`,
      { issues: [{ path: 'entryPoint', message: 'not a canonical EntryPoint' }] },
    )
  }
  const u = body.userOperation
  const foreign = (version === '0.6' ? V07_ONLY : V06_ONLY).filter((k) => u[k] !== undefined)
  if (foreign.length > 0) {
    throw new AppError(
      'invalid_request',
      `invalid request: ${foreign.join(', ')} ${foreign.length === 1 ? 'is' : 'are'} not a field of EntryPoint v${version} operations`,
      {
        issues: foreign.map((k) => ({
          path: `userOperation.${k}`,
          message: `not a field of EntryPoint v${version} operations`,
        })),
      },
    )
  }
  const input: UserOperationInput = {
    version,
    entryPoint: checksummed(body.entryPoint),
    sender: checksummed(u.sender),
    nonce: BigInt(u.nonce),
    callData: lowerHex(u.callData),
  }
  const set = <K extends keyof UserOperationInput>(k: K, v: UserOperationInput[K] | undefined) => {
    if (v !== undefined) input[k] = v
  }
  set('callGasLimit', big(u.callGasLimit))
  set('verificationGasLimit', big(u.verificationGasLimit))
  set('preVerificationGas', big(u.preVerificationGas))
  set('maxFeePerGas', big(u.maxFeePerGas))
  set('maxPriorityFeePerGas', big(u.maxPriorityFeePerGas))
  if (u.signature !== undefined && u.signature !== '0x') set('signature', u.signature)
  if (version === '0.6') {
    const init = splitAddressPrefixed(u.initCode ?? '0x')
    if (u.initCode !== undefined && u.initCode !== '0x' && init === undefined) {
      throw new AppError(
        'invalid_request',
        'invalid request: initCode is shorter than an address',
        {
          issues: [{ path: 'userOperation.initCode', message: 'shorter than an address' }],
        },
      )
    }
    if (init !== undefined) {
      set('factory', checksummed(init.address))
      set('factoryData', init.rest)
    }
    const pm = splitAddressPrefixed(u.paymasterAndData ?? '0x')
    if (pm !== undefined) {
      set('paymaster', checksummed(pm.address))
      set('paymasterData', pm.rest)
    }
    return input
  }
  if (u.factory !== undefined) {
    set('factory', u.factory === '0x7702' ? '0x7702' : checksummed(u.factory))
    set('factoryData', u.factoryData ?? '0x')
  }
  if (u.paymaster !== undefined) {
    set('paymaster', checksummed(u.paymaster))
    set('paymasterVerificationGasLimit', big(u.paymasterVerificationGasLimit))
    set('paymasterPostOpGasLimit', big(u.paymasterPostOpGasLimit))
    set('paymasterData', u.paymasterData ?? '0x')
  }
  const auth = u.eip7702Auth
  if (auth !== undefined) {
    set('authorization', {
      address: checksummed(auth.address),
      chainId: Number(BigInt(auth.chainId)),
      nonce: Number(BigInt(auth.nonce)),
      yParity: BigInt(auth.yParity) === 1n ? 1 : 0,
      r: toWord(auth.r),
      s: toWord(auth.s),
    })
  }
  return input
}

/** Mounts the read-only user-operation preflight. */
export function registerBaseUserOperationPreflight(
  app: OpenAPIHono,
  deps: FreePreflightRouteDeps,
): void {
  app.openapi(
    withAdmission(baseUserOperationPreflightRoute(deps.maxBodyBytes, deps.network), deps.admit),
    async (c) => {
      const result = await runUserOperationPreflight(
        deps.preflight(),
        toUserOperationInput(c.req.valid('json')),
      )
      return jsonAnswer(c, result, 200)
    },
  )
}
