import type { Address, Chain, Client, Hex, Transport } from 'viem'
import {
  type BundlerClient,
  createBundlerClient,
  formatUserOperationRequest,
  type PrepareUserOperationParameters,
  type SmartAccount,
  type UserOperation,
} from 'viem/account-abstraction'
import { createGuardClient, type GuardClient } from '../client/guard-client.js'
import { GuardError } from '../client/guard-error.js'
import type { UserOperationRequest } from '../schemas/requests.js'
import { NETWORK_NAMES, NETWORKS, networkByChainId } from '../types/networks.js'
import type { UserOperationCheck } from './guard-checks.js'
import type { RequestArguments, RequestFn } from './guarded-request.js'
import {
  expectServedChain,
  GuardUnavailableError,
  notCheckable,
  TransactionNotCheckableError,
  UserOperationBlockedError,
  UserOperationNeedsReviewError,
} from './pre-send-guard-errors.js'
import { toUserOperationRequest } from './to-user-operation-request.js'
import { unwrapGuardError } from './unwrap-guard-error.js'

export type { UserOperationCheck } from './guard-checks.js'

/**
 * Any viem bundler client, whatever its transport, chain, smart account and execution client.
 * Only the client's identity fields are named: a constraint over the whole `BundlerClient` makes
 * TypeScript compare every action's generic signature with the concrete client's, which took
 * about two minutes of `tsc` per call site (the documented snippet); this takes seconds.
 */
export type AnyBundlerClient = Pick<
  BundlerClient<Transport, Chain | undefined, SmartAccount | undefined, Client | undefined>,
  'account' | 'chain' | 'client' | 'transport' | 'type' | 'uid'
>

/** The whole bundler client, with its actions, as the wrapper builds and extends it. */
type WideBundlerClient = BundlerClient<
  Transport,
  Chain | undefined,
  SmartAccount | undefined,
  Client | undefined
>

/** Options of {@link withPreSendGuardBundler}. */
export interface PreSendGuardBundlerOptions {
  /** A guard client, or the guard's base URL. User operations are checked on the free route. */
  guard: GuardClient | string
  /**
   * Called on a `review` verdict; resolve exactly `true` to send the operation anyway (any other
   * value refuses). Without it a review throws UserOperationNeedsReviewError.
   */
  onUserOperationReview?: (check: UserOperationCheck) => boolean | Promise<boolean>
  /** Called with every check, before its verdict is acted on. */
  onUserOperationCheck?: (check: UserOperationCheck) => void
  /**
   * Default true: when the guard is down (unreachable, garbled, 5xx) throw
   * GuardUnavailableError rather than send blind. With false the operation is sent unchecked
   * and `onGuardUnavailable` is told. Refusals (422) always throw.
   */
  failClosed?: boolean
  onGuardUnavailable?: (error: GuardError) => void
  /** When set, a check from another environment (a devnet guard for a mainnet bundler) throws. */
  environment?: 'devnet' | 'mainnet'
}

/** What {@link withPreSendGuardBundler} adds to the client. */
export interface PreSendGuardBundlerActions {
  preSendGuard: {
    /** The most recent check. */
    lastCheck(): UserOperationCheck | undefined
    /**
     * Asks the guard about the operation `sendUserOperation(parameters)` would send (prepared
     * and signed exactly as it does) without sending it; no verdict is acted on. The signed
     * operation goes to the guard, not to the bundler.
     */
    checkUserOperation(parameters: PrepareUserOperationParameters): Promise<UserOperationCheck>
  }
}

/** The one bundler method that submits an operation: judged before it leaves. */
const SEND_USER_OPERATION = 'eth_sendUserOperation'
/**
 * Methods that would submit something around the check: vendor variants of
 * `eth_sendUserOperation` and plain transaction sends (use `withPreSendGuard` for those).
 */
const UNCHECKED_SENDS = /sendUserOperation|^(?:eth|wallet)_send/i

/** Bundler-client settings carried over to the rebuilt client as they are. */
const CARRIED_SETTINGS = [
  'account',
  'cacheTime',
  'chain',
  'client',
  'dataSuffix',
  'key',
  'name',
  'paymaster',
  'paymasterContext',
  'pollingInterval',
  'userOperation',
] as const

/**
 * Puts the guard in front of a viem bundler client (`createBundlerClient` from
 * `viem/account-abstraction`). The client is rebuilt on a guarded transport: every
 * `eth_sendUserOperation` that leaves through it (from `sendUserOperation`, a prepared
 * operation passed on to it, or a `request` call) is first judged on the free user-operation
 * route, exactly as it goes to the bundler: after viem filled gas, fees, nonce, factory,
 * paymaster and EIP-7702 authorization and the account signed it, in the JSON-RPC form, for
 * the account's EntryPoint. `block` throws UserOperationBlockedError, `review` asks
 * `onUserOperationReview` (default: throw UserOperationNeedsReviewError), `sign` sends.
 * Nothing reaches the bundler when anything throws. Other bundler methods (gas estimation,
 * receipts) pass untouched; vendor send methods and transaction sends are refused.
 *
 * Actions added to the client before wrapping (`.extend(...)`) were bound to the unguarded
 * client: they throw TransactionNotCheckableError. Extend the wrapped client instead.
 *
 * @example
 * const bundler = withPreSendGuardBundler(
 *   createBundlerClient({ account, client: publicClient, transport: http(bundlerUrl) }),
 *   { guard: 'http://127.0.0.1:8402' },
 * )
 * await bundler.sendUserOperation({ calls: [{ to, value: parseEther('0.01') }] }) // throws on block
 */
