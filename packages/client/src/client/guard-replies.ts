import { decodePaymentRequiredHeader } from '@x402/core/http'
import type { z } from 'zod'
import { GuardError } from './guard-error.js'
import {
  ErrorReplySchema,
  type PaymentRequiredOffer,
  PaymentRequiredSchema,
} from './guard-responses.js'

/** How the client reads the guard's HTTP answers, and names the failure when there is none. */

/**
 * Reads a JSON body and validates it against `schema`; a bad one is an `invalid_response`
 * GuardError. Returns the body exactly as received once it validates, not zod's copy: the
 * answer schemas transform nothing, and a field a newer guard adds is kept rather than
 * stripped, so a receipt's `responseHash` still matches the `result` handed back.
 */
export async function parseBody<T extends z.ZodType>(
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
  return json as z.output<T>
}

/** A non-2xx answer as a GuardError with the service's code, reason and `Retry-After`. */
export async function errorOf(res: Response): Promise<GuardError> {
  const text = await res.text().catch(() => '')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  const parsed = ErrorReplySchema.safeParse(json)
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

/** The offer in a `PAYMENT-REQUIRED` header; undefined when absent or undecodable. */
export function decodeOffer(header: string | null): PaymentRequiredOffer | undefined {
  if (!header) return undefined
  try {
    const parsed = PaymentRequiredSchema.safeParse(decodePaymentRequiredHeader(header))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** No answer from `url`: a `guard_unreachable` GuardError (with the payment, if one left). */
export function unreachable(url: string, error: unknown, paymentSignature?: string): GuardError {
  const timedOut = error instanceof Error && error.name === 'TimeoutError'
  return new GuardError(
    'guard_unreachable',
    `${timedOut ? 'no answer in time from' : 'cannot reach'} the guard at ${url}: ${errorMessage(error)}${paymentSignature ? ' (a payment was sent: retry with its paymentSignature)' : ''}`,
    { cause: error, paymentSignature },
  )
}

/** The first line of an error's message, with its cause's message when it has one. */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${error.message.split('\n')[0]}${cause}`
}

/** `Retry-After` in seconds: its delay, or the time until its HTTP date; undefined if neither. */
export function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined
  if (/^[0-9]+$/.test(header.trim())) return Number(header.trim())
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}
