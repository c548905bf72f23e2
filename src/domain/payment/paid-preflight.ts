import type { Hex } from 'viem'
import { AppError, type ErrorCode } from '../../errors.js'
import type { PreflightResult, TrackedHeadPreflight } from '../preflight/run-preflight.js'
import { canonicalJsonHash } from '../receipt/canonical-json.js'
import type { Receipt } from '../receipt/receipt.js'
import type { TransactionInput } from '../screen/context.js'
import { authorizationId } from './authorization-id.js'
import {
  type Authorization,
  decodePaymentShape,
  type Eip3009Payload,
  validityProblem,
} from './decode-payment.js'
import type { InFlightTracker } from './in-flight.js'
import { issueReceipt } from './issue-receipt.js'
import { settlementWithOfferReceipt } from './offer-receipt.js'
import { type OwnerLease, withLease } from './owner-lease.js'
import {
  type ErrorOutcome,
  errorOutcome,
  type OutcomeError,
  type PaidPreflightOutcome,
  type PaymentRequiredOutcome,
  type PhaseTimings,
} from './paid-preflight-outcome.js'
import { nowMs } from './payment-clock.js'
import {
  type IdentifiedCall,
  identifierConflict,
  readPaymentIdentifier,
} from './payment-identifier.js'
import type { NewPayment, PaymentFailure, PaymentStatus } from './payment-ledger.js'
import type { SettleOutcome, VerifyOutcome } from './payment-rail.js'
import { PAYMENT_REASONS, type PaymentReason, reasonFromFacilitator } from './payment-reasons.js'
import { recordPending, recordUnconfirmed } from './pending-settlement.js'
import { expectedPayment, readAuthorization, resolvePayment } from './resolve-payment.js'
import { announceSettlementTo } from './settlement-announcement.js'
import type { MinedTransaction } from './settlement-chain.js'
import { DEFAULT_SETTLEMENT_REVERT_COOLDOWN_MS } from './settlement-cost.js'
import { confirmSettlement } from './settlement-proof.js'
import { proveSignature } from './signature-proof.js'
import {
  answerCopy,
  answerFrom,
  isSamePayment,
  type PaymentCopy,
  type StoredAnswerDeps,
  waitForAnswer,
} from './stored-answer.js'
import { type TakeOverDeps, takeOverPayment } from './take-over-payment.js'

/** What the paid preflight needs; `main.ts` builds it, tests build it directly. */
export interface PaidPreflightDeps extends StoredAnswerDeps, TakeOverDeps {
  /**
   * The preflight, in one wave even when the chain moved during it: its answer at the tracked
   * head, with the answer at the new head on its way (`runPreflightAtTrackedHead`). The paid
   * call holds the first, settles meanwhile, and answers with the second.
   */
  runPreflight: (tx: TransactionInput) => Promise<TrackedHeadPreflight>
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
  /**
   * How long a payer whose settlement reverted on chain is refused (ms, default
   * {@link DEFAULT_SETTLEMENT_REVERT_COOLDOWN_MS}; 0: never refused). A reverted settlement
   * costs us its gas and a payer contract can make every one revert: after one, its payments
   * get 402 `payer_settlement_reverted` before anything is sent.
   */
  revertCooldownMs?: number
}

const DEFAULT_CONFIRM_TIMEOUT_MS = 5_000

/** One paid call: the validated body (hashed into the receipt), the transaction, the header. */
export interface PaidPreflightRequest {
  body: Readonly<Record<string, unknown>>
  tx: TransactionInput
  paymentHeader: string | undefined
  /**
   * The paid resource's absolute URL as the buyer reached it (`paidResource(baseUrl).url`):
   * the x402 offer-receipt's `resourceUrl`.
   */
  resourceUrl: string
  /**
   * Told once, as soon as this request's own verify accepted the payment (the HTTP layer gives
   * the client's rate-limit token back: a paid request counts against the client's bucket
   * only until its payment verified). Not told for a copy or a replay answered from the ledger.
   */
  onVerified?: () => void
}

