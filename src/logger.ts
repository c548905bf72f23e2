import { type Logger, pino } from 'pino'

/** The service's structured logger (JSON lines on stdout). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'pre-send-guard' } })
}
