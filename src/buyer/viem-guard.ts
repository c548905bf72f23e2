import {
  type Account,
  type Chain,
  concat,
  createClient,
  type Hex,
  hexToNumber,
  isHex,
  parseTransaction,
  publicActions,
  recoverTransactionAddress,
  type SendRawTransactionParameters,
  type SendTransactionParameters,
  type TransactionSerialized,
  type Transport,
  toHex,
  type WalletClient,
  walletActions,
} from 'viem'
import { token, writeContract, writeContractSync } from 'viem/actions'
import {
  createGuardClient,
  type GuardClient,
  type PaidPreflight,
  type TransactionRequest,
} from './guard-client.js'
import { GuardError } from './guard-error.js'
import type { Discovery, Finding, PreflightResult } from './guard-responses.js'
import {
  GuardUnavailableError,
  PreSendGuardError,
  TransactionBlockedError,
  TransactionNeedsReviewError,
  TransactionNotCheckableError,
} from './pre-send-guard-errors.js'
import { canonicalJsonHash, type ReceiptVerification } from './verify-receipt.js'

/** The only chain the guard checks: Base (the devnet is Base-shaped, chain id 8453 too). */
const BASE_CHAIN_ID = 8453

/**
 * Default absolute ceiling on a guard-suggested `maxFeePerGas`: 10 gwei, far above Base's usual
 * fees. A suggestion above it (or above 3 x the base fee + tip) is ignored and viem estimates.
 */
export const DEFAULT_MAX_SUGGESTED_FEE_PER_GAS = 10_000_000_000n

/** JSON-RPC methods that send one transaction given as an object: checked. */
const OBJECT_SENDS = new Set([
  'eth_sendTransaction',
  'eth_sendTransactionSync',
  'wallet_sendTransaction',
  'eth_sendUnsignedTransaction',
])
/** JSON-RPC methods that send one signed transaction: parsed, its sender recovered, checked. */
const RAW_SENDS = new Set([
  'eth_sendRawTransaction',
  'eth_sendRawTransactionSync',
  'eth_sendRawTransactionConditional',
])

/** Which route the wrapper asks: the free read-only preflight, or the paid one with a receipt. */
export type GuardMode = 'read-only' | 'paid'

/** What the guard said about one transaction. */
export interface GuardCheck {
  mode: GuardMode
  /** The body the guard checked. */
  transaction: TransactionRequest
  verdict: PreflightResult['verdict']
  findings: Finding[]
  result: PreflightResult
  /** Paid mode: the receipt, its settlement and its verification against discovery. */
  paid?: Pick<PaidPreflight, 'receipt' | 'settlement'> & { verification: ReceiptVerification }
}

/** Options of {@link withPreSendGuard}. */
export interface PreSendGuardOptions {
  /** A guard client, or the guard's base URL. Paid mode needs a client with a `payer`. */
  guard: GuardClient | string
  /** Default `read-only` (free). `paid` buys a preflight with a signed receipt per transaction. */
  mode?: GuardMode
  /**
   * Called on a `review` verdict; resolve exactly `true` to send anyway (any other value, truthy
   * or not, refuses). Without it a review throws TransactionNeedsReviewError.
   */
  onReview?: (check: GuardCheck) => boolean | Promise<boolean>
  /** Called with every check, before the verdict is acted on (keep receipts here). */
  onCheck?: (check: GuardCheck) => void
  /**
   * Default true: when the guard is down (unreachable, garbled, 5xx) throw
   * GuardUnavailableError rather than send blind. With false the transaction is sent unchecked
   * and `onGuardUnavailable` is told. Refusals (422, a challenge mismatch) always throw, and so
   * does a paid check whose payment left (its outcome is unknown: never sent blind).
   */
  failClosed?: boolean
  onGuardUnavailable?: (error: GuardError) => void
  /**
   * Default true: when the caller set none of `gasPrice`, `maxFeePerGas`,
   * `maxPriorityFeePerGas` (and no legacy/EIP-2930 type), use the guard's suggested
   * `maxFeePerGas` (2 x base fee + tip) and `maxPriorityFeePerGas` (median recent tip), within
   * limits: see {@link PreSendGuardOptions.maxSuggestedFeePerGas}.
   */
  suggestedFees?: boolean
  /**
   * The most a guard-suggested `maxFeePerGas` may be, in wei (default
   * {@link DEFAULT_MAX_SUGGESTED_FEE_PER_GAS}, 10 gwei). A suggestion above it, above 3 x the
   * base fee + tip, or with a tip above the max fee is ignored: viem estimates the fees.
   */
  maxSuggestedFeePerGas?: bigint
  /** When set, a check from another environment (a devnet guard for a mainnet wallet) throws. */
  environment?: 'devnet' | 'mainnet'
}

