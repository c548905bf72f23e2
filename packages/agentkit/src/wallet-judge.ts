import {
  createGuardClient,
  type GuardClient,
  GuardError,
  type TransactionRequest,
  type TypedDataJson,
} from '@pre-send-guard/client'
import {
  GuardUnavailableError,
  SignatureBlockedError,
  SignatureNeedsReviewError,
  TransactionBlockedError,
  TransactionNeedsReviewError,
} from '@pre-send-guard/client/viem'
import { expectAnsweredOn, expectGuardServes, type GuardNetwork } from './guard-network.js'
import { type BudgetHold, createSpendBudget } from './spend-budget.js'
import {
  hasPolicy,
  type SpendPolicy,
  senderOutflow,
  transactionViolations,
  typedDataViolations,
} from './spend-policy.js'
import { SpendPolicyError } from './spend-policy-error.js'
import type { WalletCheck } from './wallet-check.js'

/** Options of `withPreSendGuardWalletProvider`. */
export interface PreSendGuardWalletOptions {
  /** A guard client, or the guard's base URL. Every check is asked of the free routes. */
  guard: GuardClient | string
  /** What this agent may spend and to whom, held against the simulated effects. */
  policy?: SpendPolicy
  /**
   * Called on a `review` verdict (a transaction or typed data) that breaks no policy; resolve
   * exactly `true` to go ahead. Without it a review refuses (TransactionNeedsReviewError,
   * SignatureNeedsReviewError).
   */
  onReview?: (check: WalletCheck) => boolean | Promise<boolean>
  /** Called with every check, before its verdict is acted on (keep an audit trail here). */
  onCheck?: (check: WalletCheck) => void
  /**
   * Default true: when the guard is down (unreachable, garbled, 5xx) refuse with
   * GuardUnavailableError. With false, and only when no `policy` is set, the transaction or
   * signature goes ahead unchecked and `onGuardUnavailable` is told; a policy is never waived
   * (it cannot be held without the simulation).
   */
  failClosed?: boolean
  onGuardUnavailable?: (error: GuardError) => void
  /** When set, an answer from another environment (a devnet guard for a real wallet) refuses. */
  environment?: 'devnet' | 'mainnet'
  /**
   * Default false: a raw-hash signature (`sign`) is refused, since a hash cannot be screened
   * (it may be a transaction's or a permit's digest).
   */
  allowRawSign?: boolean
}

/** Judges what a wallet is about to do; each call throws unless it may go ahead. */
export interface WalletJudge {
  /** The guard client asked. */
  readonly guard: GuardClient
  /** Judges a transaction; resolves the check, or undefined when going ahead blind (fail-open). */
  transaction(transaction: TransactionRequest): Promise<WalletCheck | undefined>
  /**
   * Gives back to the budget what a judged transaction held, when it was never sent (its send
   * or signature failed).
   */
  notSent(check: WalletCheck): void
  /** Judges typed data `signer` would sign; as {@link WalletJudge.transaction}. */
  typedData(signer: `0x${string}`, typedData: TypedDataJson): Promise<WalletCheck | undefined>
}

/**
 * The judgement the wrapped wallet provider applies, in this order: the guard's answer (fail
 * closed when it is down; refused when it was judged on another chain or environment), `block`
 * refuses, any policy violation refuses, `review` asks `onReview` (default: refuse), `sign`
 * goes ahead.
 */
export function createWalletJudge(
  network: GuardNetwork,
  options: PreSendGuardWalletOptions,
): WalletJudge {
  const guard =
    typeof options.guard === 'string'
      ? createGuardClient({ baseUrl: options.guard })
      : options.guard
  const failClosed = options.failClosed ?? true
  const budget = options.policy?.budget ? createSpendBudget(options.policy.budget) : undefined
  const holds = new WeakMap<WalletCheck, BudgetHold>()

  /** The guard's answer; undefined when it is down and the builder opted to go ahead blind. */
  async function obtain<R extends { chainId: string; network: string; environment: string }>(
    asking: () => Promise<R>,
  ): Promise<R | undefined> {
    let answer: R
    try {
      // A guard whose discovery names another network is not asked at all.
      await expectGuardServes(guard, network)
      answer = await asking()
    } catch (error) {
      if (error instanceof GuardError && error.unavailable) {
        if (failClosed || hasPolicy(options.policy)) throw new GuardUnavailableError(error)
        options.onGuardUnavailable?.(error)
        return undefined
      }
      throw error
    }
    expectAnsweredOn(network, answer)
    if (options.environment !== undefined && answer.environment !== options.environment) {
      throw new GuardError(
        'environment_mismatch',
        `the guard checked this on ${answer.environment}, the wallet expects ${options.environment}`,
      )
    }
    return answer
  }

  async function act(walletCheck: WalletCheck): Promise<WalletCheck> {
    options.onCheck?.(walletCheck)
    const isTransaction = walletCheck.kind === 'transaction'
    if (walletCheck.check.verdict === 'block') {
      throw isTransaction
        ? new TransactionBlockedError(walletCheck.check)
        : new SignatureBlockedError(walletCheck.check)
    }
    // A policy holds whatever the verdict: no review can waive it.
    if (walletCheck.violations.length > 0) {
      throw new SpendPolicyError(walletCheck, walletCheck.violations)
    }
    if (walletCheck.check.verdict === 'review') {
      const approval = options.onReview ? await options.onReview(walletCheck) : false
      if (approval !== true) {
        throw isTransaction
          ? new TransactionNeedsReviewError(walletCheck.check)
          : new SignatureNeedsReviewError(walletCheck.check)
      }
    }
    return walletCheck
  }

  return {
    guard,
    async transaction(transaction) {
      const result = await obtain(() => guard.preflight(transaction))
      if (result === undefined) return undefined
      const violations = transactionViolations(options.policy, transaction.from, result.effects)
      // The budget last, and only for what may go: a refused transaction holds nothing.
      const held =
        budget && violations.length === 0 && result.effects.available
          ? budget.hold(senderOutflow(result.effects))
          : undefined
      const walletCheck: WalletCheck = {
        kind: 'transaction',
        check: {
          mode: 'read-only',
          transaction,
          verdict: result.verdict,
          findings: result.findings,
          result,
        },
        violations: [...violations, ...(held?.violations ?? [])],
      }
      try {
        await act(walletCheck)
      } catch (error) {
        held?.hold?.giveBack()
        throw error
      }
      if (held?.hold) holds.set(walletCheck, held.hold)
      return walletCheck
    },
    notSent(check) {
      holds.get(check)?.giveBack()
      holds.delete(check)
    },
    async typedData(signer, typedData) {
      const result = await obtain(() => guard.typedDataPreflight({ signer, typedData }))
      if (result === undefined) return undefined
      return act({
        kind: 'typed-data',
        check: {
          signer: result.signer,
          typedData,
          verdict: result.verdict,
          findings: result.findings,
          result,
        },
        violations: typedDataViolations(options.policy, signer, result.grants),
      })
    },
  }
}
