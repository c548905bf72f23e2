import { x402Client } from '@x402/core/client'
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
} from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Address, Hex, LocalAccount } from 'viem'
import type { z } from 'zod'
import { type ChallengeChecks, checkChallenge, DEFAULT_MAX_PAYMENT } from './check-challenge.js'
import { GuardError } from './guard-error.js'
import {
  type Discovery,
  DiscoverySchema,
  ErrorBodySchema,
  type PageEvidence,
  PageEvidenceSchema,
  PaidResponseSchema,
  type PaymentRequiredOffer,
  PaymentRequiredSchema,
  type PreflightResult,
  PreflightResultSchema,
  type Receipt,
  ReceiptSchema,
  type Settlement,
  SettlementSchema,
} from './guard-responses.js'
import { type ReceiptBinding, type ReceiptVerification, verifyReceipt } from './verify-receipt.js'

/** Where the guard serves discovery, the free routes and the paid route (spec 4). */
export const DISCOVERY_PATH = '/.well-known/x402'
export const READ_ONLY_PREFLIGHT_PATH = '/payanagent/v1/base-transaction-preflight'
export const EVIDENCE_PATH = '/payanagent/v1/public-page-evidence'
/** The paid route; discovery's `route` is used whenever discovery is at hand. */
export const PAID_PREFLIGHT_PATH = '/simulate/transaction-preflight'
/** CAIP-2 id of Base: the only network the buyer kit pays on. */
export const BASE_NETWORK = 'eip155:8453'

/** A transaction to check (spec 2.1): the same body for the read-only and the paid route. */
export interface TransactionRequest {
  chainId?: '0x2105'
  from: Address
  to: Address
  /** Calldata; `0x` for none. */
  data: Hex
  /** Wei, hex (`0x0`). */
  value?: Hex
}

/**
 * Who pays for paid preflights: a viem account. Only its `address` and `signTypedData` reach the
 * x402 client (an EIP-3009 authorization is typed data), so the kit can never sign a transaction
 * for the server.
 */
export interface GuardPayer {
  account: Pick<LocalAccount, 'address' | 'signTypedData'>
  /** Optional chain reads for the x402 EVM scheme; plain EIP-3009 USDC payments need none. */
  publicClient?: Parameters<typeof toClientEvmSigner>[1]
}

/** Options of {@link createGuardClient}. */
export interface GuardClientOptions {
  /** The guard's origin, e.g. `http://127.0.0.1:8402`. */
  baseUrl: string
  /** Defaults to the global `fetch`. */
  fetch?: typeof globalThis.fetch
  /** Needed only for {@link GuardClient.paidPreflight}. */
  payer?: GuardPayer
  /** Bound on each call, the paid call's two requests included. Default 30 s. */
  timeoutMs?: number
  /** Most one paid call may cost, in USDC atomic units. Default 10000 ($0.01). */
  maxPayment?: bigint
}

/** The unpaid answer of the paid route, as received. */
export interface UnpaidChallenge {
  url: string
  status: number
  body: unknown
  /** The decoded `PAYMENT-REQUIRED` header; undefined when absent or undecodable. */
  paymentRequired: PaymentRequiredOffer | undefined
}

/** Options of {@link GuardClient.paidPreflight}. */
export interface PaidPreflightOptions {
  /** Discovery to check the challenge against; fetched when omitted. */
  discovery?: Discovery
  /**
   * Retry a payment whose outcome was unknown (`GuardError.paymentSignature`): sends it again
   * instead of a new payment, and gets the stored answer once settled.
   */
  paymentSignature?: string
}

/** A paid preflight: the result, its signed receipt and the settlement that paid for it. */
export interface PaidPreflight {
  result: PreflightResult
  receipt: Receipt
  settlement: Settlement
  /** The checks the challenge passed before anything was signed (absent on a resumed call). */
  challenge: ChallengeChecks | undefined
  /** The request body sent (its canonical JSON hash is the receipt's `requestHash`). */
  request: TransactionRequest
  /** The `PAYMENT-SIGNATURE` sent. */
  paymentSignature: string
  /** Who signed that payment (its EIP-3009 authorization's `from`), when it can be read. */
  payer: Address | undefined
}

/** A typed client of one Pre-Send Guard. */
export interface GuardClient {
  readonly baseUrl: string
  /** `GET /.well-known/x402`. */
  discovery(): Promise<Discovery>
  /** The free read-only preflight: verdict, findings, call, gas, fees. */
  preflight(tx: TransactionRequest): Promise<PreflightResult>
  /** POSTs to the paid route without payment and returns the 402 as received (no wallet). */
  unpaidChallenge(
    tx: TransactionRequest,
    options?: { discovery?: Discovery },
  ): Promise<UnpaidChallenge>
  /**
   * One paid preflight with `payer`. The 402 it pays is checked against discovery first
   * ({@link checkChallenge}); on any failed check nothing is signed and a `challenge_mismatch`
   * GuardError carries the checks.
   */
  paidPreflight(tx: TransactionRequest, options?: PaidPreflightOptions): Promise<PaidPreflight>
  /** `GET /receipts/{id}`. */
  receipt(id: string): Promise<Receipt>
  /** Verifies a receipt against discovery's signer ({@link verifyReceipt}). */
  verifyReceipt(
    receipt: unknown,
    discovery: Discovery,
    binding?: ReceiptBinding,
  ): Promise<ReceiptVerification>
  /** Public-page evidence: one URL as bounded, hashed markdown. */
  evidence(url: string, maxChars?: number): Promise<PageEvidence>
}

