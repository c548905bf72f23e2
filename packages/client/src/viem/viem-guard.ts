import type { SendTransactionParameters } from 'viem'
import {
  createGuardClient,
  type GuardClient,
  type TransactionRequest,
} from '../client/guard-client.js'
import { GuardError } from '../client/guard-error.js'
import type { AnyWalletClient } from './any-wallet-client.js'
import { createApprovedSends } from './approved-sends.js'
import type { BatchCheck, GuardCheck, GuardMode, TypedDataCheck } from './guard-checks.js'
import { guardedRequest, type RequestFn } from './guarded-request.js'
import { guardedWalletActions } from './guarded-wallet-actions.js'
import { createPaidGuardCheck } from './paid-guard-check.js'
import {
  GuardUnavailableError,
  TransactionBlockedError,
  TransactionNeedsReviewError,
} from './pre-send-guard-errors.js'
import { rebuildWalletClient } from './rebuild-wallet-client.js'
import {
  createTypedDataJudge,
  guardAccount,
  isGuardedAccount,
  toTypedDataJson,
} from './typed-data-guard.js'
import { withSuggestedFees } from './with-suggested-fees.js'

export type { BatchCheck, GuardCheck, GuardMode, TypedDataCheck } from './guard-checks.js'

/**
 * Default absolute ceiling on a guard-suggested `maxFeePerGas`: 10 gwei, far above Base's usual
 * fees. A suggestion above it (or above 3 x the base fee + tip) is ignored and viem estimates.
 */
export const DEFAULT_MAX_SUGGESTED_FEE_PER_GAS = 10_000_000_000n

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
   * A batch's `onReview`: resolve exactly `true` to send a `review` batch anyway. Without it a
   * batch judged `review` throws TransactionNeedsReviewError.
   */
  onBatchReview?: (check: BatchCheck) => boolean | Promise<boolean>
  /** Called with every batch check, before its verdict is acted on. */
  onBatchCheck?: (check: BatchCheck) => void
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
  /**
   * Called on a `review` verdict for typed data (`signTypedData`, `eth_signTypedData_v4`);
   * resolve exactly `true` to sign anyway. Without it a review throws SignatureNeedsReviewError.
   */
  onTypedDataReview?: (check: TypedDataCheck) => boolean | Promise<boolean>
  /** Called with every typed-data check, before its verdict is acted on. */
  onTypedDataCheck?: (check: TypedDataCheck) => void
  /**
   * Default false: raw-hash signatures (`eth_sign`, a local account's `sign({hash})`) are
   * refused, since a hash cannot be screened (it may be a transaction's or a permit's digest).
   */
  allowRawSign?: boolean
}

/** What {@link withPreSendGuard} adds to the client. */
export interface PreSendGuardActions {
  preSendGuard: {
    /** The most recent check (with its receipt in paid mode). */
    lastCheck(): GuardCheck | undefined
    /** Asks the guard about a transaction without sending it (no verdict is acted on). */
    check(parameters: SendTransactionParameters): Promise<GuardCheck>
    /**
     * Asks the bundle route about transactions to be sent in this order (approve, then swap)
     * without sending them; no verdict is acted on.
     */
    checkBatch(transactions: TransactionRequest[]): Promise<BatchCheck>
  }
}

