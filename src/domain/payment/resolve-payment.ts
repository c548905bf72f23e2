import type { PaymentPayload, SettleResponse } from '@x402/core/types'
import type { Hex } from 'viem'
import { type IssueReceiptDeps, issueReceipt } from './issue-receipt.js'
import { nowMs } from './payment-clock.js'
import {
  DEFAULT_PAYMENT_LEASE_MS,
  type PaymentFailure,
  type PaymentLedger,
  type PaymentRecord,
} from './payment-ledger.js'
import type { PaymentLogger } from './payment-logger.js'
import type { PaymentRail } from './payment-rail.js'
import { PAYMENT_REASONS, type PaymentReason } from './payment-reasons.js'
import { REMOTE_SETTLE_UNANSWERED } from './pending-settlement.js'
import { announceSettlementTo } from './settlement-announcement.js'
import type { ChainHead, MinedTransaction, SettlementChain } from './settlement-chain.js'
import { type ExpectedPayment, provesPayment } from './settlement-proof.js'

/**
 * A settlement run as it would be sent now (the settler, real fees, within the gas ceiling):
 * whether the chain would accept it, and if not, what it said.
 */
export type SettlementSimulation = { accepted: true } | { accepted: false; reason: string }

/** What resolving a payment from the chain needs. */
export interface ResolveDeps extends IssueReceiptDeps {
  ledger: PaymentLedger
  rail: PaymentRail
  chain: SettlementChain
  /**
   * Blocks before the preflight's block where the search for the authorization's use starts
   * (default 1,000, ~33 min on Base): it may have been submitted just before we simulated.
   */
  lookbackBlocks?: bigint
  logger?: PaymentLogger
  /**
   * Runs a payment's settlement as the settler would send it now (the built-in facilitator
   * only: a remote facilitator's settler is not ours to simulate). Used to say why a
   * settlement that reverted on chain did.
   */
  simulateSettlement?: (payload: PaymentPayload) => Promise<SettlementSimulation>
  /**
   * How long a payment must have been quiet (no status change, no settlement announced) before
   * a settlement is sent again through a facilitator at a URL (default
   * {@link DEFAULT_REMOTE_SETTLE_QUIET_MS}): such a facilitator names its transaction only in its
   * answer, and may still be working on a settle whose answer we never got.
   */
  remoteSettleQuietMs?: number
}

/**
 * The quiet a payment needs before a facilitator at a URL is asked to settle it again: the
 * payment lease (15 s), long past the time a facilitator that outlived our request (a stalled
 * `/settle`, an owner killed while waiting) takes to send and have its transaction mined.
 */
export const DEFAULT_REMOTE_SETTLE_QUIET_MS = DEFAULT_PAYMENT_LEASE_MS

/** How one resolution ended: the ledger now says settled or failed, or still nothing final. */
export type Resolution = 'settled' | 'failed' | 'stillPending'

/** What the chain says about one authorization, read at one block. */
export type ChainVerdict =
  /** A mined transaction used the authorization and paid payTo the amount. */
  | { kind: 'paid'; tx: MinedTransaction }
  /** The payer canceled it. */
  | { kind: 'canceled'; transaction: Hex }
  /** The nonce was spent by a transfer that did not pay payTo. */
  | { kind: 'used_elsewhere'; transaction: Hex }
  /** Unused at a head at or past validBefore: nothing can ever pay it. */
  | { kind: 'expired' }
  /** Unused and still spendable. */
  | { kind: 'unused'; head: ChainHead }
  /** Used, but its transaction cannot be read yet. */
  | { kind: 'unknown' }

const DEFAULT_LOOKBACK_BLOCKS = 1_000n

/**
 * Reads the chain for one authorization, pinned to one block B (head first, then state at B):
 * used at B -> the transaction that used it decides (paid only if it shows
 * `AuthorizationUsed(payer, nonce)` then `Transfer(payer -> payTo, amount)`, see
 * {@link provesPayment}); unused at B and B's time at or past validBefore -> expired; else
 * unused. `knownTx` (a transaction we were told about) is checked first, without a search.
 */