/** What {@link withPreSendGuard} adds to the client. */
export interface PreSendGuardActions {
  preSendGuard: {
    /** The most recent check (with its receipt in paid mode). */
    lastCheck(): GuardCheck | undefined
    /** Asks the guard about a transaction without sending it (no verdict is acted on). */
    check(parameters: SendTransactionParameters): Promise<GuardCheck>
  }
}

type AnyWalletClient = WalletClient<Transport, Chain | undefined, Account | undefined>
type RequestArguments = { method: string; params?: unknown }
type RequestFn = (args: RequestArguments, options?: unknown) => Promise<unknown>

/**
 * Puts the guard in front of a viem wallet client. The client is rebuilt on a guarded
 * transport: every transaction that leaves through it (`eth_sendTransaction`,
 * `wallet_sendTransaction`, `eth_sendRawTransaction(Sync)`, whichever action or `request` call
 * sends it) is first checked by the guard; batches (`wallet_sendCalls`) and anything else that
 * sends or signs a transaction are refused. `block` throws TransactionBlockedError, `review`
 * asks `onReview` (default: throw TransactionNeedsReviewError), `sign` sends. Nothing is sent
 * when anything throws.
 *
 * Actions added to the client before wrapping (`.extend(...)`) were bound to the unguarded
 * client: they throw TransactionNotCheckableError (viem's public actions are rebound instead).
 * Extend the wrapped client instead: `withPreSendGuard(client, o).extend(walletActionsL2())`.
 * `signTransaction`, `signAuthorization` and `prepareAuthorization` throw: a signed transaction
 * or EIP-7702 authorization could be used without the guard.
 *
 * @example
 * const wallet = withPreSendGuard(createWalletClient({ account, chain: base, transport: http() }), {
 *   guard: 'http://127.0.0.1:8402',
 *   onReview: (check) => check.findings.every((f) => f.id === 'unlimited-allowance'),
 * })
 * await wallet.sendTransaction({ to, value: parseEther('0.01') }) // throws on block
 */
