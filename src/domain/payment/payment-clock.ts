/**
 * The paid path's one clock: every judgment of time (a payment's validity window, an owner's
 * lease, a bounded wait's deadline) reads it. Tests inject a clock that runs (shifted, never
 * frozen: bounded waits end by it); the default is the wall clock.
 */
export interface PaymentClock {
  now?: () => Date
}

/** Milliseconds since the epoch on the paid path's clock. */
export function nowMs(clock: PaymentClock): number {
  return clock.now ? clock.now().getTime() : Date.now()
}
