import type { Hex } from 'viem'
import { AppError, type ErrorCode } from '../../errors.js'
import type { PreflightResult } from '../preflight/run-preflight.js'
import { canonicalJsonHash } from '../receipt/canonical-json.js'
import type { Receipt } from '../receipt/receipt.js'
import type { TransactionInput } from '../screen/context.js'
import { decodePayment } from './decode-payment.js'
import type { InFlightTracker } from './in-flight.js'
import { type IssueReceiptDeps, issueReceipt } from './issue-receipt.js'
import type { PaidPreflightOutcome, PhaseTimings } from './paid-preflight-outcome.js'
import { paymentId } from './payment-id.js'
import type { NewPayment, PaymentFailure, PaymentStatus } from './payment-ledger.js'
import type { PaymentLogger } from './payment-logger.js'
import type { PaymentRail, SettleOutcome } from './payment-rail.js'
import { PAYMENT_REASONS, type PaymentReason, reasonFromFacilitator } from './payment-reasons.js'
import {
  answerCopy,
  answerFrom,
  pendingError,
  type StoredAnswerDeps,
  waitForAnswer,
} from './stored-answer.js'

/** What the paid preflight needs; `main.ts` builds it, tests build it directly. */
export interface PaidPreflightDeps extends StoredAnswerDeps, IssueReceiptDeps {
  rail: PaymentRail
  runPreflight: (tx: TransactionInput) => Promise<PreflightResult>
  /** Where settlements, pending ones and facilitator trouble are reported. */
  logger?: PaymentLogger
  /** Counts paid calls in progress, so shutdown waits for them before closing the ledger. */
  inFlight?: InFlightTracker
}

/** One paid call: the validated body (hashed into the receipt), the transaction, the header. */
export interface PaidPreflightRequest {
  body: Readonly<Record<string, unknown>>
  tx: TransactionInput
  paymentHeader: string | undefined
}

/**
 * The paid preflight: decode -> claim in the ledger -> verify -> preflight -> settle -> receipt.
 *
 * Exactly one request works on a payment (the ledger claim); copies wait a bounded time for
 * its answer and return the same one, and a retry of a settled payment returns the stored
 * result and receipt. Nothing settles unless the preflight produced a result; a result is
 * returned only once the payment settled. Once settlement may have been sent (`settling`),
 * every doubt is recorded `settle_pending` and the chain decides.
 */
export async function handlePaidPreflight(
  deps: PaidPreflightDeps,
  request: PaidPreflightRequest,
): Promise<PaidPreflightOutcome> {
  return deps.inFlight
    ? deps.inFlight.track(() => paidPreflight(deps, request))
    : paidPreflight(deps, request)
}

