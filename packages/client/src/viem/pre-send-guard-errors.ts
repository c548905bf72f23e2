import { PreSendGuardBaseError } from '../client/base-error.js'
import type { GuardError } from '../client/guard-error.js'
import type { Finding } from '../client/guard-responses.js'
import { networkByChainId, type ServedNetwork } from '../types/networks.js'
import type {
  AuthorizationCheck,
  BatchCheck,
  GuardCheck,
  TypedDataCheck,
  UserOperationCheck,
} from './guard-checks.js'

/** Base of every refusal by {@link withPreSendGuard}: nothing was sent. */
export class PreSendGuardError extends PreSendGuardBaseError {
  override name = 'PreSendGuardError'
}

/**
 * The guard's verdict was `block`: nothing was sent. For a type-4 transaction `check` is the
 * worst of its checks: the transaction's, or that of an authorization in its list.
 */
export class TransactionBlockedError extends PreSendGuardError {
  override name = 'TransactionBlockedError'
  readonly check: GuardCheck | BatchCheck | AuthorizationCheck
  readonly findings: Finding[]
  constructor(check: GuardCheck | BatchCheck | AuthorizationCheck) {
    super(`the guard blocked this transaction: ${summary(check.findings, 'critical')}`)
    this.check = check
    this.findings = check.findings
  }
}

/**
 * The verdict was `review` and no `onReview` approved it (`onAuthorizationReview` for an
 * authorization in a type-4 transaction's list): nothing was sent.
 */
export class TransactionNeedsReviewError extends PreSendGuardError {
  override name = 'TransactionNeedsReviewError'
  readonly check: GuardCheck | BatchCheck | AuthorizationCheck
  readonly findings: Finding[]
  constructor(check: GuardCheck | BatchCheck | AuthorizationCheck) {
    super(`the guard asks for a review: ${summary(check.findings, 'warning')}`)
    this.check = check
    this.findings = check.findings
  }
}

/**
 * The guard cannot judge this transaction or signature (contract creation, an EIP-7702
 * authorization whose signer cannot be recovered, batched calls, a chain the guard does not
 * serve ({@link ChainMismatchError} when it is another Base network than the guard's),
 * signing a transaction to broadcast elsewhere, a raw-hash `eth_sign`, typed data not in the
 * `eth_signTypedData_v4` form, an action added to the client before it was wrapped): nothing
 * was sent or signed.
 */
export class TransactionNotCheckableError extends PreSendGuardError {
  override name = 'TransactionNotCheckableError'
}

/**
 * The wallet (its chain, its RPC, its bundler, or the chain a signed transaction names) is on
 * another chain than the one the guard serves (its discovery's `network`): the verdict would be
 * about another chain, so nothing was sent or signed. Names both.
 */
export class ChainMismatchError extends TransactionNotCheckableError {
  override name = 'ChainMismatchError'
  /** The wallet's chain id. */
  readonly walletChainId: number
  /** The network the guard serves. */
  readonly guardNetwork: ServedNetwork
  constructor(walletChainId: number, guardNetwork: ServedNetwork) {
    const wallet = networkByChainId(walletChainId)
    super(
      `the wallet is on ${wallet ? `${wallet.label} (chain ${walletChainId})` : `chain ${walletChainId}`}, the guard serves ${guardNetwork.label} (${guardNetwork.id}, chain ${guardNetwork.chainId}): its verdict would be about another chain, nothing was sent or signed`,
    )
    this.walletChainId = walletChainId
    this.guardNetwork = guardNetwork
  }
}

/** Throws {@link ChainMismatchError} unless `chainId` (a number or 0x-hex) is `network`'s. */
export function expectServedChain(chainId: number | string, network: ServedNetwork): void {
  const id = Number(chainId)
  if (id !== network.chainId) throw new ChainMismatchError(id, network)
}

/**
 * The guard was down (unreachable, garbled, 5xx) and `failClosed` is on, or a paid check's
 * outcome is unknown (never sent blind then, whatever `failClosed` says): nothing was sent.
 */
export class GuardUnavailableError extends PreSendGuardError {
  override name = 'GuardUnavailableError'
  /** Seconds the guard asked to wait, when it said. */
  readonly retryAfter: number | undefined
  /**
   * Paid mode: the payment that left and whose outcome is unknown. The wrapper keeps it and
   * resumes with it when the same transaction is sent again: no second payment.
   */
  readonly paymentSignature: string | undefined
  constructor(cause: GuardError) {
    super(`the guard is unavailable, not sending blind: ${cause.shortMessage}`, { cause })
    this.retryAfter = cause.retryAfter
    this.paymentSignature = cause.paymentSignature
  }
}

function summary(findings: Finding[], severity: Finding['severity']): string {
  const relevant = findings.filter((f) => f.severity === severity)
  const shown = relevant.length > 0 ? relevant : findings
  return shown.map((f) => `${f.id} (${f.title})`).join(', ') || 'no findings given'
}

/** The refusal of something the guard cannot check, sent through the wrapped client. */
export function notCheckable(what: string): TransactionNotCheckableError {
  return new TransactionNotCheckableError(
    `${what} cannot be checked by the guard; use the unwrapped client deliberately`,
  )
}

/** The guard's verdict on typed data or an EIP-7702 authorization was `block`: nothing was signed. */
export class SignatureBlockedError extends PreSendGuardError {
  override name = 'SignatureBlockedError'
  readonly check: TypedDataCheck | AuthorizationCheck
  readonly findings: Finding[]
  constructor(check: TypedDataCheck | AuthorizationCheck) {
    super(`the guard blocked this signature: ${summary(check.findings, 'critical')}`)
    this.check = check
    this.findings = check.findings
  }
}

/**
 * The verdict on typed data or an EIP-7702 authorization was `review` and no `onReview`
 * (`onTypedDataReview`, `onAuthorizationReview`) approved it: nothing was signed.
 */
export class SignatureNeedsReviewError extends PreSendGuardError {
  override name = 'SignatureNeedsReviewError'
  readonly check: TypedDataCheck | AuthorizationCheck
  readonly findings: Finding[]
  constructor(check: TypedDataCheck | AuthorizationCheck) {
    super(`the guard asks for a review of this signature: ${summary(check.findings, 'warning')}`)
    this.check = check
    this.findings = check.findings
  }
}

/** The guard's verdict on a user operation was `block`: nothing reached the bundler. */
export class UserOperationBlockedError extends PreSendGuardError {
  override name = 'UserOperationBlockedError'
  readonly check: UserOperationCheck
  readonly findings: Finding[]
  constructor(check: UserOperationCheck) {
    super(`the guard blocked this user operation: ${summary(check.findings, 'critical')}`)
    this.check = check
    this.findings = check.findings
  }
}

/**
 * The verdict on a user operation was `review` and no `onUserOperationReview` approved it:
 * nothing reached the bundler.
 */
export class UserOperationNeedsReviewError extends PreSendGuardError {
  override name = 'UserOperationNeedsReviewError'
  readonly check: UserOperationCheck
  readonly findings: Finding[]
  constructor(check: UserOperationCheck) {
    super(
      `the guard asks for a review of this user operation: ${summary(check.findings, 'warning')}`,
    )
    this.check = check
    this.findings = check.findings
  }
}
