import { format } from 'node:util'
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino'
import { DEFAULT_REDACTOR, type Redactor } from './secrets.js'

/** Options for {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Human-readable lines (pino-pretty). Default: when stdout is a terminal. */
  pretty?: boolean
  /** Where JSON lines go instead of stdout (tests). */
  destination?: DestinationStream
  /**
   * What scrubs every line: the configuration's (`main.ts` passes it). Default:
   * `DEFAULT_REDACTOR` (no configured secret known; any URL's userinfo still removed).
   */
  redactor?: Redactor
}

/**
 * The service's structured logger: JSON lines on stdout, or pino-pretty's readable lines when
 * stdout is a terminal.
 *
 * Invariant: every line is scrubbed of every configured secret (see `secrets.ts`) as the last
 * step before it is written, after serialisation, so `err` with its message, stack and cause
 * chain, viem's embedded request URL and body, and any field of any call are all covered,
 * whoever logs what.
 */
export function createLogger(level: string, options: CreateLoggerOptions = {}): Logger {
  const redactor = options.redactor ?? DEFAULT_REDACTOR
  const settings: LoggerOptions = {
    level,
    base: { service: 'pre-send-guard' },
    hooks: { streamWrite: (line) => redactor.redact(line) },
  }
  if (options.destination) return pino(settings, options.destination)
  if (options.pretty ?? process.stdout.isTTY === true) {
    // pino-pretty reads the already-scrubbed JSON lines (the hook runs before the transport).
    return pino(
      settings,
      pino.transport({
        target: 'pino-pretty',
        options: {
          colorize: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname,service',
        },
      }),
    )
  }
  return pino(settings)
}

const CONSOLE_LEVELS = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  log: 'info',
  warn: 'warn',
  error: 'error',
} as const

/**
 * Sends `console.*` through `logger`: libraries print there (`@x402/core` warns with
 * facilitator errors, which may quote its URL), and those lines must be scrubbed and stay JSON
 * like every other. An Error argument is logged as `err` (stack and causes). Returns a
 * function that puts the console back.
 */
export function routeConsoleToLogger(logger: Logger): () => void {
  const original = { ...console }
  for (const [method, level] of Object.entries(CONSOLE_LEVELS)) {
    ;(console as unknown as Record<string, (...args: unknown[]) => void>)[method] = (
      ...args: unknown[]
    ) => {
      const err = args.find((arg) => arg instanceof Error)
      logger[level]({ source: 'console', ...(err ? { err } : {}) }, format(...args))
    }
  }
  return () => Object.assign(console, original)
}

/**
 * Start-up's second step, before anything can log or fail: a logger at `level` that scrubs every
 * line with `redactor` (the configuration's secrets, see `secrets.ts`); console output and
 * crashes go through it.
 */
export function startLogging(level: string, redactor: Redactor): Logger {
  const logger = createLogger(level, { redactor })
  routeConsoleToLogger(logger)
  const crash = (what: string) => (error: unknown) => {
    logger.fatal({ err: error }, what)
    process.exit(1)
  }
  // Node would print these to stderr itself, stack and all, past the logger's redaction.
  process.on('uncaughtException', crash('uncaught exception; stopping'))
  process.on('unhandledRejection', crash('unhandled promise rejection; stopping'))
  return logger
}