async function paidPreflight(
  deps: PaidPreflightDeps,
  request: PaidPreflightRequest,
): Promise<PaidPreflightOutcome> {
  const timings: PhaseTimings = {}
  const required = (
    reason: PaymentReason,
    extra: Omit<
      Extract<PaidPreflightOutcome, { kind: 'payment_required' }>,
      'kind' | 'reason' | 'timings'
    > = {},
  ): PaidPreflightOutcome => ({ kind: 'payment_required', reason, ...extra, timings })

  if (request.paymentHeader === undefined || request.paymentHeader.trim() === '') {
    return required('payment_missing')
  }
  const nowSeconds = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000)
  const decoded = decodePayment(request.paymentHeader, deps.rail.requirements, nowSeconds)
  if (!decoded.ok) {
    return required(decoded.reason, decoded.detail ? { detail: decoded.detail } : {})
  }
  const { payload, inner, received, authorization } = decoded.payment
  const { requirements } = deps.rail
  const id = paymentId(requirements.network, requirements.asset, authorization)
  const requestHash = canonicalJsonHash(request.body)
  // The same payment is the same signed authorization, whatever else the header carried.
  const payloadHash = canonicalJsonHash(inner)
  const payment: NewPayment = {
    id,
    network: requirements.network,
    asset: requirements.asset as Hex,
    payer: authorization.payer,
    nonce: authorization.nonce,
    payTo: authorization.to,
    amount: authorization.value,
    validBefore: authorization.validBefore,
    payloadHash,
    payload,
    requestHash,
  }

  const claim = await deps.ledger.claim(payment)
  if (!claim.claimed) {
    return answerCopy(deps, claim.existing, { id, payloadHash, received, requestHash }, timings)
  }

  const fail = async (from: PaymentStatus, failure: PaymentFailure) => {
    await deps.ledger.transition(id, [from], { status: 'failed', failure })
  }

  // Verify: the facilitator checks signature, amount, payTo, expiry, balance and nonce.
  let started = performance.now()
  let verdict: Awaited<ReturnType<PaymentRail['verify']>>
  try {
    verdict = await deps.rail.verify(payload)
  } catch (error) {
    const appError = asAppError(error, 'facilitator_unavailable')
    await fail('verifying', failureOf(appError))
    throw appError
  } finally {
    timings.verifyMs = performance.now() - started
  }
  if (verdict.valid && verdict.payer.toLowerCase() !== authorization.payer.toLowerCase()) {
    // The facilitator verified another payment than the one we keyed and would receipt.
    const detail = `the facilitator verified payer ${verdict.payer}, not authorization.from`
    await fail('verifying', {
      status: 402,
      code: 'verification_failed',
      message: `${PAYMENT_REASONS.verification_failed} (${detail})`,
    })
    return required('verification_failed', { detail })
  }
  if (!verdict.valid) {
    const reason = reasonFromFacilitator(verdict.upstreamReason, 'verification_failed')
    await fail('verifying', {
      status: 402,
      code: reason,
      message: PAYMENT_REASONS[reason],
      facilitatorReason: verdict.upstreamReason,
    })
    return required(reason, {
      facilitatorReason: verdict.upstreamReason,
      ...(verdict.message ? { detail: verdict.message } : {}),
    })
  }
  if (!(await deps.ledger.transition(id, ['verifying'], { status: 'verified' }))) {
    return answerFrom(deps, await waitForAnswer(deps, id), true, timings)
  }

  // Preflight: if it cannot run (RPC down), nothing is settled and the payer may retry.
  started = performance.now()
  let result: PreflightResult
  try {
    result = await deps.runPreflight(request.tx)
  } catch (error) {
    const appError = asAppError(error, 'internal_error')
    await fail('verified', failureOf(appError))
    throw error
  } finally {
    timings.preflightMs = performance.now() - started
  }
  // From `settling` on, settlement may have been sent; the result is stored with it, so a
  // reconciler that finds the payment on chain can always issue the receipt.
  if (!(await deps.ledger.transition(id, ['verified'], { status: 'settling', result }))) {
    return answerFrom(deps, await waitForAnswer(deps, id), true, timings)
  }

  // Settle: only a settled payment earns the result and a receipt.
  started = performance.now()
  let settled: SettleOutcome
  try {
    settled = await deps.rail.settle(payload)
  } catch (error) {
    settled = { status: 'unknown', message: error instanceof Error ? error.message : String(error) }
  }
  timings.settleMs = performance.now() - started
  const pending = (transaction: Hex | undefined, why: string, err?: unknown) =>
    recordPending(deps, id, transaction, why, err)

  switch (settled.status) {
    case 'settled': {
      const transaction = settled.transaction
      let receipt: Receipt
      let stored: boolean
      try {
        receipt = await issueReceipt(deps, { ...payment, result }, transaction)
        stored = await deps.ledger.transition(id, ['settling'], {
          status: 'settled',
          settlementTx: transaction,
          settleResponse: settled.response,
          receipt,
        })
      } catch (error) {
        // Paid on chain but not recorded: never a 500 and never lost. The reconciler finds the
        // transaction and issues the receipt; a retry then gets it.
        return pending(transaction, 'settled, but the receipt could not be stored', error)
      }
      if (!stored) return answerFrom(deps, await waitForAnswer(deps, id), true, timings)
      deps.logger?.info(
        { paymentId: id, payer: authorization.payer, transaction, receiptId: receipt.id },
        'payment settled',
      )
      return {
        kind: 'paid',
        result,
        receipt,
        settlement: settled.response,
        replayed: false,
        timings,
      }
    }
    case 'failed': {
      // Only refusals that happen before anything is sent arrive here (see SettleOutcome).
      const reason = reasonFromFacilitator(settled.upstreamReason, 'settlement_failed')
      try {
        await fail('settling', {
          status: 402,
          code: reason,
          message: PAYMENT_REASONS[reason],
          facilitatorReason: settled.upstreamReason,
        })
      } catch (error) {
        return pending(undefined, 'settlement refused, but the ledger could not record it', error)
      }
      return required(reason, {
        facilitatorReason: settled.upstreamReason,
        ...(settled.response ? { settlement: settled.response } : {}),
      })
    }
    case 'unreachable':
      return pending(undefined, `facilitator unreachable at settle: ${settled.message}`)
    case 'unknown':
      return pending(settled.transaction, settled.message)
  }
}

/**
 * Records an unknown settle outcome as `settle_pending` (with the transaction when known) and
 * answers 503 `settlement_pending`. If even that write fails, the payment stays `settling`
 * and the reconciler takes it over once stale: the answer is the same.
 */
async function recordPending(
  deps: PaidPreflightDeps,
  id: string,
  transaction: Hex | undefined,
  why: string,
  cause?: unknown,
): Promise<never> {
  deps.logger?.warn(
    { paymentId: id, transaction, reason: why, ...(cause ? { err: cause } : {}) },
    'settlement outcome unknown; recorded as pending for the reconciler',
  )
  try {
    await deps.ledger.transition(id, ['settling'], {
      status: 'settle_pending',
      ...(transaction ? { settlementTx: transaction } : {}),
    })
  } catch (error) {
    deps.logger?.warn(
      { paymentId: id, transaction, err: error },
      'cannot record the pending settlement; the reconciler takes the payment over when stale',
    )
  }
  throw pendingError(transaction)
}

function asAppError(error: unknown, fallback: ErrorCode): AppError {
  if (error instanceof AppError) return error
  return new AppError(fallback, error instanceof Error ? error.message : String(error), {
    cause: error,
  })
}

function failureOf(error: AppError): PaymentFailure {
  return { status: error.status, code: error.code, message: error.message }
}