export function withPreSendGuard<client extends AnyWalletClient>(
  walletClient: client,
  options: PreSendGuardOptions,
): client & PreSendGuardActions {
  const guard =
    typeof options.guard === 'string'
      ? createGuardClient({ baseUrl: options.guard })
      : options.guard
  const mode = options.mode ?? 'read-only'
  const failClosed = options.failClosed ?? true
  const feeCeiling = options.maxSuggestedFeePerGas ?? DEFAULT_MAX_SUGGESTED_FEE_PER_GAS
  let lastCheck: GuardCheck | undefined
  let discovery: Promise<Discovery> | undefined
  /** Paid mode: payments whose outcome is unknown, by transaction; resumed, never paid again. */
  const pending = new Map<string, { paymentSignature: string; request: TransactionRequest }>()
  /** Transactions a named action already checked, while it sends them (counted, by body). */
  const approved = new Map<string, number>()

  async function ask(transaction: TransactionRequest): Promise<GuardCheck> {
    if (mode === 'read-only') {
      const result = await guard.preflight(transaction)
      return { mode, transaction, verdict: result.verdict, findings: result.findings, result }
    }
    discovery ??= guard.discovery().catch((error: unknown) => {
      discovery = undefined
      throw error
    })
    const published = await discovery
    const key = transactionKey(transaction)
    const resume = pending.get(key)
    // A resumed payment must be sent with the very body it paid for.
    const body = resume?.request ?? transaction
    let paid: PaidPreflight
    try {
      paid = await guard.paidPreflight(body, {
        discovery: published,
        ...(resume ? { paymentSignature: resume.paymentSignature } : {}),
      })
    } catch (error) {
      if (error instanceof GuardError && error.paymentSignature !== undefined) {
        if (error.paymentPending) {
          pending.set(key, { paymentSignature: error.paymentSignature, request: body })
        } else {
          pending.delete(key)
        }
      }
      throw error
    }
    pending.delete(key)
    const verification = await guard.verifyReceipt(paid.receipt, published, {
      request: paid.request,
      result: paid.result,
      settlementTx: paid.settlement.transaction,
      ...(paid.payer ? { payer: paid.payer } : {}),
    })
    const failed = verification.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)
    if (!paid.settlement.success) {
      failed.push(
        `settlement: PAYMENT-RESPONSE reports no success (${paid.settlement.errorReason ?? 'no reason'})`,
      )
    }
    if (failed.length > 0) {
      throw new GuardError(
        'receipt_invalid',
        `the paid preflight's receipt does not verify: ${failed.join('; ')}`,
        { paymentSignature: paid.paymentSignature },
      )
    }
    const { result, receipt, settlement } = paid
    return {
      mode,
      transaction: body,
      verdict: result.verdict,
      findings: result.findings,
      result,
      paid: { receipt, settlement, verification },
    }
  }

  /** Checks one transaction; returns the check, or undefined when sending blind (fail-open). */
  async function judge(transaction: TransactionRequest): Promise<GuardCheck | undefined> {
    let check: GuardCheck
    try {
      check = await ask(transaction)
    } catch (error) {
      if (error instanceof GuardError && error.unavailable) {
        // Once a payment left, its outcome is unknown: never send blind, whatever failClosed says.
        if (failClosed || error.paymentSignature !== undefined) {
          throw new GuardUnavailableError(error)
        }
        options.onGuardUnavailable?.(error)
        return undefined
      }
      throw error
    }
    if (options.environment && check.result.environment !== options.environment) {
      throw new GuardError(
        'environment_mismatch',
        `the guard checked this on ${check.result.environment}, the wallet expects ${options.environment}`,
      )
    }
    lastCheck = check
    options.onCheck?.(check)
    if (check.verdict === 'block') throw new TransactionBlockedError(check)
    if (check.verdict === 'review') {
      const approval = options.onReview ? await options.onReview(check) : false
      if (approval !== true) throw new TransactionNeedsReviewError(check)
    }
    return check
  }

  /** Marks a checked transaction as approved while `send` runs, so the transport lets it pass. */
  async function sendApproved<T>(transaction: TransactionRequest, send: () => Promise<T>) {
    const key = transactionKey(transaction)
    approved.set(key, (approved.get(key) ?? 0) + 1)
    try {
      return await send()
    } finally {
      const left = (approved.get(key) ?? 1) - 1
      if (left > 0) approved.set(key, left)
      else approved.delete(key)
    }
  }

  // The guarded transport: every request goes through here, whichever action makes it.
  const inner = (walletClient as unknown as { request: RequestFn }).request
  const chainId = async (): Promise<number> =>
    hexToNumber((await inner({ method: 'eth_chainId' })) as Hex)

  async function guardRequest(args: RequestArguments): Promise<void> {
    const { method } = args
    const params = Array.isArray(args.params) ? (args.params as unknown[]) : []
    let transaction: TransactionRequest
    if (OBJECT_SENDS.has(method)) {
      transaction = await objectToGuardRequest(params[0], chainId)
    } else if (RAW_SENDS.has(method)) {
      transaction = await rawToGuardRequest(params[0])
    } else if (sendsOrSignsTransactions(method)) {
      throw new TransactionNotCheckableError(
        `${method} cannot be checked by the guard; use the unwrapped client deliberately`,
      )
    } else {
      return
    }
    if (approved.has(transactionKey(transaction))) return
    await judge(transaction)
  }
  const guardedRequest: RequestFn = async (args, requestOptions) => {
    await guardRequest(args)
    return inner(args, requestOptions)
  }

  const guardedBase = rebuild(walletClient, guardedRequest)

  // viem types `extend` to forbid overriding its actions; overriding them is the point here.
  const extendable = guardedBase as unknown as {
    extend(fn: (client: AnyWalletClient) => Record<string, unknown>): unknown
  }
  return extendable.extend((base) => {
    /** The named send actions check first, so the guard's suggested fees can be used. */
    const guardedSend =
      <T>(send: (parameters: SendTransactionParameters) => Promise<T>) =>
      (parameters: SendTransactionParameters) =>
        unwrap(async () => {
          const transaction = await toGuardRequest(base, parameters)
          const check = await judge(transaction)
          const fees =
            check && options.suggestedFees !== false
              ? withFees(parameters, check, feeCeiling)
              : parameters
          return sendApproved(transaction, () => send(fees))
        })
    const notCheckable = (what: string) => async (): Promise<never> => {
      throw new TransactionNotCheckableError(
        `${what} cannot be checked by the guard; use the unwrapped client deliberately`,
      )
    }
    const sendTransaction = guardedSend((p) => base.sendTransaction(p as never))
    const sendTransactionSync = guardedSend((p) => base.sendTransactionSync(p as never))
    // viem's contract and token actions find `sendTransaction` on the client they are given.
    const view = { ...base, sendTransaction, sendTransactionSync } as unknown as AnyWalletClient
    const baseToken = (base as { token?: Record<string, unknown> }).token

    return {
      sendTransaction,
      sendTransactionSync,
      writeContract: (parameters: never) => unwrap(() => writeContract(view, parameters)),
      writeContractSync: (parameters: never) => unwrap(() => writeContractSync(view, parameters)),
      // The transport checks raw transactions; these only unwrap viem's error wrappers.
      sendRawTransaction: (parameters: SendRawTransactionParameters) =>
        unwrap(() => base.sendRawTransaction(parameters)),
      sendRawTransactionSync: (parameters: SendRawTransactionParameters) =>
        unwrap(() => base.sendRawTransactionSync(parameters as never)),
      deployContract: notCheckable('contract creation'),
      sendCalls: notCheckable('a batch of calls (sendCalls)'),
      sendCallsSync: notCheckable('a batch of calls (sendCallsSync)'),
      signTransaction: notCheckable(
        'a transaction signed to be broadcast elsewhere (signTransaction)',
      ),
      signAuthorization: notCheckable('an EIP-7702 authorization (signAuthorization)'),
      prepareAuthorization: notCheckable('an EIP-7702 authorization (prepareAuthorization)'),
      ...(baseToken
        ? {
            token: {
              ...baseToken,
              approve: keepHelpers(baseToken.approve, (p) => unwrap(() => token.approve(view, p))),
              approveSync: keepHelpers(baseToken.approveSync, (p) =>
                unwrap(() => token.approveSync(view, p)),
              ),
              transfer: keepHelpers(baseToken.transfer, (p) =>
                unwrap(() => token.transfer(view, p)),
              ),
              transferSync: keepHelpers(baseToken.transferSync, (p) =>
                unwrap(() => token.transferSync(view, p)),
              ),
            },
          }
        : {}),
      preSendGuard: {
        lastCheck: () => lastCheck,
        check: async (parameters: SendTransactionParameters) => {
          const transaction = await toGuardRequest(base, parameters)
          return ask(transaction)
        },
      },
    }
  }) as unknown as client & PreSendGuardActions
}

