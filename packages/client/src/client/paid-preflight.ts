import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Address } from 'viem'
import { isAddressText } from '../types/hex.js'
import { DEFAULT_NETWORK, networkById } from '../types/networks.js'
import { type ChallengeChecks, checkChallenge } from './check-challenge.js'
import { GuardError } from './guard-error.js'
import { decodeOffer, errorMessage, errorOf, parseBody, unreachable } from './guard-replies.js'
import type { Discovery } from './guard-responses.js'
import { PaidResponseSchema, type Settlement, SettlementSchema } from './guard-responses.js'
import type {
  GuardPayer,
  PaidPreflight,
  PaidPreflightOptions,
  TransactionRequest,
} from './guard-types.js'

/** CAIP-2 id of Base: the only network the buyer kit pays on. */
export const BASE_NETWORK = DEFAULT_NETWORK.id

/** What a paid call needs of the client that makes it. */
export interface PaidPreflightContext {
  baseUrl: string
  /** The raw `fetch` (x402 retries through it with the payment). */
  fetch: typeof globalThis.fetch
  timeoutMs: number
  maxPayment: bigint
  payer: GuardPayer | undefined
  discovery(): Promise<Discovery>
  /**
   * POSTs JSON to a path of the guard, bounded by `boundMs` (default `timeoutMs`); no answer is
   * `guard_unreachable`.
   */
  postJson(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
    boundMs?: number,
  ): Promise<Response>
  /**
   * Sends `attempt` (given the ms it may take) again while the guard sheds it (503
   * `overloaded`), as it asks, all within `timeoutMs` after `since`.
   */
  unlessShed(
    attempt: (boundMs: number) => Promise<Response>,
    opts?: { first?: Response; since?: number },
  ): Promise<Response>
}

/**
 * One paid preflight (x402 v2 through `@x402/fetch`), or the resumption of a payment whose
 * outcome was unknown. The 402 it pays is checked against discovery before anything is signed
 * ({@link checkChallenge}); every error raised after a payment left carries its signature.
 */
