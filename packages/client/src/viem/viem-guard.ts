import type {
  Account,
  Address,
  PrepareAuthorizationParameters,
  PrepareAuthorizationReturnType,
  SendTransactionParameters,
} from 'viem'
import { parseAccount } from 'viem/accounts'
import { estimateGas } from 'viem/actions'
import {
  createGuardClient,
  type GuardClient,
  type TransactionRequest,
} from '../client/guard-client.js'
import { GuardError } from '../client/guard-error.js'
import type { AnyWalletClient } from './any-wallet-client.js'
import { createApprovedSends } from './approved-sends.js'
import { type AuthorizationToJudge, unsignedTuple } from './authorizations-to-judge.js'
import type {
  AuthorizationCheck,
  BatchCheck,
  GuardCheck,
  GuardMode,
  TypedDataCheck,
} from './guard-checks.js'
import { guardedRequest, type RequestFn } from './guarded-request.js'
import { guardedWalletActions } from './guarded-wallet-actions.js'
import { createPaidGuardCheck } from './paid-guard-check.js'
import {
  expectServedChain,
  GuardUnavailableError,
  SignatureBlockedError,
  SignatureNeedsReviewError,
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
import { withSuggestedGas } from './with-suggested-gas.js'

export type {
  AuthorizationCheck,
  BatchCheck,
  GuardCheck,
  GuardMode,
  TypedDataCheck,
} from './guard-checks.js'

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
  /**
   * Default true: when the caller set no `gas`, send with viem's own estimate raised to the
   * guard's `gas.estimate` (made as in the next block, where the transaction lands; viem's is
   * made in the latest block's), at most twice viem's. A guard can neither lower the limit under
   * viem's estimate nor more than double it. See {@link withSuggestedGas}.
   */
  suggestedGas?: boolean
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
   * Called on a `review` verdict for an EIP-7702 authorization (`signAuthorization`,
   * `prepareAuthorization`, or one in a type-4 transaction's `authorizationList`); resolve
   * exactly `true` to go ahead. Without it a review throws SignatureNeedsReviewError (before
   * signing) or TransactionNeedsReviewError (a type-4 transaction).
   */
  onAuthorizationReview?: (check: AuthorizationCheck) => boolean | Promise<boolean>
  /** Called with every authorization check, before its verdict is acted on. */
  onAuthorizationCheck?: (check: AuthorizationCheck) => void
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
    /**
     * Asks the authorization route about the tuple `signAuthorization(parameters)` would sign
     * (chain id and nonce filled as viem fills them) without signing; no verdict is acted on.
     */
    checkAuthorization(
      parameters: PrepareAuthorizationParameters<Account>,
    ): Promise<AuthorizationCheck>
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
 * `signTransaction` throws: a signed transaction could be broadcast without the guard.
 *
 * EIP-7702 authorizations are judged on the free authorization route before they exist:
 * `signAuthorization` and `prepareAuthorization` fill the tuple as viem does (chain id, nonce;
 * `executor: 'self'` adds one), ask the guard about it, and only then sign (or return) it:
 * `block` throws SignatureBlockedError, `review` asks `onAuthorizationReview` (default: throw
 * SignatureNeedsReviewError). A type-4 transaction is judged twice over: the transaction on the
 * transaction route (without its list) and each signed authorization of its list, its signer
 * recovered, on the authorization route; the worst verdict decides (TransactionBlockedError,
 * TransactionNeedsReviewError carrying the deciding check). An authorization that cannot be
 * judged (unsigned, a signature that recovers to nobody) refuses the transaction.
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

  /**
   * The guard's network (its discovery, asked once); a transaction on another chain than it
   * serves is refused before it is asked about (ChainMismatchError), in paid mode before
   * anything is paid. A guard without discovery names none: its route refuses another
   * network's chain id (422), which is a refusal too.
   */
  async function expectOnGuardNetwork(transactions: readonly TransactionRequest[]) {
    const network = await guard.network()
    for (const { chainId } of transactions) {
      if (chainId !== undefined && network !== undefined) expectServedChain(chainId, network)
    }
    return network
  }

  async function ask(transaction: TransactionRequest): Promise<GuardCheck> {
    await expectOnGuardNetwork([transaction])
    if (mode !== 'read-only') return paidCheck(transaction)
    const result = await guard.preflight(transaction)
    return { mode, transaction, verdict: result.verdict, findings: result.findings, result }
  }

  async function askBatch(transactions: TransactionRequest[]): Promise<BatchCheck> {
    await expectOnGuardNetwork(transactions)
    const result = await guard.bundlePreflight({
      transactions: transactions.map(({ chainId: _, ...tx }) => tx),
    })
    const findings = result.transactions.flatMap((t) => t.findings)
    return { mode: 'read-only', transactions, verdict: result.verdict, findings, result }
  }

  async function askAuthorization(
    authority: Address,
    authorization: AuthorizationToJudge['authorization'],
  ): Promise<AuthorizationCheck> {
    const network = await expectOnGuardNetwork([])
    const result = await guard.authorizationPreflight({
      ...(network ? { chainId: network.chainIdHex } : {}),
      authority,
      authorization,
    })
    return { authority, authorization, verdict: result.verdict, findings: result.findings, result }
  }

  const onCheck = (check: GuardCheck) => {
    lastCheck = check
    options.onCheck?.(check)
  }
  const onAuthorizationCheck = (check: AuthorizationCheck) => options.onAuthorizationCheck?.(check)

  /** Checks one transaction; returns the check, or undefined when sending blind (fail-open). */
  async function judgeTransaction(
    transaction: TransactionRequest,
  ): Promise<GuardCheck | undefined> {
    const check = await obtain(() => ask(transaction))
    if (check === undefined) return undefined
    onCheck(check)
    await act(check, options.onReview, TransactionBlockedError, TransactionNeedsReviewError)
    return check
  }

  /**
   * Checks a transaction and its EIP-7702 authorizations; the worst verdict decides. The free
   * authorization checks come first: when one blocks, the transaction is not asked about (in
   * paid mode, nothing is paid for a send that cannot happen).
   */
  async function judge(
    transaction: TransactionRequest,
    authorizations: readonly AuthorizationToJudge[] = [],
  ): Promise<GuardCheck | undefined> {
    if (authorizations.length === 0) return judgeTransaction(transaction)
    const checks = (
      await Promise.all(
        authorizations.map((a) => obtain(() => askAuthorization(a.authority, a.authorization))),
      )
    ).filter((c): c is AuthorizationCheck => c !== undefined)
    for (const check of checks) onAuthorizationCheck(check)
    const blocked = checks.find((c) => c.verdict === 'block')
    if (blocked) throw new TransactionBlockedError(blocked)
    const check = await obtain(() => ask(transaction))
    if (check !== undefined) {
      onCheck(check)
      if (check.verdict === 'block') throw new TransactionBlockedError(check)
      await act(check, options.onReview, TransactionBlockedError, TransactionNeedsReviewError)
    }
    for (const c of checks) {
      await act(
        c,
        options.onAuthorizationReview,
        TransactionBlockedError,
        TransactionNeedsReviewError,
      )
    }
    return check
  }

  /** Checks an authorization about to be signed; acts on the verdict (throws before signing). */
  async function judgeAuthorization(
    authority: Address,
    prepared: PrepareAuthorizationReturnType,
  ): Promise<AuthorizationCheck | undefined> {
    const check = await obtain(() => askAuthorization(authority, unsignedTuple(prepared)))
    if (check === undefined) return undefined
    onAuthorizationCheck(check)
    await act(
      check,
      options.onAuthorizationReview,
      SignatureBlockedError,
      SignatureNeedsReviewError,
    )
    return check
  }

  /** Checks a batch as one bundle; acts on the bundle's verdict like {@link judge}. */
  async function judgeBatch(transactions: TransactionRequest[]): Promise<void> {
    const check = await obtain(() => askBatch(transactions))
    if (check === undefined) return
    options.onBatchCheck?.(check)
    await act(check, options.onBatchReview, TransactionBlockedError, TransactionNeedsReviewError)
  }

  /**
   * Asks the guard; undefined when it is down and the wrapper goes ahead blind (fail-open). A
   * check from another environment than the one expected throws.
   */
  async function obtain<C extends { result: { environment: string } }>(
    asking: () => Promise<C>,
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
    return check
  }

  /** Acts on a verdict: `block` throws, `review` throws unless `onReview` resolves exactly true. */
  async function act<C extends { verdict: string }>(
    check: C,
    onReview: ((check: C) => boolean | Promise<boolean>) | undefined,
    Blocked: new (check: C) => Error,
    NeedsReview: new (check: C) => Error,
  ): Promise<void> {
    if (check.verdict === 'block') throw new Blocked(check)
    if (check.verdict === 'review') {
      const approval = onReview ? await onReview(check) : false
      if (approval !== true) throw new NeedsReview(check)
    }
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
    async ({ transaction, authorizations }) => {
      if (!approved.has(transaction, authorizations)) await judge(transaction, authorizations)
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
      judgeAuthorization,
      askAuthorization: (authority, prepared) =>
        askAuthorization(authority, unsignedTuple(prepared)),
      ask,
      askBatch,
      approved,
      lastCheck: () => lastCheck,
      sendParameters: async (parameters, check) => {
        const priced =
          options.suggestedFees !== false
            ? withSuggestedFees(parameters, check.result.fees, feeCeiling)
            : parameters
        if (options.suggestedGas === false) return priced
        // viem's estimate as its own send would make it (prepareTransactionRequest's call).
        return withSuggestedGas(priced, check.result.gas, (p) => {
          const account = parseAccount(p.account ?? base.account ?? check.transaction.from)
          return estimateGas(base, {
            ...(p as object),
            account,
            prepare: account.type === 'local' ? [] : ['blobVersionedHashes'],
          } as never)
        })
      },
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