/**
 * The paid preflight: decode -> prove the signature locally -> claim in the ledger -> verify
 * and preflight (together) -> settle -> confirm on chain -> receipt -> the answer, whose
 * settlement carries the x402 offer-receipt (every paid answer: the owner's, a copy's, a
 * replay's, a taken-over one's). A payment whose signature does not prove itself locally (a
 * contract payer, or a forgery) is verified first, before any ledger row or preflight: a
 * forgery costs one verify and nothing else.
 *
 * Exactly one request works on a payment (the ledger claim, held by a lease it renews while
 * it lives); copies wait a bounded time for its answer and return the same one, and a retry
 * of a settled payment returns the stored result and receipt, whatever the time. A retry of a
 * payment whose owner died takes it over and finishes it from the chain. Nothing settles
 * unless the preflight produced a result; a result and a receipt are returned only once the
 * chain shows the payment. Once settlement may have been sent (`settling`), every doubt is
 * recorded `settle_pending` and the chain decides.
 *
 * Every end is an outcome (see {@link PaidPreflightOutcome}). A port that fails under a step
 * (the ledger, the facilitator, the RPC: their typed `AppError`) ends the call here, as an
 * `unavailable` (or `failed`) outcome; anything else thrown is a bug.
 */
export async function handlePaidPreflight(
  deps: PaidPreflightDeps,
  request: PaidPreflightRequest,
): Promise<PaidPreflightOutcome> {
  const timings: PhaseTimings = {}
  // A call without a payment holds nothing (nothing to drain at shutdown): its 402 at once.
  if (!carriesPayment(request)) return paymentRequired(timings, 'payment_missing')
  const run = () =>
    paidPreflight(deps, request, timings).catch((error: unknown) => portFailed(error, timings))
  const outcome = await (deps.inFlight ? deps.inFlight.track(run) : run())
  if (outcome.kind !== 'paid') return outcome
  // Signed from the stored receipt's fields (deterministic EIP-712): a replay gets the same bytes.
  const settlement = await settlementWithOfferReceipt(
    deps.receiptSigner,
    outcome.settlement,
    outcome.receipt,
    request.resourceUrl,
  )
  return { ...outcome, settlement }
}

/**
 * The paid call's first steps: decode -> the payment-identifier check -> the time window (for
 * a payment we do not hold) -> the signature's local proof (a payment it does not prove is
 * verified before anything is claimed) -> claim, after which the owner runs
 * {@link ownPayment} and a copy waits for its answer.
 */
async function paidPreflight(
  deps: PaidPreflightDeps,
  request: PaidPreflightRequest,
  timings: PhaseTimings,
): Promise<PaidPreflightOutcome> {
  const decoded = decodeCall(deps, request, timings)
  if (decoded.outcome) return decoded.outcome
  const { call } = decoded
  const conflict = await checkIdentifier(call)
  if (conflict) return conflict
  const outside = await answerOutsideWindow(call)
  if (outside) return outside
  const planned = await planVerification(call)
  if (planned.outcome) return planned.outcome
  return claimOrWait(call, planned.verification, 3)
}

/**
 * The one record of a paid call: the request, the payment it claims, and what its copies are
 * matched by. The request that owns the payment holds it with its lease ({@link OwnedCall}).
 */
interface PaidCall {
  deps: PaidPreflightDeps
  request: PaidPreflightRequest
  timings: PhaseTimings
  authorization: Authorization
  /** The inner payload as signed (its signature is proven locally when it can be). */
  inner: Eip3009Payload
  payment: NewPayment
  copy: PaymentCopy
  /** The call's x402 payment-identifier, when it carries one. */
  identified: IdentifiedCall | undefined
}

/** A paid call whose request owns the payment, under the lease it renews while it works. */
type OwnedCall = PaidCall & { lease: OwnerLease }

/** A step either ends the call with its outcome or hands the next step what it needs. */
type Step<T> = { outcome: PaidPreflightOutcome } | ({ outcome?: undefined } & T)

/**
 * When the owner of a payment verifies it:
 * - `beside`: together with the preflight (their reads share one RPC wave): the signature
 *   proved itself locally, so only its key holder can have sent it;
 * - `first`: before the preflight starts: a signature only the chain can judge (a contract
 *   payer's) whose payment is already in the ledger (a retry or a copy);
 * - `done`: this request verified it before claiming (a contract payer's new payment).
 */