/**
 * The wallet client rebuilt on `request`, with viem's wallet actions. Whatever else the client
 * carried was bound to the unguarded one: viem's public actions are bound again, any other
 * function throws TransactionNotCheckableError (it could send around the guard).
 */
function rebuild(walletClient: AnyWalletClient, request: RequestFn): AnyWalletClient {
  const original = walletClient as unknown as Record<string, unknown> & {
    transport: Record<string, unknown>
  }
  const transport = (() => ({
    config: { ...original.transport, request, retryCount: 0 },
    request,
    value: {},
  })) as unknown as Transport
  const parameters: Record<string, unknown> = { transport }
  for (const key of [
    'account',
    'batch',
    'cacheTime',
    'ccipRead',
    'chain',
    'dataSuffix',
    'key',
    'name',
    'pollingInterval',
    'tokens',
    'type',
    'experimental_blockTag',
  ]) {
    if (original[key] !== undefined) parameters[key] = original[key]
  }
  const core = createClient(parameters as unknown as Parameters<typeof createClient>[0])
  const rebuilt = core.extend(walletActions) as unknown as Record<string, unknown>
  const rebound = publicActions(rebuilt as never) as unknown as Record<string, unknown>
  const carried: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(original)) {
    if (key === 'extend') continue
    if (key in rebuilt) {
      const mine = rebuilt[key]
      if (isPlainObject(value) && isPlainObject(mine)) {
        const extra = carriedNamespace(key, value, mine, rebound[key])
        if (extra) carried[key] = { ...mine, ...extra }
      }
      continue
    }
    if (key in rebound) carried[key] = rebound[key]
    else if (typeof value === 'function') carried[key] = staleAction(key)
    else if (isPlainObject(value)) carried[key] = carriedNamespace(key, value, {}, rebound[key])
    else carried[key] = value
  }
  return (rebuilt as unknown as AnyWalletClient).extend(() => carried) as AnyWalletClient
}

