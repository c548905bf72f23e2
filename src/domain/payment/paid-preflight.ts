import type { Hex } from 'viem'
import { AppError, type ErrorCode } from '../../errors.js'
import type { PreflightResult } from '../preflight/run-preflight.js'
import { canonicalJsonHash } from '../receipt/canonical-json.js'
import type { Receipt } from '../receipt/receipt.js'
import type { TransactionInput } from '../screen/context.js'
import { authorizationId } from './authorization-id.js'
import { decodePaymentShape, validityProblem } from './decode-payment.js'
import type { InFlightTracker } from './in-flight.js'
import { issueReceipt } from './issue-receipt.js'
import type { PaidPreflightOutcome, PhaseTimings } from './paid-preflight-outcome.js'
import { assertSameIdentifiedCall, readPaymentIdentifier } from './payment-identifier.js'
import type { NewPayment, PaymentFailure, PaymentStatus } from './payment-ledger.js'
import type { SettleOutcome, VerifyOutcome } from './payment-rail.js'
import { PAYMENT_REASONS, type PaymentReason, reasonFromFacilitator } from './payment-reasons.js'
import {
  confirmSettlement,
  type OwnerLease,
  type RecoveryDeps,
  recoverPayment,
  withLease,
} from './payment-recovery.js'
import { facilitatorLied, recordPending } from './pending-settlement.js'
import { expectedPayment, readAuthorization, resolvePayment } from './resolve-payment.js'
import type { MinedTransaction } from './settlement-proof.js'
import {
  answerCopy,
  answerFrom,
  isSamePayment,
  type StoredAnswerDeps,
  waitForAnswer,
} from './stored-answer.js'

/** What the paid preflight needs; `main.ts` builds it, tests build it directly. */
export interface PaidPreflightDeps extends Omit<StoredAnswerDeps, 'recover'>, RecoveryDeps {
  runPreflight: (tx: TransactionInput) => Promise<PreflightResult>
  /** Counts paid calls in progress, so shutdown waits for them before closing the ledger. */
  inFlight?: InFlightTracker
  /**
   * How long a settlement transaction the facilitator reported is waited for on chain before
   * the answer is `settlement_pending` (ms, default 5 s). It is read at once: a facilitator
   * that answers after the receipt (the built-in one) costs one read.
   */
  confirmTimeoutMs?: number
  /**
   * Every payment must carry an x402 payment-identifier id (400 `payment_identifier_required`
   * without one). Default false: the extension is declared, optional.
   */
  paymentIdentifierRequired?: boolean
}

const DEFAULT_CONFIRM_TIMEOUT_MS = 5_000

/** One paid call: the validated body (hashed into the receipt), the transaction, the header. */
export interface PaidPreflightRequest {
  body: Readonly<Record<string, unknown>>
  tx: TransactionInput
  paymentHeader: string | undefined
}

