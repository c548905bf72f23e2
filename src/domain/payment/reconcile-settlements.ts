import type { SettleResponse } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import { type IssueReceiptDeps, issueReceipt } from './issue-receipt.js'
import type { PaymentFailure, PaymentLedger, PaymentRecord } from './payment-ledger.js'
import type { PaymentLogger } from './payment-logger.js'
import type { PaymentRail } from './payment-rail.js'
import { PAYMENT_REASONS, type PaymentReason } from './payment-reasons.js'
import { type ExpectedPayment, type MinedTransaction, provesPayment } from './settlement-proof.js'

/** The chain head a reconciliation is judged at. */
export interface ChainHead {
  number: bigint
  /** Unix seconds: expiry is judged by chain time, never ours. */
  timestamp: bigint
}

/** Where an authorization's nonce was spent. */
export interface AuthorizationEvent {
  /** `used`: a transfer with an authorization under this nonce; `canceled`: cancelAuthorization. */
  kind: 'used' | 'canceled'
  transaction: Hex
  blockNumber: bigint
}

/** What the node knows about a transaction. */
export type TransactionState =
  | { state: 'mined'; tx: MinedTransaction }
  /** In the node's mempool: it may still be mined. */
  | { state: 'pending' }
  /** Not known to the node (never received, or dropped). */
  | { state: 'unknown' }

/** On-chain facts about an EIP-3009 authorization; read-only. */
export interface SettlementChain {
  /** The latest block, read first so every other read of a payment is pinned to it. */
  latestBlock(): Promise<ChainHead>
  /** The token's `authorizationState(authorizer, nonce)` at `blockNumber`: used or canceled. */
  authorizationUsed(
    asset: Address,
    authorizer: Address,
    nonce: Hex,
    blockNumber: bigint,
  ): Promise<boolean>
  /** The first AuthorizationUsed / AuthorizationCanceled event for the nonce in the range. */
  findAuthorizationEvent(
    asset: Address,
    authorizer: Address,
    nonce: Hex,
    fromBlock: bigint,
    toBlock: bigint,
  ): Promise<AuthorizationEvent | undefined>
  transaction(hash: Hex): Promise<TransactionState>
}

export interface ReconcileDeps extends IssueReceiptDeps {
  ledger: PaymentLedger
  rail: PaymentRail
  chain: SettlementChain
  /** In-flight payments untouched this long are taken over (their request died). */
  staleAfterMs: number
  /**
   * Back-off for a payment a pass could not resolve: `initialMs * 2^attempts`, at most
   * `maxMs`. Default 5 s to 10 min, so stuck payments never starve the others.
   */
  backoff?: { initialMs: number; maxMs: number }
  /** How long a pass holds the payments it took against other instances (default 2 min). */
  leaseMs?: number
  /** Payments per pass (default 100), leased a few at a time. */
  maxPerPass?: number
  /**
   * Blocks before the preflight's block where the search for the authorization's use starts
   * (default 1,000, ~33 min on Base): it may have been submitted just before we simulated.
   */
  lookbackBlocks?: bigint
  logger?: PaymentLogger
}

/** What one pass did, for logs and tests. */
export interface ReconcileReport {
  settled: string[]
  failed: string[]
  stillPending: string[]
}

const DEFAULT_BACKOFF = { initialMs: 5_000, maxMs: 10 * 60_000 }
const DEFAULT_LEASE_MS = 2 * 60_000
const DEFAULT_LOOKBACK_BLOCKS = 1_000n
/** Leased per round trip: a slow pass never holds many payments past its lease. */
const LEASE_BATCH = 10

