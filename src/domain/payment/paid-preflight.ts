import type { SettleResponse } from '@x402/core/types'
import { type Hex, keccak256, stringToBytes } from 'viem'
import { AppError, type ErrorCode, statusForCode } from '../../errors.js'
import type { PreflightResult } from '../preflight/run-preflight.js'
import { canonicalJsonHash } from '../receipt/canonical-json.js'
import { newReceiptId, type Receipt, type ReceiptSigner, signReceipt } from '../receipt/receipt.js'
import type { TransactionInput } from '../screen/context.js'
import { type Authorization, decodePayment } from './decode-payment.js'
import {
  IN_FLIGHT_STATUSES,
  type PaymentFailure,
  type PaymentLedger,
  type PaymentRecord,
  type PaymentStatus,
} from './payment-ledger.js'
import type { PaymentRail } from './payment-rail.js'
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
  /** How long a copy of a payment waits for the request already working on it (ms). */
  waitTimeoutMs?: number
  pollIntervalMs?: number
  now?: () => Date
  /** Where settlements, pending ones and facilitator trouble are reported. */
  logger?: PaymentLogger
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

const DEFAULT_WAIT_MS = 90_000
const DEFAULT_POLL_MS = 25

/** Identity of an authorization: EIP-3009 nonces are unique per payer and token. */
export function paymentId(network: string, asset: string, auth: Authorization): Hex {
  const key = [network, asset, auth.payer, auth.nonce].map((s) => s.toLowerCase()).join('/')
  return keccak256(stringToBytes(key))
}

/**
 * The paid preflight: decode -> claim in the ledger -> verify -> preflight -> settle -> receipt.
 *
 * Exactly one request works on a payment (the ledger claim); copies wait for its answer and
 * return the same one, and a retry of a settled payment returns the stored result and receipt.
 * Nothing settles unless the preflight produced a result; a result is returned only once the
 * payment settled.
 */
export async function handlePaidPreflight(
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
  const decoded = decodePayment(request.paymentHeader, deps.rail.requirements)
  if (!decoded.ok) {
    return required(decoded.reason, decoded.detail ? { detail: decoded.detail } : {})
  }
  const { payload, authorization } = decoded.payment
  const { requirements } = deps.rail
  const id = paymentId(requirements.network, requirements.asset, authorization)
  const requestHash = canonicalJsonHash(request.body)
  const payloadHash = canonicalJsonHash(payload)

  const claim = await deps.ledger.claim({
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
  })
  if (!claim.claimed) {
    const existing = claim.existing
    // A different payment under the same authorization nonce: never the stored answer.
    if (existing.payloadHash !== payloadHash) return required('authorization_used')
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
  if (!verdict.valid) {
    const reason = reasonFromFacilitator(verdict.upstreamReason, 'verification_failed')
    await fail('verifying', {
      status: 402,
      code: reason,
      message: PAYMENT_REASONS[reason],
      facilitatorReason: verdict.upstreamReason,
    })
    return required(reason, { facilitatorReason: verdict.upstreamReason })
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
  // Two steps: `preflight_done` means nothing was sent yet; `settling` that it may have been.
  if (
    !(await deps.ledger.transition(id, ['verified'], { status: 'preflight_done', result })) ||
    !(await deps.ledger.transition(id, ['preflight_done'], { status: 'settling' }))
  ) {
    return answerFrom(deps, await waitForAnswer(deps, id), true, timings)
  }

  // Settle: only a settled payment earns the result and a receipt.
  started = performance.now()
  const settled = await deps.rail.settle(payload)
  timings.settleMs = performance.now() - started
  switch (settled.status) {
    case 'settled': {
      const record = await deps.ledger.get(id)
      if (!record) throw new AppError('internal_error', 'payment vanished from the ledger')
      const receipt = await issueReceipt(deps, { ...record, result }, settled.transaction)
      const stored = await deps.ledger.transition(id, ['settling', 'settle_pending'], {
        status: 'settled',
        settlementTx: settled.transaction,
        settleResponse: settled.response,
        receipt,
      })
      if (!stored) return answerFrom(deps, await waitForAnswer(deps, id), true, timings)
      deps.logger?.info(
        {
          paymentId: id,
          payer: authorization.payer,
          transaction: settled.transaction,
          receiptId: receipt.id,
        },
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
      const reason = reasonFromFacilitator(settled.upstreamReason, 'settlement_failed')
      await fail('settling', {
        status: 402,
        code: reason,
        message: PAYMENT_REASONS[reason],
        facilitatorReason: settled.upstreamReason,
      })
      return required(reason, {
        facilitatorReason: settled.upstreamReason,
        ...(settled.response ? { settlement: settled.response } : {}),
      })
    }
    case 'unreachable': {
      const appError = new AppError(
        'facilitator_unavailable',
        `the payment facilitator is unreachable; nothing was charged (${settled.message})`,
        { retryAfter: 5 },
      )
      await fail('settling', failureOf(appError))
      deps.logger?.warn(
        { paymentId: id, reason: settled.message },
        'facilitator unreachable at settle',
      )
      throw appError
    }
    case 'unknown': {
      deps.logger?.warn(
        { paymentId: id, transaction: settled.transaction, reason: settled.message },
        'settlement outcome unknown; recorded as pending for the reconciler',
      )
      await deps.ledger.transition(id, ['settling'], {
        status: 'settle_pending',
        ...(settled.transaction ? { settlementTx: settled.transaction } : {}),
      })
      throw pendingError(settled.transaction)
    }
  }
}

/** Signs the receipt for a settled payment whose preflight result is stored. */
export async function issueReceipt(
  deps: Pick<PaidPreflightDeps, 'receiptSigner' | 'now'>,
  record: PaymentRecord & { result: PreflightResult },
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

/** Polls the ledger until the payment leaves the in-flight states, or the wait runs out. */
async function waitForAnswer(
  deps: PaidPreflightDeps,
  id: string,
  first?: PaymentRecord,
): Promise<PaymentRecord> {
  const deadline = Date.now() + (deps.waitTimeoutMs ?? DEFAULT_WAIT_MS)
  let record = first ?? (await deps.ledger.get(id))
  while (record && isInFlight(record.status) && Date.now() < deadline) {
    await sleep(deps.pollIntervalMs ?? DEFAULT_POLL_MS)
    record = await deps.ledger.get(id)
  }
  if (!record) throw new AppError('internal_error', 'payment vanished from the ledger')
  return record
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
        'another request is still working on this payment; retry with the same PAYMENT-SIGNATURE',
        { retryAfter: 2 },
      )
  }
}

function pendingError(transaction: Hex | undefined): AppError {
  return new AppError(
    'settlement_pending',
    `settlement was sent but not confirmed yet${transaction ? ` (transaction ${transaction})` : ''}; it is resolved from the chain: retry with the same PAYMENT-SIGNATURE to get the result and receipt, you will not be charged twice`,
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
