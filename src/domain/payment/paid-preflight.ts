import type { SettleResponse } from '@x402/core/types'
import { type Hex, keccak256, stringToBytes } from 'viem'
import { AppError, type ErrorCode, statusForCode } from '../../errors.js'
import type { PreflightResult } from '../preflight/run-preflight.js'
import { canonicalJsonHash } from '../receipt/canonical-json.js'
import { newReceiptId, type Receipt, type ReceiptSigner, signReceipt } from '../receipt/receipt.js'
import type { TransactionInput } from '../screen/context.js'
import { type Authorization, decodePayment } from './decode-payment.js'
import type { InFlightTracker } from './in-flight.js'
import {
  IN_FLIGHT_STATUSES,
  type NewPayment,
  type PaymentFailure,
  type PaymentLedger,
  type PaymentRecord,
  type PaymentStatus,
} from './payment-ledger.js'
import type { PaymentRail, SettleOutcome } from './payment-rail.js'
import { PAYMENT_REASONS, type PaymentReason, reasonFromFacilitator } from './payment-reasons.js'

/** Structural logger (pino's shape) so the domain needs no logging library. */
export interface PaymentLogger {
  info(obj: Record<string, unknown>, msg: string): void
  warn(obj: Record<string, unknown>, msg: string): void
}