/** The members of a namespace (`token`...) the rebuilt client lacks: rebound or refused. */
function carriedNamespace(
  name: string,
  original: Record<string, unknown>,
  mine: Record<string, unknown>,
  rebound: unknown,
): Record<string, unknown> | undefined {
  const extra: Record<string, unknown> = {}
  const publicMembers = isPlainObject(rebound) ? rebound : {}
  for (const [key, value] of Object.entries(original)) {
    if (key in mine) continue
    if (key in publicMembers) extra[key] = publicMembers[key]
    else if (typeof value === 'function') extra[key] = staleAction(`${name}.${key}`)
    else extra[key] = value
  }
  return Object.keys(extra).length > 0 ? extra : undefined
}

function staleAction(name: string) {
  return async (): Promise<never> => {
    throw new TransactionNotCheckableError(
      `${name} was added to the client before withPreSendGuard wrapped it, so it would send around the guard; extend the wrapped client instead (withPreSendGuard(client, options).extend(...))`,
    )
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/** Methods that send or sign transactions other than the checked ones: refused. */
function sendsOrSignsTransactions(method: string): boolean {
  return /^[a-z0-9]+_send/i.test(method) || /sign(raw)?transaction/i.test(method)
}

/**
 * The key of a transaction as the guard sees it: the canonical JSON hash of its body with
 * addresses and calldata in lower case and the value in minimal hex, so the same transaction
 * built twice has the same key.
 */
function transactionKey(transaction: TransactionRequest): string {
  return canonicalJsonHash({
    chainId: '0x2105',
    from: transaction.from.toLowerCase(),
    to: transaction.to.toLowerCase(),
    data: transaction.data.toLowerCase(),
    value: toHex(BigInt(transaction.value ?? '0x0')),
  })
}

/** The guard's body for a viem `sendTransaction` call, exactly as viem will build it. */
async function toGuardRequest(
  client: AnyWalletClient,
  parameters: SendTransactionParameters,
): Promise<TransactionRequest> {
  const account = parameters.account ?? client.account
  if (!account) throw new TransactionNotCheckableError('no account: the guard needs a sender')
  const to = parameters.to
  if (!to) throw new TransactionNotCheckableError('contract creation (no `to`)')
  if (parameters.authorizationList && parameters.authorizationList.length > 0) {
    throw new TransactionNotCheckableError('an EIP-7702 authorization list')
  }
  const chain = parameters.chain === undefined ? client.chain : parameters.chain
  await assertBase(chain?.id ?? hexToNumber(await client.request({ method: 'eth_chainId' })))
  // viem appends the data suffix (parameter, else the client's) before sending: check that.
  const clientSuffix = (client as { dataSuffix?: Hex | { value: Hex } }).dataSuffix
  const suffix =
    parameters.dataSuffix ?? (typeof clientSuffix === 'string' ? clientSuffix : clientSuffix?.value)
  const data = parameters.data ?? '0x'
  return {
    chainId: '0x2105',
    from: typeof account === 'string' ? account : account.address,
    to,
    data: suffix ? concat([data, suffix]) : data,
    value: toHex(parameters.value ?? 0n),
  }
}

/** The guard's body for a JSON-RPC `eth_sendTransaction`-style request object. */
async function objectToGuardRequest(
  request: unknown,
  chainId: () => Promise<number>,
): Promise<TransactionRequest> {
  if (!isPlainObject(request)) throw new TransactionNotCheckableError('a malformed transaction')
  const { from, to, data, input, value, authorizationList } = request
  if (typeof from !== 'string' || !isHex(from)) {
    throw new TransactionNotCheckableError('no sender (`from`): the guard needs one')
  }
  if (to === undefined || to === null) {
    throw new TransactionNotCheckableError('contract creation (no `to`)')
  }
  if (typeof to !== 'string' || !isHex(to)) {
    throw new TransactionNotCheckableError('a malformed `to`')
  }
  if (Array.isArray(authorizationList) && authorizationList.length > 0) {
    throw new TransactionNotCheckableError('an EIP-7702 authorization list')
  }
  if (data !== undefined && input !== undefined && data !== input) {
    throw new TransactionNotCheckableError('a transaction whose `data` and `input` differ')
  }
  const calldata = data ?? input ?? '0x'
  if (typeof calldata !== 'string' || !isHex(calldata)) {
    throw new TransactionNotCheckableError('malformed calldata')
  }
  let wei: bigint
  try {
    wei = BigInt((value as string | undefined) ?? 0)
  } catch {
    throw new TransactionNotCheckableError('a malformed `value`')
  }
  const claimed = request.chainId
  await assertBase(
    typeof claimed === 'string' && isHex(claimed) ? hexToNumber(claimed) : await chainId(),
  )
  return { chainId: '0x2105', from, to, data: calldata, value: toHex(wei) }
}

/** The guard's body for an already signed transaction. */
async function rawToGuardRequest(serialized: unknown): Promise<TransactionRequest> {
  if (typeof serialized !== 'string' || !isHex(serialized)) {
    throw new TransactionNotCheckableError('a malformed signed transaction')
  }
  let tx: ReturnType<typeof parseTransaction>
  let from: Hex
  try {
    tx = parseTransaction(serialized)
    from = await recoverTransactionAddress({
      serializedTransaction: serialized as TransactionSerialized,
    })
  } catch {
    throw new TransactionNotCheckableError('a signed transaction that cannot be parsed')
  }
  if (!tx.to) throw new TransactionNotCheckableError('contract creation (no `to`)')
  if ('authorizationList' in tx && tx.authorizationList && tx.authorizationList.length > 0) {
    throw new TransactionNotCheckableError('an EIP-7702 authorization list')
  }
  await assertBase(tx.chainId)
  return {
    chainId: '0x2105',
    from: from as TransactionRequest['from'],
    to: tx.to,
    data: tx.data ?? '0x',
    value: toHex(tx.value ?? 0n),
  }
}

async function assertBase(chainId: number | undefined): Promise<void> {
  if (chainId !== BASE_CHAIN_ID) {
    throw new TransactionNotCheckableError(
      `chain ${chainId ?? '(unknown)'}: the guard checks Base (chain id 8453) only`,
    )
  }
}

/**
 * The guard's suggested EIP-1559 fees, only where the caller chose none, and only within limits:
 * `maxPriorityFeePerGas <= maxFeePerGas <= min(ceiling, 3 x baseFeePerGas + maxPriorityFeePerGas)`.
 * Otherwise the suggestion is ignored and viem estimates the fees.
 */
function withFees(
  parameters: SendTransactionParameters,
  check: GuardCheck,
  ceiling: bigint,
): SendTransactionParameters {
  const p = parameters as SendTransactionParameters & {
    gasPrice?: bigint
    maxFeePerGas?: bigint
    maxPriorityFeePerGas?: bigint
    type?: string
  }
  const callerChoseFees =
    p.gasPrice !== undefined ||
    p.maxFeePerGas !== undefined ||
    p.maxPriorityFeePerGas !== undefined ||
    p.type === 'legacy' ||
    p.type === 'eip2930'
  if (callerChoseFees) return parameters
  const { fees } = check.result
  const baseFee = BigInt(fees.baseFeePerGas)
  const maxFeePerGas = BigInt(fees.maxFeePerGas)
  const maxPriorityFeePerGas = BigInt(fees.maxPriorityFeePerGas)
  const reasonable =
    maxPriorityFeePerGas <= maxFeePerGas &&
    maxFeePerGas <= ceiling &&
    maxFeePerGas <= 3n * baseFee + maxPriorityFeePerGas
  if (!reasonable) return parameters
  return { ...parameters, maxFeePerGas, maxPriorityFeePerGas } as SendTransactionParameters
}

/** Runs a viem action and rethrows a guard refusal it wrapped (viem wraps contract errors). */
async function unwrap<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action()
  } catch (error) {
    let cause: unknown = error
    while (cause instanceof Error) {
      if (cause instanceof PreSendGuardError || cause instanceof GuardError) throw cause
      cause = cause.cause
    }
    throw error
  }
}

/** A guarded token action that keeps viem's read-only helpers (`.call`, `.estimateGas`...). */
function keepHelpers(original: unknown, action: (parameters: never) => Promise<unknown>) {
  return typeof original === 'function' ? Object.assign(action, { ...original }) : action
}