/**
 * Creates a client of the guard at `baseUrl`. Replies are validated; failures are GuardErrors
 * with the service's `error` code.
 *
 * @example
 * const guard = createGuardClient({ baseUrl: 'http://127.0.0.1:8402' })
 * const { verdict, findings } = await guard.preflight({ from, to, data: '0x', value: '0x0' })
 */
export function createGuardClient(options: GuardClientOptions): GuardClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const fetchFn = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 30_000
  const maxPayment = options.maxPayment ?? DEFAULT_MAX_PAYMENT

  async function send(url: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetchFn(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
    } catch (error) {
      throw unreachable(url, error)
    }
  }

  const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    send(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })

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

  const client: GuardClient = {
    baseUrl,

    async discovery() {
      const res = await send(`${baseUrl}${DISCOVERY_PATH}`)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, DiscoverySchema, 'discovery document')
    },

    async preflight(tx) {
      const res = await postJson(READ_ONLY_PREFLIGHT_PATH, tx)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, PreflightResultSchema, 'preflight answer')
    },

    async unpaidChallenge(tx, opts = {}) {
      const route = opts.discovery?.route ?? PAID_PREFLIGHT_PATH
      const url = `${baseUrl}${route}`
      const res = await postJson(route, tx)
      // A malformed body or a broken guard is the buyer's to fix, not a challenge to judge.
      if (res.status === 422 || res.status >= 500) throw await errorOf(res)
      return {
        url,
        status: res.status,
        body: await res.json().catch(() => undefined),
        paymentRequired: decodeOffer(res.headers.get('PAYMENT-REQUIRED')),
      }
    },

    async paidPreflight(tx, opts = {}) {
      const resumed = opts.paymentSignature
      if (resumed !== undefined) {
        const discovery = opts.discovery ?? (await client.discovery())
        const res = await afterPayment(resumed, () =>
          postJson(discovery.route, tx, { 'PAYMENT-SIGNATURE': resumed }),
        )
        return paidAnswer(res, tx, undefined, resumed)
      }
      const payer = options.payer
      if (!payer) throw new GuardError('payer_missing', 'paid preflight needs a payer')
      const discovery = opts.discovery ?? (await client.discovery())
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
      const x402 = new x402Client()
        .register(BASE_NETWORK, new ExactEvmScheme(toClientEvmSigner(signer, payer.publicClient)))
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
        throw new GuardError('payment_failed', `could not create the payment: ${message(error)}`, {
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
      return paidAnswer(res, tx, checks, sentSignature)
    },

    async receipt(id) {
      const res = await send(`${baseUrl}/receipts/${encodeURIComponent(id)}`)
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, ReceiptSchema, 'receipt')
    },

    verifyReceipt(receipt, discovery, binding) {
      return verifyReceipt(receipt, discovery, binding)
    },

    async evidence(url, maxChars) {
      const res = await postJson(EVIDENCE_PATH, {
        url,
        ...(maxChars === undefined ? {} : { max_chars: maxChars }),
      })
      if (!res.ok) throw await errorOf(res)
      return parseBody(res, PageEvidenceSchema, 'page evidence')
    },
  }
  return client
}

/** Reads a JSON body and validates it; a bad one is an `invalid_response` GuardError. */
async function parseBody<T extends z.ZodType>(
  res: Response,
  schema: T,
  what: string,
): Promise<z.infer<T>> {
  let json: unknown
  try {
    json = await res.json()
  } catch (error) {
    throw new GuardError('invalid_response', `the ${what} is not JSON`, {
      status: res.status,
      cause: error,
    })
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({
      path: i.path.map(String).join('.'),
      message: i.message,
    }))
    throw new GuardError(
      'invalid_response',
      `the ${what} is not usable: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`,
      { status: res.status, issues },
    )
  }
  return parsed.data
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
        : new GuardError('invalid_response', `after the payment: ${message(error)}`, {
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
    return typeof from === 'string' && /^0x[0-9a-fA-F]{40}$/.test(from)
      ? (from as Address)
      : undefined
  } catch {
    return undefined
  }
}

/** A non-2xx answer as a GuardError with the service's code, reason and `Retry-After`. */
async function errorOf(res: Response): Promise<GuardError> {
  const text = await res.text().catch(() => '')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  const parsed = ErrorBodySchema.safeParse(json)
  const retryAfter = retryAfterSeconds(res.headers.get('Retry-After'))
  if (!parsed.success) {
    return new GuardError(`http_${res.status}`, `the guard answered ${res.status}`, {
      status: res.status,
      retryAfter,
    })
  }
  const body = parsed.data
  return new GuardError(body.error, body.message, {
    status: res.status,
    retryAfter,
    issues: body.issues?.map((i) => ({ path: i.path, message: i.message })) ?? [],
    requestId: body.requestId,
    reason: body.reason,
  })
}

function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined
  if (/^[0-9]+$/.test(header.trim())) return Number(header.trim())
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

function decodeOffer(header: string | null): PaymentRequiredOffer | undefined {
  if (!header) return undefined
  try {
    const parsed = PaymentRequiredSchema.safeParse(decodePaymentRequiredHeader(header))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

function unreachable(url: string, error: unknown, paymentSignature?: string): GuardError {
  const timedOut = error instanceof Error && error.name === 'TimeoutError'
  return new GuardError(
    'guard_unreachable',
    `${timedOut ? 'no answer in time from' : 'cannot reach'} the guard at ${url}: ${message(error)}${paymentSignature ? ' (a payment was sent: retry with its paymentSignature)' : ''}`,
    { cause: error, paymentSignature },
  )
}

function message(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${error.message.split('\n')[0]}${cause}`
}