/**
 * Resolves payments whose settlement outcome is unknown, from the chain: `settle_pending`
 * ones, `settling` ones whose request died, and abandoned earlier states (nothing was sent:
 * failed, retryable).
 *
 * The chain is read at one block B (head first, then state at B):
 * - nonce used at B: the transaction that used it is found (AuthorizationUsed or
 *   AuthorizationCanceled event). Settled only if that transaction shows
 *   AuthorizationUsed(payer, nonce) then Transfer(payer -> payTo, amount) from the token;
 *   canceled -> failed `authorization_canceled`; used for another transfer -> failed
 *   `authorization_used`. Not found yet -> still pending.
 * - unused at B and B's timestamp >= validBefore: it can never be used -> failed
 *   `authorization_expired`.
 * - unused and still valid: a sent transaction still in the mempool is waited for; otherwise
 *   settlement is retried through the facilitator (the nonce makes it once-only). Whatever
 *   the facilitator answers, only the chain decides, on a later pass.
 */
export async function reconcileSettlements(deps: ReconcileDeps): Promise<ReconcileReport> {
  const report: ReconcileReport = { settled: [], failed: [], stillPending: [] }
  const backoff = deps.backoff ?? DEFAULT_BACKOFF
  const maxPerPass = deps.maxPerPass ?? 100
  const seen: string[] = []
  while (seen.length < maxPerPass) {
    const rows = await deps.ledger.leaseUnresolved({
      staleAfterMs: deps.staleAfterMs,
      leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
      limit: Math.min(LEASE_BATCH, maxPerPass - seen.length),
      // Once per pass: a payment postponed by 0 ms is due again at once.
      excludeIds: seen,
    })
    if (rows.length === 0) break
    seen.push(...rows.map((row) => row.id))
    for (const row of rows) {
      let outcome: keyof ReconcileReport
      try {
        outcome = await reconcileOne(deps, row)
      } catch (error) {
        outcome = 'stillPending'
        deps.logger?.warn(
          { err: error, paymentId: row.id },
          'reconciling a payment failed; will retry',
        )
      }
      report[outcome].push(row.id)
      if (outcome === 'stillPending') {
        const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** row.reconcileAttempts)
        await deps.ledger.postpone(row.id, delay).catch((error: unknown) => {
          deps.logger?.warn({ err: error, paymentId: row.id }, 'cannot postpone a payment')
        })
      }
    }
  }
  return report
}

