import type { Context, ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { Logger } from 'pino'
import type { ZodError } from 'zod'
import { AppError, type ErrorBody, type ErrorCode, type ErrorIssue } from '../errors.js'
import type { Redactor } from '../secrets.js'
import { statusForCode } from './error-status.js'

/**
 * What an error answer is made of: an {@link AppError}, or the same fields as plain data where
 * the app answers an expected refusal itself (a 404, a failed validation) and no stack is
 * wanted (capturing one was a tenth of a 404's CPU, bench/service.ts).
 */
export type Failure = Pick<AppError, 'code' | 'message' | 'issues' | 'retryAfter'>

/** The service's one error renderer: every error body the app answers passes through it. */
export interface ErrorRenderer {
  /**
   * Renders an AppError as the service's one error body, with `Retry-After` where it applies.
   * Its text (which may quote an upstream: an RPC, the facilitator, the reader, the ledger) is
   * scrubbed of the configured secrets here.
   */
  response(c: Context, error: Failure): Response
  /** The `defaultHook` for every zod-openapi route: a failed validation is a 422 with issues. */
  validationHook(
    result: { success: true } | { success: false; error: ZodError },
    c: Context,
  ): Response | undefined
  /** Maps anything thrown to a response: AppErrors by code; nothing unexpected leaks its message. */
  onError(logger: Logger): ErrorHandler
  /** 404 in the same body shape. */
  notFound: NotFoundHandler
}

/**
 * The error renderer scrubbing with `redactor`: the configuration's, which `createApp` is given
 * (or `DEFAULT_REDACTOR`, which still removes any URL's userinfo).
 */
export function createErrorRenderer(redactor: Redactor): ErrorRenderer {
  const response = (c: Context, error: Failure): Response => {
    const body: ErrorBody = {
      error: error.code,
      message: redactor.redact(error.message),
      issues: error.issues.map((issue) => ({ ...issue, message: redactor.redact(issue.message) })),
      requestId: c.get('requestId'),
    }
    if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter))
    return c.json(body, statusForCode(error.code))
  }
  return {
    response,
    validationHook(result, c) {
      if (result.success) return undefined
      const issues = zodIssues(result.error)
      const summary = issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')
      return response(c, {
        code: 'invalid_request',
        message: `invalid request: ${summary}`,
        issues,
        retryAfter: undefined,
      })
    },
    onError: (logger) => (error, c) => {
      if (error instanceof AppError) {
        if (statusForCode(error.code) >= 500)
          logger.warn({ err: error, requestId: c.get('requestId') }, error.message)
        return response(c, error)
      }
      if (error instanceof HTTPException) {
        return response(
          c,
          new AppError(codeForHttpException(error.status), error.message || 'bad request'),
        )
      }
      logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error')
      return response(c, new AppError('internal_error', 'internal error'))
    },
    notFound: (c) =>
      response(c, {
        code: 'not_found',
        message: `no route for ${c.req.method} ${c.req.path}`,
        issues: [],
        retryAfter: undefined,
      }),
  }
}

/** Zod issues as `{path, message}` with dotted paths (`items.0.to`). */
export function zodIssues(error: ZodError): ErrorIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }))
}

/** Hono's own HTTP exceptions, in our codes; a 5xx from a library is still our bug. */
function codeForHttpException(status: number): ErrorCode {
  if (status >= 500) return 'internal_error'
  switch (status) {
    case 404:
      return 'not_found'
    case 413:
      return 'body_too_large'
    case 415:
      return 'unsupported_content_type'
    default:
      return 'invalid_request'
  }
}
