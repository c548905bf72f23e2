import type {
  Address,
  PrepareAuthorizationParameters,
  PrepareAuthorizationReturnType,
  SendRawTransactionParameters,
  SendTransactionParameters,
  SignAuthorizationParameters,
} from 'viem'
import { token, writeContract, writeContractSync } from 'viem/actions'
import type { TransactionRequest } from '../client/guard-client.js'
import type { AnyWalletClient } from './any-wallet-client.js'
import type { ApprovedSends } from './approved-sends.js'
import type { AuthorizationToJudge } from './authorizations-to-judge.js'
import type { AuthorizationCheck, BatchCheck, GuardCheck } from './guard-checks.js'
import { notCheckable } from './pre-send-guard-errors.js'
import { toGuardedSend, toGuardRequest } from './to-guard-request.js'
import { unwrapGuardError } from './unwrap-guard-error.js'

/** What the named actions need of the wrapper. */
export interface GuardedWalletActionsContext {
  /**
   * Checks one transaction (and a type-4 transaction's authorizations) and acts on the worst
   * verdict; undefined when sending blind (fail-open).
   */
  judge(
    transaction: TransactionRequest,
    authorizations: readonly AuthorizationToJudge[],
  ): Promise<GuardCheck | undefined>
  /**
   * Checks an authorization `authority` is about to sign and acts on the verdict (throws
   * SignatureBlockedError / SignatureNeedsReviewError).
   */
  judgeAuthorization(
    authority: Address,
    prepared: PrepareAuthorizationReturnType,
  ): Promise<AuthorizationCheck | undefined>
  /** Asks the guard about an authorization `authority` would sign; no verdict is acted on. */
  askAuthorization(
    authority: Address,
    prepared: PrepareAuthorizationReturnType,
  ): Promise<AuthorizationCheck>
  /** Asks the guard about a transaction; no verdict is acted on. */
  ask(transaction: TransactionRequest): Promise<GuardCheck>
  /** Asks the bundle route about transactions in order; no verdict is acted on. */
  askBatch(transactions: TransactionRequest[]): Promise<BatchCheck>
  approved: ApprovedSends
  lastCheck(): GuardCheck | undefined
  /**
   * The parameters to send a checked transaction with (the guard's suggested fees and gas, or
   * not).
   */
  sendParameters(
    parameters: SendTransactionParameters,
    check: GuardCheck,
  ): Promise<SendTransactionParameters>
}

/**
 * The wallet actions that override viem's on the guarded client (`base`): the named sends check
 * first (so the guard's suggested fees and gas can be used) and send with the check approved;
 * contract and token actions go through them; EIP-7702 authorizations are judged before they are
 * signed (`signAuthorization`) or handed out (`prepareAuthorization`); what cannot be checked
 * refuses; `preSendGuard` is added.
 */