export async function readAuthorization(
  deps: Pick<ResolveDeps, 'chain' | 'lookbackBlocks' | 'logger'>,
  expected: ExpectedPayment & { validBefore: bigint },
  searchFromBlock: bigint | undefined,
  knownTx?: Hex,
): Promise<ChainVerdict> {
  const { chain } = deps
  if (knownTx) {
    const known = await chain.transaction(knownTx)
    if (known.state === 'mined' && provesPayment(known.tx, expected)) {
      return { kind: 'paid', tx: known.tx }
    }
  }
  const head = await chain.latestBlock()
  if (await chain.authorizationUsed(expected.asset, expected.payer, expected.nonce, head.number)) {
    const lookback = deps.lookbackBlocks ?? DEFAULT_LOOKBACK_BLOCKS
    const around = searchFromBlock ?? head.number
    const fromBlock = around > lookback ? around - lookback : 0n
    const event = await chain.findAuthorizationEvent(
      expected.asset,
      expected.payer,
      expected.nonce,
      fromBlock,
      head.number,
    )
    if (!event) {
      deps.logger?.warn(
        { fromBlock: fromBlock.toString(), toBlock: head.number.toString() },
        'authorization used on chain but its transaction was not found; will look again',
      )
      return { kind: 'unknown' }
    }
    if (event.kind === 'canceled') return { kind: 'canceled', transaction: event.transaction }
    const used = await chain.transaction(event.transaction)
    if (used.state !== 'mined') return { kind: 'unknown' }
    if (provesPayment(used.tx, expected)) return { kind: 'paid', tx: used.tx }
    return { kind: 'used_elsewhere', transaction: event.transaction }
  }
  // A transfer can only happen strictly before validBefore (chain time), so once B is at or
  // past it, nothing can ever pay this authorization.
  if (head.timestamp >= expected.validBefore) return { kind: 'expired' }
  return { kind: 'unused', head }
}

/**
 * Resolves one `settling` or `settle_pending` payment (stored with its preflight result) from
 * the chain, as its current owner: settled with a receipt when a mined transaction proves the
 * payment, failed for good when the chain says it can never pay (canceled, used elsewhere,
 * expired unused). Unused and still valid: a transaction we sent that the node still holds
 * is waited for; otherwise, with `resettle`, settlement is sent again through the facilitator
 * (the EIP-3009 nonce makes it once-only) and only a mined transaction that proves the
 * payment settles it. Whatever a facilitator claims, only the chain decides.
 */