/** What the paid preflight needs; `main.ts` builds it, tests build it directly. */
export interface PaidPreflightDeps {
  rail: PaymentRail
  ledger: PaymentLedger
  receiptSigner: ReceiptSigner
  runPreflight: (tx: TransactionInput) => Promise<PreflightResult>
  /**
   * How long a copy of a payment waits for the request already working on it (ms, default
   * 10 s) before answering 503 `payment_in_progress` with Retry-After.
   */
  waitTimeoutMs?: number
  /** First poll interval of that wait (ms); it grows to 500 ms. */
  pollIntervalMs?: number
  now?: () => Date
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

/** Wall time of each phase of the call that did the work (ms); absent when skipped. */
export interface PhaseTimings {
  verifyMs?: number
  preflightMs?: number
  settleMs?: number
}

/** The answer: paid (200) or a payment problem (402). Other failures throw an AppError. */
export type PaidPreflightOutcome =
  | {
      kind: 'paid'
      result: PreflightResult
      receipt: Receipt
      settlement: SettleResponse
      /** True when this is the stored answer of an earlier (or concurrent) identical call. */
      replayed: boolean
      timings: PhaseTimings
    }
  | {
      kind: 'payment_required'
      reason: PaymentReason
      detail?: string
      facilitatorReason?: string
      /** The failed settlement, for the PAYMENT-RESPONSE header. */
      settlement?: SettleResponse
      timings: PhaseTimings
    }

const DEFAULT_WAIT_MS = 10_000
const DEFAULT_POLL_MS = 25
const MAX_POLL_MS = 500

/** Identity of an authorization: EIP-3009 nonces are unique per payer and token. */
export function paymentId(network: string, asset: string, auth: Authorization): Hex {
  const key = [network, asset, auth.payer, auth.nonce].map((s) => s.toLowerCase()).join('/')
  return keccak256(stringToBytes(key))
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
    const existing = claim.existing
    // A different payment under the same authorization nonce: never the stored answer.
    // (Rows written before migration 2 hashed the whole payload as received.)
    const samePayment =
      existing.payloadHash === payloadHash || existing.payloadHash === canonicalJsonHash(received)
    if (!samePayment) return required('authorization_used')
    // The chain decided this authorization can never pay (canceled, used elsewhere, expired).
    if (existing.status === 'failed' && existing.failure?.final) {
      return answerFrom(deps, existing, true, timings)
    }
    if (existing.requestHash !== requestHash) return required('payment_reused')
    const settled = await waitForAnswer(deps, id, existing)
    return answerFrom(deps, settled, true, timings)
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

/** The payment fields a receipt is made of. */
export type ReceiptSource = Pick<
  PaymentRecord,
  'requestHash' | 'payer' | 'payTo' | 'asset' | 'amount' | 'network'
> & { result: PreflightResult }

/** Signs the receipt for a settled payment whose preflight result is stored. */
export async function issueReceipt(
  deps: Pick<PaidPreflightDeps, 'receiptSigner' | 'now'>,
  record: ReceiptSource,
  settlementTx: Hex,
): Promise<Receipt> {
  const { result } = record
  const now = deps.now?.() ?? new Date()
  return signReceipt(deps.receiptSigner, {
    id: newReceiptId(),
    requestHash: record.requestHash,
    responseHash: canonicalJsonHash(result),
    verdict: result.verdict,
    chainId: BigInt(result.chainId).toString(),
    blockNumber: result.block.number,
    blockHash: result.block.hash,
    settlementTx,
    payer: record.payer,
    payTo: record.payTo,
    asset: record.asset,
    amount: record.amount.toString(),
    network: record.network,
    issuedAt: Math.floor(now.getTime() / 1000).toString(),
  })
}

/**
 * Polls the ledger (25 ms growing to 500 ms) until the payment leaves the in-flight states, or
 * the bounded wait runs out; then the record as it is (in flight: 503 `payment_in_progress`).
 */
async function waitForAnswer(
  deps: PaidPreflightDeps,
  id: string,
  first?: PaymentRecord,
): Promise<PaymentRecord> {
  const deadline = Date.now() + (deps.waitTimeoutMs ?? DEFAULT_WAIT_MS)
  let interval = deps.pollIntervalMs ?? DEFAULT_POLL_MS
  let record = first ?? (await deps.ledger.get(id))
  while (record && isInFlight(record.status) && Date.now() < deadline) {
    await sleep(Math.min(interval, Math.max(1, deadline - Date.now())))
    interval = Math.min(MAX_POLL_MS, interval * 1.5)
    record = await deps.ledger.get(id)
  }
  if (!record) throw new AppError('internal_error', 'payment vanished from the ledger')
  return record
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

/** The answer a stored payment gives to every copy of its request. */
async function answerFrom(
  deps: PaidPreflightDeps,
  record: PaymentRecord,
  replayed: boolean,
  timings: PhaseTimings,
): Promise<PaidPreflightOutcome> {
  switch (record.status) {
    case 'settled': {
      const receipt = record.receiptId ? await deps.ledger.getReceipt(record.receiptId) : undefined
      if (!record.result || !receipt || !record.settleResponse) {
        throw new AppError('internal_error', 'settled payment without a stored answer')
      }
      return {
        kind: 'paid',
        result: record.result,
        receipt,
        settlement: record.settleResponse,
        replayed,
        timings,
      }
    }
    case 'failed': {
      const failure = record.failure
      if (failure?.status === 402 && failure.code in PAYMENT_REASONS) {
        return {
          kind: 'payment_required',
          reason: failure.code as PaymentReason,
          ...(failure.facilitatorReason ? { facilitatorReason: failure.facilitatorReason } : {}),
          timings,
        }
      }
      throw new AppError(
        isErrorCode(failure?.code) ? failure.code : 'internal_error',
        failure?.message ?? 'the payment failed',
        { retryAfter: 5 },
      )
    }
    case 'settle_pending':
      throw pendingError(record.settlementTx ?? undefined)
    default:
      throw new AppError(
        'payment_in_progress',
        'another request is still working on this payment; retry with the same PAYMENT-SIGNATURE in a moment',
        { retryAfter: 2 },
      )
  }
}

function pendingError(transaction: Hex | undefined): AppError {
  return new AppError(
    'settlement_pending',
    `the settlement outcome is not known yet${transaction ? ` (transaction ${transaction})` : ''}; it is resolved from the chain: retry with the same PAYMENT-SIGNATURE to get the result and receipt (or the reason nothing was charged); you will never be charged twice`,
    { retryAfter: 5 },
  )
}

function isInFlight(status: PaymentStatus): boolean {
  return (IN_FLIGHT_STATUSES as readonly string[]).includes(status)
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

function isErrorCode(code: string | undefined): code is ErrorCode {
  if (code === undefined) return false
  try {
    return statusForCode(code as ErrorCode) !== undefined
  } catch {
    return false
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