export function guardedWalletActions(
  base: AnyWalletClient,
  context: GuardedWalletActionsContext,
): Record<string, unknown> {
  const guardedSend =
    <T>(send: (parameters: SendTransactionParameters) => Promise<T>) =>
    (parameters: SendTransactionParameters) =>
      unwrapGuardError(async () => {
        const { transaction, authorizations } = await toGuardedSend(base, parameters)
        const check = await context.judge(transaction, authorizations)
        const chosen = check ? await context.sendParameters(parameters, check) : parameters
        return context.approved.during(transaction, authorizations, () => send(chosen))
      })
  // viem fills the tuple's chain id and nonce (`executor: 'self'`: the pending nonce + 1); the
  // guard judges exactly that tuple, and exactly that tuple is signed.
  const prepare = async (parameters: PrepareAuthorizationParameters) => {
    const prepared = await base.prepareAuthorization(parameters as never)
    return { prepared, authority: authorityOf(base, parameters) }
  }
  const refuse = (what: string) => async (): Promise<never> => {
    throw notCheckable(what)
  }
  const sendTransaction = guardedSend((p) => base.sendTransaction(p as never))
  const sendTransactionSync = guardedSend((p) => base.sendTransactionSync(p as never))
  // viem's contract and token actions find `sendTransaction` on the client they are given.
  const view = { ...base, sendTransaction, sendTransactionSync } as unknown as AnyWalletClient
  const baseToken = (base as { token?: Record<string, unknown> }).token

  return {
    sendTransaction,
    sendTransactionSync,
    writeContract: (parameters: never) => unwrapGuardError(() => writeContract(view, parameters)),
    writeContractSync: (parameters: never) =>
      unwrapGuardError(() => writeContractSync(view, parameters)),
    // The transport checks raw transactions; these only unwrap viem's error wrappers.
    sendRawTransaction: (parameters: SendRawTransactionParameters) =>
      unwrapGuardError(() => base.sendRawTransaction(parameters)),
    sendRawTransactionSync: (parameters: SendRawTransactionParameters) =>
      unwrapGuardError(() => base.sendRawTransactionSync(parameters as never)),
    deployContract: refuse('contract creation'),
    // The transport checks `wallet_sendCalls` as one bundle; these only unwrap viem's errors.
    sendCalls: (parameters: never) => unwrapGuardError(() => base.sendCalls(parameters)),
    sendCallsSync: (parameters: never) => unwrapGuardError(() => base.sendCallsSync(parameters)),
    signTransaction: refuse('a transaction signed to be broadcast elsewhere (signTransaction)'),
    prepareAuthorization: (parameters: PrepareAuthorizationParameters) =>
      unwrapGuardError(async () => {
        const { prepared, authority } = await prepare(parameters)
        await context.judgeAuthorization(authority, prepared)
        return prepared
      }),
    signAuthorization: (parameters: SignAuthorizationParameters) =>
      unwrapGuardError(async () => {
        const { prepared, authority } = await prepare(parameters)
        await context.judgeAuthorization(authority, prepared)
        const { contractAddress: _, executor: __, ...rest } = parameters as Record<string, unknown>
        return base.signAuthorization({
          ...rest,
          address: prepared.address,
          chainId: prepared.chainId,
          nonce: prepared.nonce,
        } as never)
      }),
    ...(baseToken
      ? {
          token: {
            ...baseToken,
            approve: keepHelpers(baseToken.approve, (p) =>
              unwrapGuardError(() => token.approve(view, p)),
            ),
            approveSync: keepHelpers(baseToken.approveSync, (p) =>
              unwrapGuardError(() => token.approveSync(view, p)),
            ),
            transfer: keepHelpers(baseToken.transfer, (p) =>
              unwrapGuardError(() => token.transfer(view, p)),
            ),
            transferSync: keepHelpers(baseToken.transferSync, (p) =>
              unwrapGuardError(() => token.transferSync(view, p)),
            ),
          },
        }
      : {}),
    preSendGuard: {
      lastCheck: context.lastCheck,
      check: async (parameters: SendTransactionParameters) => {
        const transaction = await toGuardRequest(base, parameters)
        return context.ask(transaction)
      },
      checkAuthorization: async (parameters: PrepareAuthorizationParameters) => {
        const { prepared, authority } = await prepare(parameters)
        return context.askAuthorization(authority, prepared)
      },
      checkBatch: (transactions: TransactionRequest[]) => context.askBatch(transactions),
    },
  }
}

/** The account that would sign an authorization: the call's, else the client's. */
function authorityOf(client: AnyWalletClient, parameters: { account?: unknown }): Address {
  // cast: viem's `account` parameter, as viem types it: an address or an Account.
  const account = (parameters.account ?? client.account) as Address | { address: Address }
  return typeof account === 'string' ? account : account.address
}

/** A guarded token action that keeps viem's read-only helpers (`.call`, `.estimateGas`...). */
function keepHelpers(original: unknown, action: (parameters: never) => Promise<unknown>) {
  return typeof original === 'function' ? Object.assign(action, { ...original }) : action
}