type Verification =
  | { kind: 'beside' }
  | { kind: 'first' }
  | { kind: 'done'; paidOnChain: MinedTransaction | undefined }

/**
 * Decode: the PAYMENT-SIGNATURE header as our offer's payment, without I/O. Ends in a 402 for a
 * missing or malformed payment, a `refused` outcome for a bad payment-identifier; otherwise
 * the payment to claim.
 */
function decodeCall(
  deps: PaidPreflightDeps,
  request: PaidPreflightRequest,
  timings: PhaseTimings,
): Step<{ call: PaidCall }> {
  if (!carriesPayment(request)) return { outcome: paymentRequired(timings, 'payment_missing') }
  const { requirements } = deps.rail
  const decoded = decodePaymentShape(request.paymentHeader, requirements)
  if (!decoded.ok) {
    const detail = decoded.detail ? { detail: decoded.detail } : {}
    return { outcome: paymentRequired(timings, decoded.reason, detail) }
  }
  const { payload, inner, received, authorization } = decoded.payment
  const id = authorizationId(requirements.network, requirements.asset, authorization)
  const requestHash = canonicalJsonHash(request.body)
  // The same payment is the same signed authorization, whatever else the header carried.
  const payloadHash = canonicalJsonHash(inner)
  const copy = { id, payloadHash, received, requestHash }
  const read = readPaymentIdentifier(received, deps.paymentIdentifierRequired ?? false)
  if (read.kind === 'refused') return { outcome: errorOutcome('refused', read.error, timings) }
  const { identifier } = read
  const identified = identifier
    ? { identifier, paymentId: id, payloadHash, requestHash }
    : undefined
  const payment: NewPayment = {
    id,
    network: requirements.network,
    asset: requirements.asset,
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
  return { call: { deps, request, timings, authorization, inner, payment, copy, identified } }
}

/**
 * x402 payment-identifier: an id names one payment of one request; the same id with another
 * payment or body is a 409 before anything is claimed, verified or charged.
 */
async function checkIdentifier(call: PaidCall): Promise<PaidPreflightOutcome | undefined> {
  const { deps, authorization, identified } = call
  if (!identified) return undefined
  const holder = await deps.ledger.findByIdentifier(authorization.payer, identified.identifier)
  const conflict = holder ? identifierConflict(holder, identified) : undefined
  return conflict ? errorOutcome('refused', conflict, call.timings) : undefined
}

/**
 * The time window is judged only for a payment we do not hold: a stored payment's retry gets
 * its stored answer (or its take-over) for as long as the ledger keeps it. The answer when the
 * window is closed; undefined when it is open.
 */
async function answerOutsideWindow(call: PaidCall): Promise<PaidPreflightOutcome | undefined> {
  const { deps, authorization, copy, timings } = call
  const now = nowMs(deps)
  const problem = validityProblem(authorization, deps.rail.requirements, Math.floor(now / 1000))
  if (!problem) return undefined
  const existing = await deps.ledger.get(copy.id)
  const held =
    existing &&
    isSamePayment(existing, copy) &&
    // Failed before anything could be charged, or abandoned before settling: a new attempt,
    // which this window can no longer pay for.
    !(existing.status === 'failed' && !existing.failure?.final) &&
    !(
      (existing.status === 'verifying' || existing.status === 'verified') &&
      existing.leaseUntil.getTime() <= now
    )
  if (!held) return paymentRequired(timings, problem.reason, { detail: problem.detail })
  return answerCopy(deps, existing, copy, timings, { takeOver: takeOverOf(deps) })
}

/** How a copy takes over a payment whose owner is gone (see `takeOverPayment`). */
function takeOverOf(deps: PaidPreflightDeps) {
  return (paymentId: string) => takeOverPayment(deps, paymentId)
}

/**
 * How the owner will verify the payment, decided without I/O where possible. A signature that
 * recovers to `authorization.from` is verified beside the preflight, as it always was. Any
 * other (a contract payer's, or a forgery) is never given a ledger row or a preflight before
 * verify accepted it: a payment the ledger already holds (a retry, a copy) is verified by its
 * owner before its preflight; a new one is verified here, first, and a refusal ends the call
 * with its 402 and nothing written.
 */
async function planVerification(call: PaidCall): Promise<Step<{ verification: Verification }>> {
  const { deps, authorization, inner, copy } = call
  const proof = await proveSignature(authorization, inner.signature, deps.rail.requirements)
  if (proof === 'signer') return { verification: { kind: 'beside' } }
  // Held already: the claim answers a copy or another payload under this nonce from the row,
  // and an owner claiming it again verifies before its preflight.
  if (await deps.ledger.get(copy.id)) return { verification: { kind: 'first' } }
  const judged = await judgePayment(deps, call.payment, call.timings)
  if (judged.kind === 'unavailable') return { outcome: judged.outcome }
  if (judged.kind === 'invalid') return { outcome: judged.outcome }
  call.request.onVerified?.()
  return { verification: { kind: 'done', paidOnChain: judged.paidOnChain } }
}

/**
 * Claim: the request that claims the payment owns it (under a lease); any other waits for the
 * owner's answer. A copy that finds the owner abandoned it before settling claims the payment
 * itself (`claimsLeft` times at most: the database clock may see the lease alive a moment
 * longer than ours).
 */
async function claimOrWait(
  call: PaidCall,
  verification: Verification,
  claimsLeft: number,
): Promise<PaidPreflightOutcome> {
  const { deps, payment, timings } = call
  const claim = await deps.ledger.claim(payment, deps.leaseMs)
  if (claim.claimed) {
    return withLease(deps, payment.id, (lease) => ownPayment({ ...call, lease }, verification))
  }
  // (A claim never meets another payment's identifier: ids bind at verify, see markVerified.)
  return answerCopy(deps, claim.existing, call.copy, timings, {
    takeOver: takeOverOf(deps),
    ...(claimsLeft > 0
      ? { claimAgain: () => claimOrWait(call, verification, claimsLeft - 1) }
      : {}),
  })
}

/**
 * The work of the request that owns a payment, step by step: verify (with the preflight
 * running beside it, for a signature proven locally; before it otherwise) -> hold the
 * preflight's result -> settle and confirm -> receipt.
 */
async function ownPayment(
  call: OwnedCall,
  verification: Verification,
): Promise<PaidPreflightOutcome> {
  // Verify and preflight run together: their chain reads share one wave. The facilitator
  // checks signature, amount, payTo, expiry, balance and nonce; the preflight's result is
  // used only once verify passed, and nothing settles unless the preflight produced one.
  // A payment whose signature only the chain can judge starts no preflight before verify.
  let preflight: PreflightRun | undefined =
    verification.kind === 'beside' ? startPreflight(call) : undefined
  const reverted = revertedRecently(call)
  const verified =
    verification.kind === 'done'
      ? await markVerified(call, verification.paidOnChain)
      : await verifyPayment(call)
  if (verified.outcome) return verified.outcome
  if (!verified.paidOnChain) {
    const refused = await refuseRevertedPayer(call, await reverted)
    if (refused) return refused
  }
  preflight ??= startPreflight(call)
  const held = await holdResult(call, preflight)
  if (held.outcome) return held.outcome
  const settled = await settleAndConfirm(call, verified.paidOnChain)
  if (settled.outcome) return settled.outcome
  return finishSettled(call, held.answer, settled.settle)
}

/** Records the payment failed; if the ledger is out, releases it once the ledger is back. */
async function failPayment(
  call: OwnedCall,
  from: PaymentStatus,
  failure: PaymentFailure,
): Promise<void> {
  const record = () =>
    call.deps.ledger.transition(call.payment.id, [from], { status: 'failed', failure })
  try {
    await record()
  } catch (error) {
    // Nothing was sent: once the ledger is back the failure is recorded and the payment
    // released, so a retry claims it again at once instead of waiting out the lease. (From
    // `settling` the caller records it pending instead: the chain decides.)
    if (from !== 'settling') call.lease.recordLater(record)
    throw error
  }
}

/**
 * Records the payment failed with `error` (nothing was sent) and ends the call with it: an
 * upstream of ours that could not answer.
 */
async function failWith(
  call: OwnedCall,
  from: PaymentStatus,
  error: AppError,
): Promise<ErrorOutcome> {
  await failPayment(call, from, failureOf(error))
  return errorOutcome(kindOf(error.code), error, call.timings)
}

/**
 * Whether the payer had a settlement revert on chain within the cooldown: read beside verify
 * (the ledger, no RPC), so it adds no wait. Never rejects: a ledger failure is its value.
 */
function revertedRecently(call: OwnedCall): Promise<{ reverts: number } | { error: unknown }> {
  const cooldownMs = call.deps.revertCooldownMs ?? DEFAULT_SETTLEMENT_REVERT_COOLDOWN_MS
  if (cooldownMs <= 0) return Promise.resolve({ reverts: 0 })
  return call.deps.ledger.settlementRevertsWithin(call.payment.payer, cooldownMs).then(
    (reverts) => ({ reverts }),
    (error: unknown) => ({ error }),
  )
}

/**
 * Refuses a verified payment whose payer's settlement reverted on chain within the cooldown,
 * before anything is sent (402 `payer_settlement_reverted`); undefined lets it settle.
 */
async function refuseRevertedPayer(
  call: OwnedCall,
  reverted: { reverts: number } | { error: unknown },
): Promise<PaidPreflightOutcome | undefined> {
  if ('error' in reverted) {
    return failWith(call, 'verified', asAppError(reverted.error, 'ledger_unavailable'))
  }
  if (reverted.reverts === 0) return undefined
  const detail = `${reverted.reverts} settlement(s) of payer ${call.payment.payer} reverted on chain in the last ${Math.round((call.deps.revertCooldownMs ?? DEFAULT_SETTLEMENT_REVERT_COOLDOWN_MS) / 60_000)} min`
  await failPayment(call, 'verified', {
    kind: 'payment_required',
    code: 'payer_settlement_reverted',
    message: `${PAYMENT_REASONS.payer_settlement_reverted} (${detail})`,
  })
  call.deps.logger?.warn(
    { paymentId: call.payment.id, payer: call.payment.payer },
    'payment refused: its payer had a settlement revert on chain recently',
  )
  return paymentRequired(call.timings, 'payer_settlement_reverted', { detail })
}

type PreflightRun = Promise<({ ok: true } & TrackedHeadPreflight) | { ok: false; error: unknown }>

/** Starts the preflight (never rejects: its failure is an outcome), timing it. */
function startPreflight(call: OwnedCall): PreflightRun {
  const started = performance.now()
  const run: PreflightRun = call.deps.runPreflight(call.request.tx).then(
    (ran) => ({ ok: true as const, ...ran }),
    (error: unknown) => ({ ok: false as const, error }),
  )
  run.then(() => {
    call.timings.preflightMs = performance.now() - started
  })
  return run
}

/** What verify said of a payment, judged the way every caller acts on it. */
type Judged =
  | { kind: 'valid'; paidOnChain: MinedTransaction | undefined }
  | { kind: 'invalid'; failure: PaymentFailure; outcome: PaidPreflightOutcome }
  /** Verify could not answer on healthy grounds (the facilitator or its RPC). */
  | { kind: 'unavailable'; error: AppError; outcome: PaidPreflightOutcome }

/**
 * The facilitator's verdict on a payment, or the chain's when it says the nonce is spent (a
 * transaction paying us with this very authorization is this call's payment). Writes nothing.
 * `unavailable`: `facilitator_unavailable` (or the rail's own code, `rpc_unavailable`).
 */
async function judgePayment(
  deps: PaidPreflightDeps,
  payment: NewPayment,
  timings: PhaseTimings,
): Promise<Judged> {
  const started = performance.now()
  let verdict: VerifyOutcome
  try {
    verdict = await deps.rail.verify(payment.payload)
  } catch (error) {
    const appError = asAppError(error, 'facilitator_unavailable')
    const outcome = errorOutcome(kindOf(appError.code), appError, timings)
    return { kind: 'unavailable', error: appError, outcome }
  } finally {
    timings.verifyMs = performance.now() - started
  }
  if (verdict.valid && verdict.payer.toLowerCase() !== payment.payer.toLowerCase()) {
    // The facilitator verified another payment than the one we keyed and would receipt.
    const detail = `the facilitator verified payer ${verdict.payer}, not authorization.from`
    return {
      kind: 'invalid',
      failure: {
        kind: 'payment_required',
        code: 'verification_failed',
        message: `${PAYMENT_REASONS.verification_failed} (${detail})`,
      },
      outcome: paymentRequired(timings, 'verification_failed', { detail }),
    }
  }
  if (verdict.valid) return { kind: 'valid', paidOnChain: undefined }
  const reason = reasonFromFacilitator(verdict.facilitatorReason, 'verification_failed')
  let spentElsewhere = false
  if (reason === 'authorization_used') {
    const onChain = await readAuthorization(
      deps,
      { ...expectedPayment(payment), validBefore: payment.validBefore },
      undefined,
    ).catch(() => undefined)
    if (onChain?.kind === 'paid') return { kind: 'valid', paidOnChain: onChain.tx }
    spentElsewhere = onChain?.kind === 'used_elsewhere'
  }
  const detail = verdict.message ? { detail: verdict.message } : {}
  return {
    kind: 'invalid',
    failure: {
      kind: 'payment_required',
      code: reason,
      message: PAYMENT_REASONS[reason],
      facilitatorReason: verdict.facilitatorReason,
      // The chain showed the nonce spent on a transfer not paying us: it can never pay.
      ...(spentElsewhere ? { final: true } : {}),
    },
    outcome: paymentRequired(timings, reason, {
      facilitatorReason: verdict.facilitatorReason,
      ...detail,
    }),
  }
}

/**
 * Step 1, verify (the owner of a claimed payment): {@link judgePayment}. Ends in a 402 for a
 * payment that is not valid (recorded failed); otherwise the payment is `verified`.
 */
async function verifyPayment(
  call: OwnedCall,
): Promise<Step<{ paidOnChain: MinedTransaction | undefined }>> {
  const judged = await judgePayment(call.deps, call.payment, call.timings)
  if (judged.kind === 'unavailable') {
    return { outcome: await failWith(call, 'verifying', judged.error) }
  }
  if (judged.kind === 'invalid') {
    await failPayment(call, 'verifying', judged.failure)
    return { outcome: judged.outcome }
  }
  call.request.onVerified?.()
  return markVerified(call, judged.paidOnChain)
}

/**
 * The payment verified: it becomes `verified` and its payment-identifier binds to the payer
 * now (a payment that never verified holds none). Another verified payment of this payer
 * holding the id first (a concurrent one): 409, and this payment fails before anything
 * was sent.
 */
async function markVerified(
  call: OwnedCall,
  paidOnChain: MinedTransaction | undefined,
): Promise<Step<{ paidOnChain: MinedTransaction | undefined }>> {
  const { deps, payment, timings, identified } = call
  const marked = await deps.ledger.markVerified(payment.id)
  if (marked === 'moved') return { outcome: await answerStored(call, true) }
  if (marked === 'identifier_taken') {
    const identifier = identified?.identifier ?? payment.identifier ?? ''
    const conflict: OutcomeError = {
      code: 'payment_identifier_conflict',
      message: `payment-identifier ${identifier} was already used with another payment: send a new identifier for a new call (nothing was charged for this request)`,
    }
    await failPayment(call, 'verifying', failureOf(conflict))
    const holder = await deps.ledger.findByIdentifier(payment.payer, identifier)
    const named = holder && identified ? identifierConflict(holder, identified) : undefined
    return { outcome: errorOutcome('refused', named ?? conflict, timings) }
  }
  return { paidOnChain }
}

/**
 * Step 2, hold the result: the preflight's result is stored with the payment as it turns
 * `settling` (from then on settlement may have been sent, and a reconciler that finds the
 * payment on chain can always issue the receipt). If the preflight could not run (RPC down),
 * nothing is settled and the payer may retry.
 *
 * `answer` is the result the call answers with: the held one, or, when the chain moved during
 * the preflight's wave, the preflight at the new head (its answer is stored over the held one
 * as soon as it is in, while settlement goes on; if it failed, the held one stands).
 */
async function holdResult(
  call: OwnedCall,
  preflight: PreflightRun,
): Promise<Step<{ answer: Promise<PreflightResult> }>> {
  const { deps, payment } = call
  const ran = await preflight
  if (!ran.ok) {
    await failPayment(call, 'verified', failureOf(asAppError(ran.error, 'internal_error')))
    // A preflight that failed other than with its typed error is a bug: it stays a throw.
    if (!(ran.error instanceof AppError)) throw ran.error
    return { outcome: errorOutcome(kindOf(ran.error.code), ran.error, call.timings) }
  }
  const result = ran.result
  if (!(await deps.ledger.transition(payment.id, ['verified'], { status: 'settling', result }))) {
    return { outcome: await answerStored(call, true) }
  }
  if (!ran.atMovedHead) return { answer: Promise.resolve(result) }
  const answer = ran.atMovedHead.then(async (moved) => {
    if (!moved) return result
    // Whoever finishes the payment (this call, a retry, the reconciler) answers the newer one.
    const update = { status: 'settling' as const, result: moved }
    await deps.ledger.transition(payment.id, ['settling'], update).catch(() => false)
    return moved
  })
  return { answer }
}

/**
 * The payment's answer as the ledger has it, once nobody works on it any more (this owner's
 * row moved on under it, or a resolution from the chain decided it).
 */
async function answerStored(call: OwnedCall, replayed: boolean): Promise<PaidPreflightOutcome> {
  const { deps, payment, timings } = call
  return answerFrom(deps, await waitForAnswer(deps, payment.id), replayed, timings)
}

/** Records the payment `settle_pending` (the chain decides); the answer is `pending`. */
function recordPendingOf(
  call: OwnedCall,
  transaction: Hex | undefined,
  why: string,
  cause?: unknown,
): Promise<PaidPreflightOutcome> {
  const { deps, payment, timings, lease } = call
  return recordPending(deps, payment.id, transaction, why, timings, lease, cause)
}

/**
 * Whatever the facilitator said, the chain may already know: a transaction using this
 * authorization that pays us settles the payment now (ours, or someone else's submission).
 */
async function resolveFromChain(call: OwnedCall, transaction: Hex | undefined) {
  const row = await call.deps.ledger.get(call.payment.id)
  if (!row) return 'stillPending' as const
  return resolvePayment(
    call.deps,
    { ...row, settlementTx: transaction ?? row.settlementTx },
    { resettle: false },
  )
}

/**
 * Step 3, settle and confirm: only a settled payment earns the result and a receipt, and only
 * a settlement the chain confirms counts as settled, whatever the facilitator claims.
 */
async function settleAndConfirm(
  call: OwnedCall,
  paidOnChain: MinedTransaction | undefined,
): Promise<Step<{ settle: SettleOutcome }>> {
  const { deps, payment, timings } = call
  const started = performance.now()
  let settled: SettleOutcome
  if (paidOnChain) {
    settled = {
      status: 'unknown',
      transaction: paidOnChain.hash,
      message: 'the authorization was already used on chain, paying payTo',
    }
  } else {
    try {
      // Its hash is in the ledger before it is sent: an owner that dies before recording the
      // answer leaves a transaction for whoever takes the payment over to wait for.
      const announce = announceSettlementTo(deps.ledger, payment.id, null)
      settled = await deps.rail.settle(payment.payload, { announce })
    } catch (error) {
      settled = {
        status: 'unknown',
        message: error instanceof Error ? error.message : String(error),
      }
    }
  }
  if (settled.status === 'settled') {
    const timeoutMs = deps.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS
    const expected = expectedPayment(payment)
    const confirmation = await confirmSettlement(deps, expected, settled.transaction, timeoutMs)
    if (confirmation.state === 'pending') {
      timings.settleMs = performance.now() - started
      const why = 'settlement transaction not mined yet'
      return { outcome: await recordPendingOf(call, settled.transaction, why) }
    }
    if (confirmation.state === 'unproven') {
      const resolution = await resolveFromChain(call, undefined).catch(
        () => 'stillPending' as const,
      )
      timings.settleMs = performance.now() - started
      if (resolution !== 'stillPending') return { outcome: await answerStored(call, false) }
      const unconfirmed = await recordUnconfirmed(deps, payment.id, settled.transaction, timings)
      return { outcome: unconfirmed }
    }
    settled = { ...settled, transaction: confirmation.tx.hash }
  }
  timings.settleMs = performance.now() - started
  return { settle: settled }
}

/**
 * Step 4, finish: a confirmed settlement gets its receipt and the result; a refusal (only
 * refusals that happen before anything is sent arrive here, see SettleOutcome) a 402; an
 * unknown or unreachable settle is read from the chain, else recorded pending.
 */
async function finishSettled(
  call: OwnedCall,
  answer: Promise<PreflightResult>,
  settled: SettleOutcome,
): Promise<PaidPreflightOutcome> {
  const { deps, payment, timings } = call
  const id = payment.id
  switch (settled.status) {
    case 'settled': {
      const result = await answer
      const transaction = settled.transaction
      let receipt: Receipt
      let stored: boolean
      try {
        receipt = await issueReceipt(deps, { ...payment, result }, transaction)
        stored = await deps.ledger.transition(id, ['settling'], {
          status: 'settled',
          result,
          settlementTx: transaction,
          settleResponse: settled.response,
          receipt,
        })
      } catch (error) {
        // Paid on chain but not recorded: never a 500 and never lost. The reconciler finds the
        // transaction and issues the receipt; a retry then gets it.
        const why = 'settled, but the receipt could not be stored'
        return recordPendingOf(call, transaction, why, error)
      }
      if (!stored) return answerStored(call, true)
      deps.logger?.info(
        { paymentId: id, payer: payment.payer, transaction, receiptId: receipt.id },
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
      const reason = reasonFromFacilitator(settled.facilitatorReason, 'settlement_failed')
      try {
        await failPayment(call, 'settling', {
          kind: 'payment_required',
          code: reason,
          message: PAYMENT_REASONS[reason],
          facilitatorReason: settled.facilitatorReason,
        })
      } catch (error) {
        const why = 'settlement refused, but the ledger could not record it'
        return recordPendingOf(call, undefined, why, error)
      }
      return paymentRequired(timings, reason, {
        facilitatorReason: settled.facilitatorReason,
        ...(settled.response ? { settlement: settled.response } : {}),
      })
    }
    case 'unreachable':
    case 'unknown': {
      const transaction = settled.status === 'unknown' ? settled.transaction : undefined
      const resolution = await resolveFromChain(call, transaction).catch((error: unknown) => {
        deps.logger?.warn({ err: error, paymentId: id }, 'cannot read the chain after settle')
        return 'stillPending' as const
      })
      if (resolution !== 'stillPending') return answerStored(call, false)
      return recordPendingOf(
        call,
        transaction,
        settled.status === 'unreachable'
          ? `facilitator unreachable at settle: ${settled.message}`
          : settled.message,
      )
    }
  }
}

/** Whether the call carries a PAYMENT-SIGNATURE at all (blank is none). */
function carriesPayment(
  request: PaidPreflightRequest,
): request is PaidPreflightRequest & { paymentHeader: string } {
  return request.paymentHeader !== undefined && request.paymentHeader.trim() !== ''
}

/** A 402 outcome carrying the call's timings. */
function paymentRequired(
  timings: PhaseTimings,
  reason: PaymentReason,
  extra: Omit<PaymentRequiredOutcome, 'kind' | 'reason' | 'timings'> = {},
): PaymentRequiredOutcome {
  return { kind: 'payment_required', reason, ...extra, timings }
}

/**
 * A port's failure under a step (its typed `AppError`: the ledger, the facilitator, the RPC)
 * as the call's outcome; anything else is a bug and stays a throw.
 */
function portFailed(error: unknown, timings: PhaseTimings): PaidPreflightOutcome {
  if (!(error instanceof AppError)) throw error
  return errorOutcome(kindOf(error.code), error, timings)
}

/** The outcome kind of an upstream's failure code. */
function kindOf(code: ErrorCode): 'unavailable' | 'failed' {
  return code === 'facilitator_unavailable' ||
    code === 'rpc_unavailable' ||
    code === 'ledger_unavailable'
    ? 'unavailable'
    : 'failed'
}

function asAppError(error: unknown, fallback: ErrorCode): AppError {
  if (error instanceof AppError) return error
  return new AppError(fallback, error instanceof Error ? error.message : String(error), {
    cause: error,
  })
}

function failureOf(error: Pick<OutcomeError, 'code' | 'message'>): PaymentFailure {
  return { kind: 'error', code: error.code, message: error.message }
}
