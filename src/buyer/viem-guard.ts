import {
  type Account,
  type Chain,
  concat,
  type Hex,
  hexToNumber,
  parseTransaction,
  recoverTransactionAddress,
  type SendRawTransactionParameters,
  type SendTransactionParameters,
  type TransactionSerialized,
  type Transport,
  toHex,
  type WalletClient,
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
import type { ReceiptVerification } from './verify-receipt.js'

/** The only chain the guard checks: Base (the devnet is Base-shaped, chain id 8453 too). */
const BASE_CHAIN_ID = 8453

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
   * Called on a `review` verdict; resolve `true` to send anyway. Without it a review throws
   * TransactionNeedsReviewError.
   */
  onReview?: (check: GuardCheck) => boolean | Promise<boolean>
  /** Called with every check, before the verdict is acted on (keep receipts here). */
  onCheck?: (check: GuardCheck) => void
  /**
   * Default true: when the guard is down (unreachable, garbled, 5xx) throw
   * GuardUnavailableError rather than send blind. With false the transaction is sent unchecked
   * and `onGuardUnavailable` is told. Refusals (422, a challenge mismatch) always throw.
   */
  failClosed?: boolean
  onGuardUnavailable?: (error: GuardError) => void
  /**
   * Default true: when the caller set none of `gasPrice`, `maxFeePerGas`,
   * `maxPriorityFeePerGas` (and no legacy/EIP-2930 type), use the guard's suggested
   * `maxFeePerGas` (2 x base fee + tip) and `maxPriorityFeePerGas` (median recent tip).
   */
  suggestedFees?: boolean
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

/**
 * Puts the guard in front of a viem wallet client: `sendTransaction`, `sendTransactionSync`,
 * `writeContract(Sync)`, `token.approve/transfer(Sync)` and `sendRawTransaction(Sync)` first
 * ask the guard; `block` throws TransactionBlockedError, `review` asks `onReview` (default:
 * throw TransactionNeedsReviewError), `sign` sends. `deployContract` and `sendCalls` cannot be
 * checked and throw TransactionNotCheckableError. Nothing is sent when anything throws.
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
  let lastCheck: GuardCheck | undefined
  let discovery: Promise<Discovery> | undefined

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
    const paid = await guard.paidPreflight(transaction, { discovery: published })
    const verification = await guard.verifyReceipt(paid.receipt, published, {
      request: paid.request,
      result: paid.result,
      settlementTx: paid.settlement.transaction,
    })
    if (!verification.valid) {
      const failed = verification.checks.filter((c) => !c.ok)
      throw new GuardError(
        'receipt_invalid',
        `the paid preflight's receipt does not verify: ${failed.map((c) => `${c.name}: ${c.detail}`).join('; ')}`,
      )
    }
    const { result, receipt, settlement } = paid
    return {
      mode,
      transaction,
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
        if (failClosed) throw new GuardUnavailableError(error)
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
      const approved = options.onReview ? await options.onReview(check) : false
      if (!approved) throw new TransactionNeedsReviewError(check)
    }
    return check
  }

  // viem types `extend` to forbid overriding its actions; overriding them is the point here.
  const extendable = walletClient as unknown as {
    extend(fn: (client: AnyWalletClient) => Record<string, unknown>): unknown
  }
  return extendable.extend((base) => {
    async function guarded(
      parameters: SendTransactionParameters,
    ): Promise<SendTransactionParameters> {
      const check = await judge(await toGuardRequest(base, parameters))
      return check && options.suggestedFees !== false ? withFees(parameters, check) : parameters
    }
    async function guardedRaw(parameters: SendRawTransactionParameters): Promise<void> {
      await judge(await rawToGuardRequest(parameters.serializedTransaction))
    }
    const notCheckable = (what: string) => async (): Promise<never> => {
      throw new TransactionNotCheckableError(
        `${what} cannot be checked by the guard; use the unwrapped client deliberately`,
      )
    }
    const sendTransaction = async (parameters: SendTransactionParameters) =>
      base.sendTransaction((await guarded(parameters)) as never)
    const sendTransactionSync = async (parameters: SendTransactionParameters) =>
      base.sendTransactionSync((await guarded(parameters)) as never)
    // viem's contract and token actions find `sendTransaction` on the client they are given.
    const view = { ...base, sendTransaction, sendTransactionSync } as unknown as AnyWalletClient
    const baseToken = (base as { token?: Record<string, unknown> }).token

    return {
      sendTransaction,
      sendTransactionSync,
      writeContract: (parameters: never) => unwrap(() => writeContract(view, parameters)),
      writeContractSync: (parameters: never) => unwrap(() => writeContractSync(view, parameters)),
      sendRawTransaction: async (parameters: SendRawTransactionParameters) => {
        await guardedRaw(parameters)
        return base.sendRawTransaction(parameters)
      },
      sendRawTransactionSync: async (parameters: SendRawTransactionParameters) => {
        await guardedRaw(parameters)
        return base.sendRawTransactionSync(parameters as never)
      },
      deployContract: notCheckable('contract creation'),
      sendCalls: notCheckable('a batch of calls (sendCalls)'),
      sendCallsSync: notCheckable('a batch of calls (sendCallsSync)'),
      ...(baseToken
        ? {
            token: {
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

/** The guard's body for an already signed transaction. */
async function rawToGuardRequest(serialized: Hex): Promise<TransactionRequest> {
  const tx = parseTransaction(serialized)
  if (!tx.to) throw new TransactionNotCheckableError('contract creation (no `to`)')
  if ('authorizationList' in tx && tx.authorizationList && tx.authorizationList.length > 0) {
    throw new TransactionNotCheckableError('an EIP-7702 authorization list')
  }
  await assertBase(tx.chainId)
  const from = await recoverTransactionAddress({
    serializedTransaction: serialized as TransactionSerialized,
  })
  return {
    chainId: '0x2105',
    from,
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

/** The guard's suggested EIP-1559 fees, only where the caller chose none. */
function withFees(
  parameters: SendTransactionParameters,
  check: GuardCheck,
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
  return {
    ...parameters,
    maxFeePerGas: BigInt(check.result.fees.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(check.result.fees.maxPriorityFeePerGas),
  } as SendTransactionParameters
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
