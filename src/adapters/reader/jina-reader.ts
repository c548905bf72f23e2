import { z } from 'zod'
import type { PageReader, ReaderPage } from '../../domain/evidence/page-reader.js'
import { AppError, type ErrorCode } from '../../errors.js'
import { DEFAULT_REDACTOR, type Redactor } from '../../secrets.js'
import { splitUrlCredentials } from '../fetch/url-credentials.js'

/** How to reach a Jina-compatible reader (r.jina.ai or a self-hosted jina-ai/reader). */
export interface JinaReaderOptions {
  /**
   * e.g. `https://r.jina.ai`; the page is requested with `POST {baseUrl}/` (a query string is
   * kept; userinfo is sent as Basic authorization unless `apiKey` is set).
   */
  baseUrl: string
  apiKey?: string | undefined
  /** Bound on the whole exchange, headers and body. */
  timeoutMs: number
  /** Largest reply accepted; a bigger one is treated as reader trouble. Default 8 MiB. */
  maxReplyBytes?: number
  /**
   * Scrubs the reader's text quoted in errors (the configuration's secrets). Default:
   * `DEFAULT_REDACTOR` (no configured secret known; any URL's userinfo still removed).
   */
  redactor?: Redactor
}

const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024
const MAX_RETRY_AFTER_SECONDS = 3600
const MAX_QUOTED_CHARS = 300
const TARGET_ERROR = /Target URL returned error (\d{3})\s*:?\s*([^\n]*)/i

// Lenient on extra fields and nulls: the reply is untrusted, but only these fields are used.
const successReply = z.object({
  code: z.number().optional(),
  data: z.object({
    content: z.string(),
    title: z.string().nullish(),
    url: z.string().nullish(),
    warning: z.string().nullish(),
  }),
})
const errorReply = z.object({
  code: z.number().optional(),
  name: z.string().optional(),
  message: z.string().optional(),
  readableMessage: z.string().optional(),
})

/**
 * A `PageReader` speaking Jina Reader's JSON API: `POST {baseUrl}/` with `{url}` and
 * `Accept: application/json`, an optional bearer key, and a hard timeout. The reply is parsed
 * with a schema; every failure becomes an `AppError` with a stable code.
 */
export function createJinaReader(options: JinaReaderOptions): PageReader {
  const { url: base, authorization } = splitUrlCredentials(options.baseUrl)
  const endpointUrl = new URL(base)
  if (!endpointUrl.pathname.endsWith('/')) endpointUrl.pathname += '/'
  const endpoint = endpointUrl.href
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES
  const redactor = options.redactor ?? DEFAULT_REDACTOR
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Content-Type': 'application/json',
    // Ask the reader to give up on a slow target well before we give up on the reader, so a
    // slow page yields a partial answer (with a warning) rather than our timeout.
    'X-Timeout': String(Math.max(1, Math.floor((options.timeoutMs * 2) / 3 / 1000))),
  }
  if (authorization) headers.Authorization = authorization
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`
  const origin = new URL(endpoint).origin

  return {
    info: { name: 'jina', baseUrl: origin },
    async read(url, { signal } = {}) {
      const timeout = AbortSignal.timeout(options.timeoutMs)
      const combined = signal ? AbortSignal.any([timeout, signal]) : timeout
      let status: number
      let retryAfter: number | undefined
      let text: string
      try {
        // Redirects are refused: following one would turn the POST into a GET elsewhere.
        const response = await fetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify({ url }),
          signal: combined,
          redirect: 'error',
        })
        status = response.status
        retryAfter = parseRetryAfter(response.headers.get('retry-after'))
        text = await readCapped(response, maxReplyBytes)
      } catch (error) {
        if (error instanceof AppError) throw error
        throw transportFailure(error, options.timeoutMs, timeout.aborted)
      }
      const json = parseJson(text)
      if (status >= 200 && status < 300) {
        const reply = successReply.safeParse(json)
        if (reply.success && (reply.data.code === undefined || reply.data.code === 200)) {
          return toPage(reply.data.data, redactor)
        }
        // A 2xx carrying an error body: judge it by the code inside.
        const inner = errorReply.safeParse(json)
        if (inner.success && inner.data.code !== undefined && inner.data.code >= 300) {
          throw failureFor(inner.data.code, json, retryAfter, redactor)
        }
        throw unavailable(
          `the reader answered ${status} with an unexpected body: ${describe(text, redactor)}`,
          {
            retryAfter,
          },
        )
      }
      throw failureFor(status, json, retryAfter, redactor)
    },
  }
}

function toPage(data: z.infer<typeof successReply>['data'], redactor: Redactor): ReaderPage {
  const warning = data.warning ?? null
  const targetError = warning === null ? null : TARGET_ERROR.exec(warning)
  if (targetError) {
    const [, code, reason] = targetError
    throw new AppError(
      'target_error',
      `the target answered HTTP ${code}${reason ? ` (${quote(reason, redactor)})` : ''} when the reader fetched it; no evidence was produced`,
      { issues: [{ path: 'url', message: `target returned HTTP ${code}` }] },
    )
  }
  return {
    content: data.content,
    title: data.title ?? null,
    finalUrl: data.url ?? null,
    warning,
  }
}

/** Maps a reader error status to the service's codes (see `src/errors.ts` for the statuses). */
function failureFor(
  status: number,
  json: unknown,
  retryAfter: number | undefined,
  redactor: Redactor,
): AppError {
  const parsed = errorReply.safeParse(json)
  const said = parsed.success ? (parsed.data.readableMessage ?? parsed.data.message) : undefined
  const detail = said ? `: ${quote(said, redactor)}` : ''
  const target = (code: ErrorCode, what: string) =>
    new AppError(code, `${what} (reader status ${status})${detail}`, {
      issues: [{ path: 'url', message: what }],
    })
  switch (status) {
    case 429:
      return unavailable(`the reader is rate-limiting this service (429)${detail}`, { retryAfter })
    case 402:
      return unavailable(`the reader account is out of credits (402)${detail}`, { retryAfter })
    case 401:
    case 403:
      return unavailable(`the reader rejected this service's credentials (${status})${detail}`, {
        retryAfter,
      })
    case 451:
      return target(
        'reader_refused',
        'the reader refused to fetch this URL (non-public or blocked target)',
      )
    case 400:
      return target('reader_refused', 'the reader rejected this URL as invalid')
    case 413:
      return target('target_error', 'the target is too large for the reader')
    case 422:
      return target('target_unreachable', 'the reader could not load the target')
    default:
      return unavailable(`the reader answered ${status}${detail}`, { retryAfter })
  }
}