/**
 * Puts the guard in front of a viem wallet client. The client is rebuilt on a guarded
 * transport: every transaction that leaves through it (`eth_sendTransaction`,
 * `wallet_sendTransaction`, `eth_sendRawTransaction(Sync)`, whichever action or `request` call
 * sends it) is first checked by the guard; an EIP-5792 batch (`sendCalls`, `wallet_sendCalls`)
 * is checked as a whole by the bundle route (calls simulated in order, one verdict); anything else
 * that sends or signs a transaction is refused. `block` throws TransactionBlockedError, `review`
 * asks `onReview` (default: throw TransactionNeedsReviewError), `sign` sends. Nothing is sent
 * when anything throws.
 *
 * Actions added to the client before wrapping (`.extend(...)`) were bound to the unguarded
 * client: they throw TransactionNotCheckableError (viem's public actions are rebound instead).
 * Extend the wrapped client instead: `withPreSendGuard(client, o).extend(walletActionsL2())`.
 * `signTransaction`, `signAuthorization` and `prepareAuthorization` throw: a signed transaction
 * or EIP-7702 authorization could be used without the guard.
 *
 * Typed data is screened before it is signed, on the free typed-data route, whichever path signs
 * it: `eth_signTypedData_v4` through the transport (JSON-RPC accounts), the client's local
 * account (replaced by a guarded copy), or a local account passed per call. `block` throws
 * SignatureBlockedError, `review` asks `onTypedDataReview` (default: throw
 * SignatureNeedsReviewError). Raw-hash `eth_sign` and a local account's `sign({hash})` are
 * refused unless `allowRawSign`.
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
  const paidCheck = createPaidGuardCheck(guard)
  const approved = createApprovedSends()
  let lastCheck: GuardCheck | undefined

  async function ask(transaction: TransactionRequest): Promise<GuardCheck> {
    if (mode !== 'read-only') return paidCheck(transaction)
    const result = await guard.preflight(transaction)
    return { mode, transaction, verdict: result.verdict, findings: result.findings, result }
  }

  async function askBatch(transactions: TransactionRequest[]): Promise<BatchCheck> {
    const result = await guard.bundlePreflight({
      transactions: transactions.map(({ chainId: _, ...tx }) => tx),
    })
    const findings = result.transactions.flatMap((t) => t.findings)
    return { mode: 'read-only', transactions, verdict: result.verdict, findings, result }
  }

  /** Checks one transaction; returns the check, or undefined when sending blind (fail-open). */
  async function judge(transaction: TransactionRequest): Promise<GuardCheck | undefined> {
    return judgeWith(() => ask(transaction), {
      onCheck: (check) => {
        lastCheck = check
        options.onCheck?.(check)
      },
      onReview: options.onReview,
    })
  }

  /** Checks a batch as one bundle; acts on the bundle's verdict like {@link judge}. */
  async function judgeBatch(transactions: TransactionRequest[]): Promise<void> {
    await judgeWith(() => askBatch(transactions), {
      onCheck: (check) => options.onBatchCheck?.(check),
      onReview: options.onBatchReview,
    })
  }

  async function judgeWith<C extends GuardCheck | BatchCheck>(
    asking: () => Promise<C>,
    hooks: {
      onCheck: (check: C) => void
      onReview: ((check: C) => boolean | Promise<boolean>) | undefined
    },
  ): Promise<C | undefined> {
    let check: C
    try {
      check = await asking()
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
    hooks.onCheck(check)
    if (check.verdict === 'block') throw new TransactionBlockedError(check)
    if (check.verdict === 'review') {
      const approval = hooks.onReview ? await hooks.onReview(check) : false
      if (approval !== true) throw new TransactionNeedsReviewError(check)
    }
    return check
  }

  // Typed data is always screened on the free route, whatever the mode: a signature costs nothing
  // to screen and a permit moves as much as a transaction.
  const allowRawSign = options.allowRawSign ?? false
  const judgeTypedData = createTypedDataJudge({
    guard,
    failClosed,
    allowRawSign,
    ...(options.onTypedDataReview ? { onReview: options.onTypedDataReview } : {}),
    ...(options.onTypedDataCheck ? { onCheck: options.onTypedDataCheck } : {}),
    ...(options.onGuardUnavailable ? { onGuardUnavailable: options.onGuardUnavailable } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
  })

  // The guarded transport: every request goes through here, whichever action makes it. A
  // transaction a named action already judged (and is sending) is not asked about twice.
  // JSON-RPC accounts sign typed data through it (`eth_signTypedData_v4`).
  const inner = (walletClient as unknown as { request: RequestFn }).request
  const request = guardedRequest(
    inner,
    async (transaction) => {
      if (!approved.has(transaction)) await judge(transaction)
    },
    {
      checkTypedData: async (signer, typedData) => {
        await judgeTypedData(signer, typedData)
      },
      allowRawSign,
    },
    judgeBatch,
  )
  // A local account signs typed data without the transport: its signTypedData is guarded too.
  const account = (walletClient as { account?: { type?: string } }).account
  const guardedWallet =
    account?.type === 'local' && !isGuardedAccount(account)
      ? ({
          ...walletClient,
          account: guardAccount(account as never, judgeTypedData, allowRawSign),
        } as unknown as client)
      : walletClient
  const guardedBase = rebuildWalletClient(guardedWallet, request)

  // viem types `extend` to forbid overriding its actions; overriding them is the point here.
  const extendable = guardedBase as unknown as {
    extend(fn: (client: AnyWalletClient) => Record<string, unknown>): unknown
  }
  return extendable.extend((base) => ({
    ...guardedWalletActions(base, {
      judge,
      ask,
      askBatch,
      approved,
      lastCheck: () => lastCheck,
      fees: (parameters, check) =>
        options.suggestedFees !== false
          ? withSuggestedFees(parameters, check.result.fees, feeCeiling)
          : parameters,
    }),
    // An account passed per call (`signTypedData({account, ...})`) may be an unguarded local
    // account that never touches the transport: it is checked here. The client's own account
    // and JSON-RPC accounts are checked where they sign, once.
    signTypedData: async (parameters: Record<string, unknown>) => {
      const given = parameters.account as { type?: string; address?: `0x${string}` } | undefined
      if (given?.type === 'local' && !isGuardedAccount(given) && given.address) {
        await judgeTypedData(given.address, toTypedDataJson(parameters))
      }
      return base.signTypedData(parameters as never)
    },
  })) as unknown as client & PreSendGuardActions
}