async function reconcileOne(
  deps: ReconcileDeps,
  row: PaymentRecord,
): Promise<keyof ReconcileReport> {
  const { ledger, chain } = deps
  // Before settling started nothing was sent: the request died, the payer may simply retry.
  if (row.status === 'verifying' || row.status === 'verified') {
    const moved = await ledger.transition(row.id, [row.status], {
      status: 'failed',
      failure: {
        status: 503,
        code: 'payment_in_progress',
        message: 'the request handling this payment stopped before settlement; retry it',
      },
    })
    return moved ? 'failed' : 'stillPending'
  }
  const result = row.result
  if (!result) {
    // Cannot happen (`settling` is stored with the result) but never settle without an answer.
    deps.logger?.warn({ paymentId: row.id }, 'unresolved payment without a stored result')
    return 'stillPending'
  }
  const from = ['settling', 'settle_pending'] as const
  const expected: ExpectedPayment = {
    asset: row.asset,
    payer: row.payer,
    payTo: row.payTo,
    amount: row.amount,
    nonce: row.nonce,
  }
  const settle = async (transaction: Hex, response: SettleResponse) => {
    const receipt = await issueReceipt(deps, { ...row, result }, transaction)
    const moved = await ledger.transition(row.id, from, {
      status: 'settled',
      settlementTx: transaction,
      settleResponse: response,
      receipt,
    })
    if (moved) deps.logger?.info({ paymentId: row.id, transaction }, 'pending settlement confirmed')
    return moved ? ('settled' as const) : ('stillPending' as const)
  }
  const settleFrom = (tx: MinedTransaction) =>
    settle(tx.hash, {
      success: true,
      transaction: tx.hash,
      network: row.network as SettleResponse['network'],
      payer: row.payer,
      amount: row.amount.toString(),
    })
  const fail = async (reason: PaymentReason, why: string, transaction?: Hex) => {
    const failure: PaymentFailure = {
      status: 402,
      code: reason,
      message: `${PAYMENT_REASONS[reason]} (${why})`,
      final: true,
    }
    const moved = await ledger.transition(row.id, from, {
      status: 'failed',
      failure,
      ...(transaction ? { settlementTx: transaction } : {}),
    })
    if (moved) {
      deps.logger?.warn({ paymentId: row.id, reason, transaction }, 'pending settlement failed')
    }
    return moved ? ('failed' as const) : ('stillPending' as const)
  }

  // Our own transaction, when it is mined and proves the payment, settles it without a search.
  const known = row.settlementTx ? await chain.transaction(row.settlementTx) : undefined
  if (known?.state === 'mined' && provesPayment(known.tx, expected)) return settleFrom(known.tx)

  // Pin every read to one block: state at B, events up to B, expiry by B's timestamp.
  const head = await chain.latestBlock()
  if (await chain.authorizationUsed(row.asset, row.payer, row.nonce, head.number)) {
    const lookback = deps.lookbackBlocks ?? DEFAULT_LOOKBACK_BLOCKS
    const preflightBlock = BigInt(result.block.number)
    const fromBlock = preflightBlock > lookback ? preflightBlock - lookback : 0n
    const event = await chain.findAuthorizationEvent(
      row.asset,
      row.payer,
      row.nonce,
      fromBlock,
      head.number,
    )
    if (!event) {
      deps.logger?.warn(
        { paymentId: row.id, fromBlock: fromBlock.toString(), toBlock: head.number.toString() },
        'authorization used on chain but its transaction was not found; will look again',
      )
      return 'stillPending'
    }
    if (event.kind === 'canceled') {
      return fail('authorization_canceled', 'the payer canceled it on chain', event.transaction)
    }
    const used = await chain.transaction(event.transaction)
    if (used.state !== 'mined') return 'stillPending'
    if (provesPayment(used.tx, expected)) return settleFrom(used.tx)
    return fail(
      'authorization_used',
      'the nonce was spent by a transfer that did not pay payTo',
      event.transaction,
    )
  }
  // Unused at B. A transfer can only happen strictly before validBefore (chain time), so once
  // B is at or past it, nothing can ever pay this authorization.
  if (head.timestamp >= row.validBefore) {
    return fail('authorization_expired', 'it expired on chain without being used')
  }
  // Still spendable. A transaction we sent that the node still holds may yet be mined.
  if (known?.state === 'pending') return 'stillPending'
  if (known?.state === 'mined' && known.tx.blockNumber > head.number) return 'stillPending'
  const outcome = await deps.rail.settle(row.payload)
  const transaction =
    outcome.status === 'settled' || outcome.status === 'unknown' ? outcome.transaction : undefined
  if (transaction) {
    const mined = await chain.transaction(transaction)
    if (mined.state === 'mined' && provesPayment(mined.tx, expected)) return settleFrom(mined.tx)
    await ledger.transition(row.id, from, { status: 'settle_pending', settlementTx: transaction })
  }
  deps.logger?.info(
    { paymentId: row.id, outcome: outcome.status, transaction },
    'settlement retried; the chain decides on a later pass',
  )
  return 'stillPending'
}

/**
 * Runs {@link reconcileSettlements} every `intervalMs` in the background (timer unref'd, one
 * pass at a time). Returns a stop function that waits for a pass in progress.
 */
export function startReconciler(deps: ReconcileDeps, intervalMs: number): () => Promise<void> {
  let running: Promise<unknown> | undefined
  const timer = setInterval(() => {
    if (running) return
    running = reconcileSettlements(deps)
      .catch((error: unknown) => deps.logger?.warn({ err: error }, 'reconciliation pass failed'))
      .finally(() => {
        running = undefined
      })
  }, intervalMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