function unavailable(
  message: string,
  options: { retryAfter?: number | undefined; cause?: unknown },
) {
  return new AppError('reader_unavailable', message, {
    ...(options.retryAfter === undefined ? {} : { retryAfter: options.retryAfter }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  })
}

function transportFailure(error: unknown, timeoutMs: number, timedOut: boolean): AppError {
  if (timedOut)
    return unavailable(`the reader did not answer within ${timeoutMs} ms`, { cause: error })
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause
  const reason =
    typeof cause?.code === 'string'
      ? cause.code
      : error instanceof Error
        ? error.message
        : String(error)
  return unavailable(`the reader could not be reached (${reason})`, { cause: error })
}

/** Reads at most `maxBytes` of the body, refusing (not truncating) anything larger. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => unavailable(`the reader's reply exceeds ${maxBytes} bytes`, {})
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel()
    throw tooLarge()
  }
  if (response.body === null) return ''
  const chunks: Uint8Array[] = []
  let total = 0
  const stream = response.body.getReader()
  for (;;) {
    const { done, value } = await stream.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await stream.cancel()
      throw tooLarge()
    }
    chunks.push(value)
  }
  return new TextDecoder().decode(Buffer.concat(chunks, total))
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * `Retry-After` as whole seconds, from either delta-seconds or an HTTP date; undefined when absent
 * or unreadable. Capped at an hour so a hostile upstream cannot park clients indefinitely.
 */
export function parseRetryAfter(
  value: string | null,
  now: number = Date.now(),
): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  let seconds: number
  if (/^\d+$/.test(trimmed)) seconds = Number(trimmed)
  else {
    const at = Date.parse(trimmed)
    if (Number.isNaN(at)) return undefined
    seconds = Math.ceil((at - now) / 1000)
  }
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds))
}

/** Untrusted upstream text, made well-formed, single-line and short enough to quote. */
function quote(text: string, redactor: Redactor): string {
  // A reader's error page may echo the request (its URL, a key): redact before the cut.
  const line = redactor
    .redact(text)
    .replace(/\p{Surrogate}/gu, '\uFFFD')
    .replace(/\s+/g, ' ')
    .trim()
  const chars = Array.from(line)
  return chars.length > MAX_QUOTED_CHARS ? `${chars.slice(0, MAX_QUOTED_CHARS).join('')}…` : line
}

function describe(text: string, redactor: Redactor): string {
  return text.length === 0 ? '(empty)' : JSON.stringify(quote(text, redactor))
}