export function withPreSendGuardBundler<client extends AnyBundlerClient>(
  bundlerClient: client,
  options: PreSendGuardBundlerOptions,
): client & PreSendGuardBundlerActions {
  const guard =
    typeof options.guard === 'string'
      ? createGuardClient({ baseUrl: options.guard })
      : options.guard
  const failClosed = options.failClosed ?? true
  let lastCheck: UserOperationCheck | undefined

  /**
   * Asks the guard about an operation for the bundler's chain: refused before asking when the
   * guard serves another network (ChainMismatchError); the body carries the guard's chain id.
   */
  async function ask(request: UserOperationRequest, chainId: number): Promise<UserOperationCheck> {
    const network = await guard.network()
    // A guard without discovery names no network: the body carries the bundler's chain id,
    // which its route refuses (422) when it is another network's.
    if (network !== undefined) expectServedChain(chainId, network)
    const result = await guard.userOperationPreflight({
      ...request,
      chainId: (network ?? networkByChainId(chainId))?.chainIdHex,
    })
    if (options.environment && result.environment !== options.environment) {
      throw new GuardError(
        'environment_mismatch',
        `the guard checked this on ${result.environment}, the bundler expects ${options.environment}`,
      )
    }
    const check: UserOperationCheck = {
      entryPoint: request.entryPoint,
      userOperation: request.userOperation,
      verdict: result.verdict,
      findings: result.findings,
      result,
    }
    lastCheck = check
    return check
  }

  /** Judges an operation about to be sent; throws to refuse. Resolves when it may be sent. */
  async function judge(request: UserOperationRequest, chainId: number): Promise<void> {
    let check: UserOperationCheck
    try {
      check = await ask(request, chainId)
    } catch (error) {
      if (error instanceof GuardError && error.unavailable && !failClosed) {
        options.onGuardUnavailable?.(error)
        return
      }
      if (error instanceof GuardError && error.unavailable) throw new GuardUnavailableError(error)
      throw error
    }
    options.onUserOperationCheck?.(check)
    if (check.verdict === 'block') throw new UserOperationBlockedError(check)
    if (check.verdict === 'review') {
      const approval = options.onUserOperationReview
        ? await options.onUserOperationReview(check)
        : false
      if (approval !== true) throw new UserOperationNeedsReviewError(check)
    }
  }

  const original = bundlerClient as unknown as Record<string, unknown> & {
    request: RequestFn
    transport: Record<string, unknown>
    chain?: { id: number }
  }
  const inner = original.request

  /**
   * The bundler's chain, when a guard can serve it: the operation's hash and its authorization
   * bind a chain id, and the guard judges the network it serves only (compared in `ask`).
   */
  async function servableChainId(): Promise<number> {
    const id = original.chain?.id ?? Number(await inner({ method: 'eth_chainId' }))
    if (networkByChainId(id) === undefined) {
      const served = NETWORK_NAMES.map((n) => `${NETWORKS[n].label}, ${NETWORKS[n].chainId}`)
      throw notCheckable(`a user operation on chain ${id} (not ${served.join(' or ')})`)
    }
    return id
  }

  const request: RequestFn = async (args: RequestArguments, requestOptions?: unknown) => {
    if (args.method === SEND_USER_OPERATION) {
      const params = Array.isArray(args.params) ? (args.params as unknown[]) : []
      const body = toUserOperationRequest(params[0], params[1])
      await judge(body, await servableChainId())
    } else if (UNCHECKED_SENDS.test(args.method)) {
      throw notCheckable(`${args.method} through a guarded bundler client`)
    }
    return inner(args, requestOptions)
  }

  const transport = (() => ({
    config: { ...original.transport, request, retryCount: 0 },
    request,
    value: {},
  })) as unknown as Transport
  const settings: Record<string, unknown> = { transport }
  for (const key of CARRIED_SETTINGS) {
    if (original[key] !== undefined) settings[key] = original[key]
  }
  const rebuilt = createBundlerClient(
    settings as unknown as Parameters<typeof createBundlerClient>[0],
  ) as unknown as AnyBundlerClient & Record<string, unknown>

  // Whatever else the client carried was bound to the unguarded one: values are kept, actions
  // refused (they could send around the guard).
  const carried: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(original)) {
    if (key in rebuilt) continue
    carried[key] = typeof value === 'function' ? staleAction(key) : value
  }

  const extendable = rebuilt as unknown as {
    extend(fn: (client: WideBundlerClient) => Record<string, unknown>): unknown
  }
  return extendable.extend((base) => ({
    ...carried,
    // The transport judges the operation; this only unwraps viem's UserOperationExecutionError.
    sendUserOperation: (parameters: never) =>
      unwrapGuardError(() => base.sendUserOperation(parameters)),
    preSendGuard: {
      lastCheck: () => lastCheck,
      async checkUserOperation(parameters: PrepareUserOperationParameters) {
        // As viem's sendUserOperation does: prepare, sign, format, for the account's EntryPoint.
        const account = (parameters.account ?? base.account) as SmartAccount | undefined
        if (account === undefined) throw notCheckable('a user operation without an account')
        const prepared = (await base.prepareUserOperation(parameters as never)) as UserOperation
        const given = (parameters as { signature?: Hex }).signature
        const signature = given ?? (await account.signUserOperation(prepared))
        const rpc = formatUserOperationRequest({ ...prepared, signature })
        const entryPoint: Address =
          (parameters as { entryPointAddress?: Address }).entryPointAddress ??
          account.entryPoint.address
        return ask(toUserOperationRequest(rpc, entryPoint), await servableChainId())
      },
    },
  })) as unknown as client & PreSendGuardBundlerActions
}

function staleAction(name: string) {
  return async (): Promise<never> => {
    throw new TransactionNotCheckableError(
      `${name} was added to the bundler client before withPreSendGuardBundler wrapped it, so it would send around the guard; extend the wrapped client instead`,
    )
  }
}
