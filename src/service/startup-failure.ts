import type { Logger } from 'pino'

/**
 * Says why start-up failed the way an operator reads it: one fatal line naming what failed and
 * why (the error's own words, one line), with a `hint` of what to do; the stack only at
 * `LOG_LEVEL=debug` (or `trace`), as a debug line after it. A start-up failure is an operating
 * condition (a taken port, a wrong URL, a database refusing), not a bug in the service: twenty
 * lines of stack would bury the one line that matters.
 *
 * @example
 * logStartupFailure(logger, 'cannot listen', error, 'set PORT to a free one', { port: 8402 })
 */
export function logStartupFailure(
  logger: Logger,
  what: string,
  error: unknown,
  hint: string,
  fields: Record<string, unknown> = {},
): void {
  // The reason rides in the message itself: one line a person reads, then the hint.
  logger.fatal({ ...fields, hint }, `${what}: ${oneLineReason(error)}`)
  logger.debug({ err: error }, `${what}: the error in full (LOG_LEVEL=debug)`)
}

/** An error's own words on one line: viem's `shortMessage` (its `message` runs to many lines), else the first line of `message`. */
export function oneLineReason(error: unknown): string {
  if (error instanceof Error) {
    const short = (error as { shortMessage?: unknown }).shortMessage
    const text = typeof short === 'string' && short !== '' ? short : error.message
    return text.split('\n')[0]?.trim() || error.name
  }
  return String(error).split('\n')[0] ?? 'unknown error'
}

/** Whether start-up failures print their stacks: only when the operator asked for debug output. */
export function wantsStacks(logLevel: string | undefined): boolean {
  return logLevel === 'debug' || logLevel === 'trace'
}
