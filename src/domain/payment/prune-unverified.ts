import type { PaymentLedger } from './payment-ledger.js'
import type { PaymentLogger } from './payment-logger.js'

/**
 * How long past its authorization's `validBefore` a failed payment that never verified is
 * kept (s). Its rows are worth nothing once expired: a retry is refused for its window before
 * the ledger is asked. The margin only covers clocks (ours, the database's) disagreeing.
 */
export const UNVERIFIED_GRACE_SECONDS = 60

/** Rows deleted per statement, and statements per pass: a pass stays short whatever the backlog. */
const BATCH = 500
const MAX_BATCHES = 20

/**
 * Deletes failed payments that never verified once their authorization expired (see
 * `PaymentLedger.pruneUnverified`): a flood of payments the facilitator refused leaves no rows
 * behind, while every payment that verified (settled, pending, or failed after verify) stays.
 * Returns how many were deleted.
 */
export async function pruneUnverifiedPayments(
  deps: { ledger: PaymentLedger; logger?: PaymentLogger },
  graceSeconds: number = UNVERIFIED_GRACE_SECONDS,
): Promise<number> {
  let pruned = 0
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const deleted = await deps.ledger.pruneUnverified({ graceSeconds, limit: BATCH })
    pruned += deleted
    if (deleted < BATCH) break
  }
  if (pruned > 0) deps.logger?.info({ pruned }, 'pruned expired payments that never verified')
  return pruned
}