/**
 * The paid preflight: decode -> claim in the ledger -> verify and preflight (together) ->
 * settle -> confirm on chain -> receipt.
 *
 * Exactly one request works on a payment (the ledger claim, held by a lease it renews while
 * it lives); copies wait a bounded time for its answer and return the same one, and a retry
 * of a settled payment returns the stored result and receipt, whatever the time. A retry of a
 * payment whose owner died takes it over and finishes it from the chain. Nothing settles
 * unless the preflight produced a result; a result and a receipt are returned only once the
 * chain shows the payment. Once settlement may have been sent (`settling`), every doubt is
 * recorded `settle_pending` and the chain decides.
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
  const required = requiredIn(timings)

  if (request.paymentHeader === undefined || request.paymentHeader.trim() === '') {
    return required('payment_missing')
  }
  const { requirements } = deps.rail
  const decoded = decodePaymentShape(request.paymentHeader, requirements)
  if (!decoded.ok) {
    return required(decoded.reason, decoded.detail ? { detail: decoded.detail } : {})
  }
  const { payload, inner, received, authorization } = decoded.payment
  const id = authorizationId(requirements.network, requirements.asset, authorization)
  const requestHash = canonicalJsonHash(request.body)
  // The same payment is the same signed authorization, whatever else the header carried.
  const payloadHash = canonicalJsonHash(inner)
  const copy = { id, payloadHash, received, requestHash }
  // x402 payment-identifier: an id names one payment of one request; the same id with another
  // payment or body is a 409 before anything is claimed, verified or charged.
  const identifier = readPaymentIdentifier(received, deps.paymentIdentifierRequired ?? false)
  const identified = identifier
    ? { identifier, paymentId: id, payloadHash, requestHash }
    : undefined
  if (identified) {
    const holder = await deps.ledger.findByIdentifier(authorization.payer, identified.identifier)
    if (holder) assertSameIdentifiedCall(holder, identified)
  }
  const stored = { ...deps, recover: (paymentId: string) => recoverPayment(deps, paymentId) }
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
    ...(identifier ? { identifier } : {}),
  }

  // The time window is judged only for a payment we do not hold: a stored payment's retry
  // gets its stored answer (or its recovery) for as long as the ledger keeps it.
  const nowSeconds = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000)
  const problem = validityProblem(authorization, requirements, nowSeconds)
  if (problem) {
    const existing = await deps.ledger.get(id)
    const held =
      existing &&
      isSamePayment(existing, copy) &&
      // Failed before anything could be charged, or abandoned before settling: a new attempt,
      // which this window can no longer pay for.
      !(existing.status === 'failed' && !existing.failure?.final) &&
      !(
        (existing.status === 'verifying' || existing.status === 'verified') &&
        existing.leaseUntil.getTime() <= Date.now()
      )
    if (!held) return required(problem.reason, { detail: problem.detail })
    return answerCopy(stored, existing, copy, timings)
  }

  // A copy that finds the owner died before settling claims the payment itself (a bounded
  // number of times: the database clock may see the lease alive a moment longer than ours).
  const claimOrWait = async (takeOvers: number): Promise<PaidPreflightOutcome> => {
    const claim = await deps.ledger.claim(payment, deps.leaseMs)
    if (claim.claimed)
      return withLease(deps, id, (lease) => ownPayment(deps, request, payment, timings, lease))
    // A concurrent payment claimed this identifier first (the ledger keeps one per payer).
    if (identified && claim.existing.id !== id) assertSameIdentifiedCall(claim.existing, identified)
    const takeOver = takeOvers > 0 ? () => claimOrWait(takeOvers - 1) : undefined
    return answerCopy(stored, claim.existing, copy, timings, takeOver)
  }
  return claimOrWait(3)
}

/** The work of the request that owns a payment: verify with preflight, settle, confirm, receipt. */
async function ownPayment(
  deps: PaidPreflightDeps,
  request: PaidPreflightRequest,
  payment: NewPayment,
  timings: PhaseTimings,
  lease: OwnerLease,
): Promise<PaidPreflightOutcome> {
  const required = requiredIn(timings)
  const { id, payload } = payment
  const authorization = { payer: payment.payer }
  const expected = expectedPayment(payment)
  const fail = async (from: PaymentStatus, failure: PaymentFailure) => {
    const record = () => deps.ledger.transition(id, [from], { status: 'failed', failure })
    try {
      await record()
    } catch (error) {
      // Nothing was sent: once the ledger is back the failure is recorded and the payment
      // released, so a retry claims it again at once instead of waiting out the lease. (From
      // `settling` the caller records it pending instead: the chain decides.)
      if (from !== 'settling') lease.recordLater(record)
      throw error
    }
  }

  // Verify and preflight run together: their chain reads share one wave. The facilitator
  // checks signature, amount, payTo, expiry, balance and nonce; the preflight's result is
  // used only once verify passed, and nothing settles unless the preflight produced one.
  const started = performance.now()
  const preflight = deps.runPreflight(request.tx).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  )
  preflight.then(() => {
    timings.preflightMs = performance.now() - started
  })
  let verdict: VerifyOutcome
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
      kind: 'payment_required',
      code: 'verification_failed',
      message: `${PAYMENT_REASONS.verification_failed} (${detail})`,
    })
    return required('verification_failed', { detail })
  }
  // The nonce is spent: by a transaction paying us with this very authorization (someone
  // submitted it before us), that transaction is this call's payment.
  let paidOnChain: MinedTransaction | undefined
  let spentElsewhere = false
  if (
    !verdict.valid &&
    reasonFromFacilitator(verdict.upstreamReason, 'verification_failed') === 'authorization_used'
  ) {
    const onChain = await readAuthorization(
      deps,
      { ...expected, validBefore: payment.validBefore },
      undefined,
    ).catch(() => undefined)
    if (onChain?.kind === 'paid') paidOnChain = onChain.tx
    spentElsewhere = onChain?.kind === 'used_elsewhere'
  }
  if (!verdict.valid && !paidOnChain) {
    const reason = reasonFromFacilitator(verdict.upstreamReason, 'verification_failed')
    await fail('verifying', {
      kind: 'payment_required',
      code: reason,
      message: PAYMENT_REASONS[reason],
      facilitatorReason: verdict.upstreamReason,
      // The chain showed the nonce spent on a transfer not paying us: it can never pay.
      ...(spentElsewhere ? { final: true } : {}),
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
  const ran = await preflight
  if (!ran.ok) {
    const appError = asAppError(ran.error, 'internal_error')
    await fail('verified', failureOf(appError))
    throw ran.error
  }
  const result = ran.result
  // From `settling` on, settlement may have been sent; the result is stored with it, so a
  // reconciler that finds the payment on chain can always issue the receipt.
  if (!(await deps.ledger.transition(id, ['verified'], { status: 'settling', result }))) {
    return answerFrom(deps, await waitForAnswer(deps, id), true, timings)
  }

  // Settle: only a settled payment earns the result and a receipt.
  const settleStarted = performance.now()
  let settled: SettleOutcome
  if (paidOnChain) {
    settled = {
      status: 'unknown',
      transaction: paidOnChain.hash,
      message: 'the authorization was already used on chain, paying payTo',
    }
  } else {
    try {
      settled = await deps.rail.settle(payload)
    } catch (error) {
      settled = {
        status: 'unknown',
        message: error instanceof Error ? error.message : String(error),
      }
    }
  }
  const pending = (transaction: Hex | undefined, why: string, err?: unknown) =>
    recordPending(deps, id, transaction, why, err, lease)
  // Whatever the facilitator said, the chain may already know: a transaction using this
  // authorization that pays us settles the payment now (ours, or someone else's submission).
  const fromChain = async (transaction: Hex | undefined) => {
    const row = await deps.ledger.get(id)
    if (!row) return 'stillPending' as const
    return resolvePayment(
      deps,
      { ...row, settlementTx: transaction ?? row.settlementTx },
      { resettle: false },
    )
  }
  const answerStored = async () => answerFrom(deps, await waitForAnswer(deps, id), false, timings)

  if (settled.status === 'settled') {
    // Receipts only for settlements the chain confirms, whatever the facilitator claims.
    const confirmation = await confirmSettlement(
      deps,
      expected,
      settled.transaction,
      deps.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS,
    )
    if (confirmation.state === 'pending') {
      timings.settleMs = performance.now() - settleStarted
      return pending(settled.transaction, 'settlement transaction not mined yet')
    }
    if (confirmation.state === 'unproven') {
      const resolution = await fromChain(undefined).catch(() => 'stillPending' as const)
      timings.settleMs = performance.now() - settleStarted
      if (resolution !== 'stillPending') return answerStored()
      return facilitatorLied(deps, id, settled.transaction)
    }
    settled = { ...settled, transaction: confirmation.tx.hash }
  }
  timings.settleMs = performance.now() - settleStarted

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
          kind: 'payment_required',
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
    case 'unknown': {
      const transaction = settled.status === 'unknown' ? settled.transaction : undefined
      const resolution = await fromChain(transaction).catch((error: unknown) => {
        deps.logger?.warn({ err: error, paymentId: id }, 'cannot read the chain after settle')
        return 'stillPending' as const
      })
      if (resolution !== 'stillPending') return answerStored()
      return pending(
        transaction,
        settled.status === 'unreachable'
          ? `facilitator unreachable at settle: ${settled.message}`
          : settled.message,
      )
    }
  }
}

/** A 402 outcome carrying the call's timings. */
function requiredIn(timings: PhaseTimings) {
  return (
    reason: PaymentReason,
    extra: Omit<
      Extract<PaidPreflightOutcome, { kind: 'payment_required' }>,
      'kind' | 'reason' | 'timings'
    > = {},
  ): PaidPreflightOutcome => ({ kind: 'payment_required', reason, ...extra, timings })
}

function asAppError(error: unknown, fallback: ErrorCode): AppError {
  if (error instanceof AppError) return error
  return new AppError(fallback, error instanceof Error ? error.message : String(error), {
    cause: error,
  })
}

function failureOf(error: AppError): PaymentFailure {
  return { kind: 'error', code: error.code, message: error.message }
}
