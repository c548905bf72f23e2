import type { SettleResponse } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import { issueReceipt, type PaidPreflightDeps, type PaymentLogger } from './paid-preflight.js'
import type { PaymentLedger, PaymentRecord } from './payment-ledger.js'
import type { PaymentRail } from './payment-rail.js'
import { PAYMENT_REASONS, reasonFromFacilitator } from './payment-reasons.js'

/** On-chain facts about an EIP-3009 authorization; read-only. */
export interface SettlementChain {
  /** The token's `authorizationState(authorizer, nonce)`: true once used (or canceled). */
  authorizationUsed(asset: Address, authorizer: Address, nonce: Hex): Promise<boolean>
  /** Status of a transaction: mined ok, mined reverted, or not known to the node (yet). */
  transactionStatus(hash: Hex): Promise<'success' | 'reverted' | 'unknown'>
  /** The transaction that used the authorization (its AuthorizationUsed event), from `fromBlock`. */
  findAuthorizationTx(
    asset: Address,
    authorizer: Address,
    nonce: Hex,
    fromBlock: bigint,
  ): Promise<Hex | undefined>
  /** Latest block timestamp (unix seconds): expiry is judged by chain time, not ours. */
  latestTimestamp(): Promise<bigint>
}

export interface ReconcileDeps extends Pick<PaidPreflightDeps, 'receiptSigner' | 'now'> {
  ledger: PaymentLedger
  rail: PaymentRail
  chain: SettlementChain
  /** In-flight payments untouched this long are taken over (their request died). */
  staleAfterMs: number
  logger?: PaymentLogger
}

/** What one pass did, for logs and tests. */
export interface ReconcileReport {
  settled: string[]
  failed: string[]
  stillPending: string[]
}

/**
 * Resolves payments whose settlement outcome is unknown, from the chain: `settle_pending`
 * ones, `settling` ones whose request died, and abandoned earlier states. A used authorization
 * means the transfer to payTo happened (EIP-3009 fixes `to` and `value`), so the payment is
 * settled and its receipt issued; an unused one whose validity ran out can never settle, so it
 * failed; otherwise settlement is retried through the facilitator (the nonce makes it once-only).
 */
export async function reconcileSettlements(deps: ReconcileDeps): Promise<ReconcileReport> {
  const now = deps.now?.() ?? new Date()
  const report: ReconcileReport = { settled: [], failed: [], stillPending: [] }
  const rows = await deps.ledger.listUnresolved(new Date(now.getTime() - deps.staleAfterMs))
  for (const row of rows) {
    try {
      const outcome = await reconcileOne(deps, row)
      report[outcome].push(row.id)
    } catch (error) {
      report.stillPending.push(row.id)
      deps.logger?.warn(
        { err: error, paymentId: row.id },
        'reconciling a payment failed; will retry',
      )
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
  if (row.status === 'verifying' || row.status === 'verified' || row.status === 'preflight_done') {
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
    // Cannot happen (a result is stored before settling) but never settle without an answer.
    deps.logger?.warn({ paymentId: row.id }, 'unresolved payment without a stored result')
    return 'stillPending'
  }
  const from = ['settling', 'settle_pending'] as const
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
  const fail = async (upstreamReason: string, message: string) => {
    const reason = reasonFromFacilitator(upstreamReason, 'settlement_failed')
    const moved = await ledger.transition(row.id, from, {
      status: 'failed',
      failure: {
        status: 402,
        code: reason,
        message: `${PAYMENT_REASONS[reason]} (${message})`,
        facilitatorReason: upstreamReason,
      },
    })
    if (moved) deps.logger?.info({ paymentId: row.id, upstreamReason }, 'pending settlement failed')
    return moved ? ('failed' as const) : ('stillPending' as const)
  }

  if (await chain.authorizationUsed(row.asset, row.payer, row.nonce)) {
    const fromBlock = BigInt(result.block.number)
    const transaction =
      (row.settlementTx && (await chain.transactionStatus(row.settlementTx)) === 'success'
        ? row.settlementTx
        : undefined) ??
      (await chain.findAuthorizationTx(row.asset, row.payer, row.nonce, fromBlock))
    if (!transaction) return 'stillPending'
    return settle(transaction, {
      success: true,
      transaction,
      network: row.network as SettleResponse['network'],
      payer: row.payer,
      amount: row.amount.toString(),
    })
  }
  if (row.validBefore <= (await chain.latestTimestamp())) {
    return fail('authorization_expired_unsettled', 'the authorization expired without being used')
  }
  // Still spendable. If a sent transaction may yet be mined, wait for it; else settle again.
  if (row.settlementTx && (await chain.transactionStatus(row.settlementTx)) === 'unknown') {
    return 'stillPending'
  }
  const outcome = await deps.rail.settle(row.payload)
  switch (outcome.status) {
    case 'settled':
      return settle(outcome.transaction, outcome.response)
    case 'failed':
      // A retry can lose a race with a transaction we did not see: the chain has the last word.
      if (await chain.authorizationUsed(row.asset, row.payer, row.nonce)) return 'stillPending'
      return fail(outcome.upstreamReason, outcome.message ?? 'settlement retry failed')
    case 'unknown':
      if (outcome.transaction) {
        await ledger.transition(row.id, from, {
          status: 'settle_pending',
          settlementTx: outcome.transaction,
        })
      }
      return 'stillPending'
    case 'unreachable':
      return 'stillPending'
  }
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
