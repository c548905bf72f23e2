import type { GuardClient, PaidPreflight, TransactionRequest } from '../client/guard-client.js'
import { GuardError } from '../client/guard-error.js'
import type { Discovery } from '../client/guard-responses.js'
import type { GuardCheck } from './guard-checks.js'
import { createPendingPayments } from './pending-payments.js'

/**
 * Paid mode's check of one transaction: a paid preflight against discovery (fetched once, again
 * after a failure), resuming any payment whose outcome was unknown instead of paying again, and
 * a receipt that must verify against discovery and a settlement that must report success.
 */
export function createPaidGuardCheck(
  guard: GuardClient,
): (transaction: TransactionRequest) => Promise<GuardCheck> {
  let discovery: Promise<Discovery> | undefined
  const pending = createPendingPayments()

  return async (transaction) => {
    discovery ??= guard.discovery().catch((error: unknown) => {
      discovery = undefined
      throw error
    })
    const published = await discovery
    const resume = pending.get(transaction)
    // A resumed payment must be sent with the very body it paid for.
    const body = resume?.request ?? transaction
    let paid: PaidPreflight
    try {
      paid = await guard.paidPreflight(body, {
        discovery: published,
        ...(resume ? { paymentSignature: resume.paymentSignature } : {}),
      })
    } catch (error) {
      pending.failed(transaction, body, error)
      throw error
    }
    pending.answered(transaction)
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
      mode: 'paid',
      transaction: body,
      verdict: result.verdict,
      findings: result.findings,
      result,
      paid: { receipt, settlement, verification },
    }
  }
}
