/** Structural logger (pino's shape) so the domain needs no logging library. */
export interface PaymentLogger {
  info(obj: Record<string, unknown>, msg: string): void
  warn(obj: Record<string, unknown>, msg: string): void
}