export async function resolvePayment(
  deps: ResolveDeps,
  row: PaymentRecord,
  options: { resettle: boolean },
): Promise<Resolution> {
  const { ledger, chain } = deps
  const result = row.result
  if (!result) {
    // Cannot happen (`settling` is stored with the result) but never settle without an answer.
    deps.logger?.warn({ paymentId: row.id }, 'unresolved payment without a stored result')
    return 'stillPending'
  }
  const from = ['settling', 'settle_pending'] as const
  const expected = { ...expectedPayment(row), validBefore: row.validBefore }
  const settleFrom = async (tx: MinedTransaction): Promise<Resolution> => {
    const response: SettleResponse = {
      success: true,
      transaction: tx.hash,
      network: row.network as SettleResponse['network'],
      payer: row.payer,
      amount: row.amount.toString(),
    }
    const receipt = await issueReceipt(deps, { ...row, result }, tx.hash)
    const moved = await ledger.transition(row.id, from, {
      status: 'settled',
      settlementTx: tx.hash,
      settleResponse: response,
      receipt,
    })
    if (moved)
      deps.logger?.info({ paymentId: row.id, transaction: tx.hash }, 'settlement confirmed')
    return moved ? 'settled' : 'stillPending'
  }
  const fail = async (reason: PaymentReason, why: string, transaction?: Hex) => {
    const failure: PaymentFailure = {
      kind: 'payment_required',
      code: reason,
      message: `${PAYMENT_REASONS[reason]} (${why})`,
      final: true,
    }
    const moved = await ledger.transition(row.id, from, {
      status: 'failed',
      failure,
      ...(transaction ? { settlementTx: transaction } : {}),
    })
    if (moved) deps.logger?.warn({ paymentId: row.id, reason, transaction }, 'settlement failed')
    return moved ? ('failed' as const) : ('stillPending' as const)
  }

  const verdict = await readAuthorization(
    deps,
    expected,
    BigInt(result.block.number),
    row.settlementTx ?? undefined,
  )
  switch (verdict.kind) {
    case 'paid':
      return settleFrom(verdict.tx)
    case 'canceled':
      return fail('authorization_canceled', 'the payer canceled it on chain', verdict.transaction)
    case 'used_elsewhere':
      return fail(
        'authorization_used',
        'the nonce was spent by a transfer that did not pay payTo',
        verdict.transaction,
      )
    case 'expired':
      return fail('authorization_expired', 'it expired on chain without being used')
    case 'unknown':
      return 'stillPending'
    case 'unused':
      break
  }
  // Still spendable. A transaction we sent that the node still holds may yet be mined.
  const known = row.settlementTx ? await chain.transaction(row.settlementTx) : undefined
  if (known?.state === 'pending') return 'stillPending'
  if (known?.state === 'mined' && known.tx.blockNumber > verdict.head.number) return 'stillPending'
  // Our settlement ran on chain and reverted, the authorization untouched: the payer's
  // signature, funds or contract refused it for real. Never sent again (a payer contract can
  // make every run revert, each at our gas): the payment is final, and its payer is noted.
  if (known?.state === 'mined' && known.tx.status === 'failure') {
    return settlementReverted(deps, row, known.tx.hash, fail)
  }
  if (!options.resettle) return 'stillPending'
  // The built-in facilitator announces each settlement before sending it (the row names it);
  // a facilitator at a URL whose settle answer never came (marked when the row went
  // `settle_pending`) may still be settling: whichever facilitator this instance has, it is
  // asked again only once the payment has been quiet long enough for that to show.
  const quietMs = deps.remoteSettleQuietMs ?? DEFAULT_REMOTE_SETTLE_QUIET_MS
  const quietFor = nowMs(deps) - row.updatedAt.getTime()
  const unanswered =
    row.status === 'settle_pending' && row.failure?.message === REMOTE_SETTLE_UNANSWERED.message
  if (unanswered && quietFor < quietMs) {
    deps.logger?.info(
      { paymentId: row.id, quietForMs: quietFor, quietMs },
      'a facilitator at a URL may still be settling this payment; not asked again yet',
    )
    return 'stillPending'
  }
  // Announced from the settlement the row holds (one the node no longer knows): a second
  // resolution that read the same row cannot send too.
  const announce = announceSettlementTo(ledger, row.id, row.settlementTx)
  const outcome = await deps.rail.settle(row.payload, { announce })
  const transaction =
    outcome.status === 'settled' || outcome.status === 'unknown' ? outcome.transaction : undefined
  if (transaction) {
    const sent = await chain.transaction(transaction)
    if (sent.state === 'mined' && provesPayment(sent.tx, expected)) return settleFrom(sent.tx)
    // Sent again and reverted: final like any reverted settlement, never sent a third time.
    if (sent.state === 'mined' && sent.tx.status === 'failure') {
      return settlementReverted(deps, row, sent.tx.hash, fail)
    }
    // Only a transaction the node holds is remembered as ours to wait for; a hash the chain
    // does not know (or that paid nothing) is a facilitator's word, never recorded.
    if (sent.state === 'pending') {
      await ledger.transition(row.id, from, { status: 'settle_pending', settlementTx: transaction })
    } else {
      deps.logger?.warn(
        { paymentId: row.id, transaction, state: sent.state },
        'the facilitator named a settlement the chain does not show paying us',
      )
    }
  }
  deps.logger?.info(
    { paymentId: row.id, outcome: outcome.status, transaction },
    'settlement sent again; the chain decides',
  )
  return 'stillPending'
}

/**
 * A settlement of `row` reverted on chain: the revert is recorded against the payer, and the
 * payment fails for good with `settlement_failed`, saying what a simulation with real fees
 * makes of it now.
 */
async function settlementReverted(
  deps: ResolveDeps,
  row: PaymentRecord,
  transaction: Hex,
  fail: (reason: PaymentReason, why: string, transaction?: Hex) => Promise<Resolution>,
): Promise<Resolution> {
  await deps.ledger.recordSettlementRevert({ transaction, paymentId: row.id, payer: row.payer })
  const simulated = deps.simulateSettlement
    ? await deps.simulateSettlement(row.payload).catch(() => undefined)
    : undefined
  const now = !simulated
    ? 'it was not simulated again'
    : simulated.accepted
      ? "simulated again with real fees it passes, so the payer's contract behaves differently on chain than in a simulation"
      : `simulated again with real fees it fails too (${simulated.reason.slice(0, 200)})`
  deps.logger?.warn(
    { paymentId: row.id, payer: row.payer, transaction, simulatedAgain: simulated },
    'settlement reverted on chain; the payment is final and its payer refused for a while',
  )
  return fail(
    'settlement_failed',
    `settlement transaction ${transaction} reverted on chain and the authorization is still unused; ${now}; it is never sent again`,
    transaction,
  )
}

/** The payment a settlement of `row` must prove. */
export function expectedPayment(
  row: Pick<PaymentRecord, 'asset' | 'payer' | 'payTo' | 'amount' | 'nonce'>,
): ExpectedPayment {
  return {
    asset: row.asset,
    payer: row.payer,
    payTo: row.payTo,
    amount: row.amount,
    nonce: row.nonce,
  }
}