export async function paidPreflight(
  context: PaidPreflightContext,
  tx: TransactionRequest,
  opts: PaidPreflightOptions = {},
): Promise<PaidPreflight> {
  const { baseUrl, fetch: fetchFn, timeoutMs, maxPayment } = context
  const since = performance.now()
  const resumed = opts.paymentSignature
  if (resumed !== undefined) {
    const discovery = opts.discovery ?? (await context.discovery())
    const res = await afterPayment(resumed, () =>
      context.unlessShed(
        (boundMs) =>
          context.postJson(discovery.route, tx, { 'PAYMENT-SIGNATURE': resumed }, boundMs),
        { since },
      ),
    )
    return paidAnswer(res, tx, undefined, resumed)
  }
  const payer = context.payer
  if (!payer) throw new GuardError('payer_missing', 'paid preflight needs a payer')
  const discovery = opts.discovery ?? (await context.discovery())
  const url = `${baseUrl}${discovery.route}`

  // Record the 402 that x402 is about to pay, so the hook below judges exactly that one.
  let unpaid: { status: number; body: unknown; header: string | null } | undefined
  let sentSignature: string | undefined
  const recordingFetch = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    const signature = request.headers.get('PAYMENT-SIGNATURE')
    if (signature !== null) sentSignature = signature
    const res = await fetchFn(request)
    if (res.status === 402 && signature === null) {
      unpaid = {
        status: res.status,
        body: await res
          .clone()
          .json()
          .catch(() => undefined),
        header: res.headers.get('PAYMENT-REQUIRED'),
      }
    }
    return res
  }) as typeof globalThis.fetch

  let checks: ChallengeChecks | undefined
  const judge = (paymentRequired: unknown) =>
    checkChallenge(discovery, unpaid?.status ?? 0, unpaid?.body, paymentRequired, {
      requestUrl: url,
      maxPayment,
    })
  // Only typed-data signing reaches x402: whatever a 402 asks for (a Permit2 approval
  // extension, say), the kit can never sign a transaction for the server.
  const signer = {
    address: payer.account.address,
    signTypedData: (message: Parameters<GuardPayer['account']['signTypedData']>[0]) =>
      payer.account.signTypedData(message),
  }
  // The service's network, as its discovery names it (a challenge on another is refused by
  // checkChallenge); a network the kit does not know is paid as Base mainnet, i.e. not at all.
  const network = networkById(discovery.network)?.id ?? BASE_NETWORK
  const x402 = new x402Client()
    .register(network, new ExactEvmScheme(toClientEvmSigner(signer, payer.publicClient)))
    .onBeforePaymentCreation(async ({ paymentRequired }) => {
      checks = judge(paymentRequired)
      if (checks.ok) return
      const failed = checks.checks.filter((c) => !c.ok).map((c) => c.name)
      return { abort: true, reason: `challenge does not match discovery: ${failed.join(', ')}` }
    })

  let res: Response
  try {
    res = await wrapFetchWithPayment(recordingFetch, x402)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(tx),
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    if (sentSignature !== undefined) {
      // The payment left: its outcome is unknown, so the caller must retry with it.
      throw unreachable(url, error, sentSignature)
    }
    if (unpaid === undefined) throw unreachable(url, error)
    const final = checks ?? judge(decodeOffer(unpaid.header))
    if (!final.ok) {
      const failed = final.checks.filter((c) => !c.ok)
      throw new GuardError(
        'challenge_mismatch',
        `refused to pay: the 402 does not match discovery (${failed.map((c) => `${c.name}: ${c.detail}`).join('; ')})`,
        { status: unpaid.status, checks: final.checks, cause: error },
      )
    }
    throw new GuardError('payment_failed', `could not create the payment: ${errorMessage(error)}`, {
      cause: error,
    })
  }
  if (sentSignature === undefined) {
    // The guard answered without asking for payment: nothing was paid, nothing to trust.
    if (res.status !== 200) throw await errorOf(res)
    throw new GuardError('invalid_response', 'the paid route answered without a payment', {
      status: res.status,
    })
  }
  // Shed before the payment was looked at (nothing charged): the same payment, sent again.
  const signature = sentSignature
  res = await afterPayment(signature, () =>
    context.unlessShed(
      (boundMs) =>
        context.postJson(discovery.route, tx, { 'PAYMENT-SIGNATURE': signature }, boundMs),
      { first: res, since },
    ),
  )
  return paidAnswer(res, tx, checks, signature)
}

/** The answer to a request that carried a payment: every error keeps `paymentSignature`. */
async function paidAnswer(
  res: Response,
  tx: TransactionRequest,
  challenge: ChallengeChecks | undefined,
  paymentSignature: string,
): Promise<PaidPreflight> {
  return afterPayment(paymentSignature, async () => {
    if (res.status !== 200) throw await errorOf(res)
    const body = await parseBody(res, PaidResponseSchema, 'paid preflight answer')
    const header = res.headers.get('PAYMENT-RESPONSE')
    let settlement: Settlement
    try {
      settlement = SettlementSchema.parse(decodePaymentResponseHeader(header ?? ''))
    } catch (error) {
      throw new GuardError('invalid_response', 'the paid answer has no valid PAYMENT-RESPONSE', {
        status: res.status,
        cause: error,
      })
    }
    return {
      result: body.result,
      receipt: body.receipt,
      settlement,
      challenge,
      request: tx,
      paymentSignature,
      payer: payerOf(paymentSignature),
    }
  })
}

/**
 * Runs what follows a payment that left: any error it raises carries `paymentSignature`, so the
 * caller can resume with it instead of paying again.
 */
async function afterPayment<T>(paymentSignature: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    const guardError =
      error instanceof GuardError
        ? error
        : new GuardError('invalid_response', `after the payment: ${errorMessage(error)}`, {
            cause: error,
          })
    throw guardError.withPaymentSignature(paymentSignature)
  }
}

/** The `from` of the EIP-3009 authorization inside a `PAYMENT-SIGNATURE`, when readable. */
function payerOf(paymentSignature: string): Address | undefined {
  try {
    const payload = decodePaymentSignatureHeader(paymentSignature).payload as {
      authorization?: { from?: unknown }
    }
    const from = payload.authorization?.from
    return isAddressText(from) ? from : undefined
  } catch {
    return undefined
  }
}
