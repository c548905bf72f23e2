/**
 * The one base of every error this package throws, in viem's style: a one-line
 * `shortMessage` for people and logs, `details` (the innermost cause's message, or what the
 * thrower adds), and the standard `cause`. `message` is the short message, followed by the
 * details when they say something it does not. `instanceof PreSendGuardBaseError` catches
 * everything the client, the viem wrappers, the CLI and the MCP server raise.
 */
export class PreSendGuardBaseError extends Error {
  override name = 'PreSendGuardBaseError'
  /** One line: what went wrong. */
  readonly shortMessage: string
  /** The underlying reason (the cause's message), or '' when there is none. */
  readonly details: string

  constructor(shortMessage: string, options: { cause?: unknown; details?: string } = {}) {
    const details = options.details ?? detailsOf(options.cause)
    const message =
      details === '' || shortMessage.includes(details)
        ? shortMessage
        : `${shortMessage}\n\nDetails: ${details}`
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.shortMessage = shortMessage
    this.details = details
  }

  /**
   * The innermost error of the `cause` chain, or the first one `fn` accepts (as viem's
   * `BaseError.walk`).
   */
  walk(fn?: (error: unknown) => boolean): unknown {
    let current: unknown = this
    for (let depth = 0; depth < 32; depth++) {
      if (fn?.(current)) return current
      const next = current instanceof Error ? current.cause : undefined
      if (next === undefined || next === null) return fn ? null : current
      current = next
    }
    return fn ? null : current
  }
}

function detailsOf(cause: unknown): string {
  if (cause instanceof PreSendGuardBaseError) return cause.details || cause.shortMessage
  if (cause instanceof Error) return cause.message.split('\n')[0] ?? ''
  return ''
}
