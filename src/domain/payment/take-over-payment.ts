import { type OwnerLeaseDeps, withLease } from './owner-lease.js'
import { DEFAULT_PAYMENT_LEASE_MS, type PaymentRecord } from './payment-ledger.js'
import { type Resolution, type ResolveDeps, resolvePayment } from './resolve-payment.js'

/** What taking over payments needs: chain resolution, and the owner lease. */
export interface TakeOverDeps extends ResolveDeps, OwnerLeaseDeps {}

/**
 * Takes over payment `id` when its owner's lease ran out and resolves it from the chain at
 * once (a retry's take-over): settled with a receipt when the chain shows the payment, failed
 * when the chain says it never can be, and when it is unused and still valid, settlement is
 * sent again (once-only by the EIP-3009 nonce). Still unresolved: recorded `settle_pending`
 * and released, so the next retry or the reconciler looks again. Returns the record as it is
 * now, or undefined when someone else owns the payment.
 */
export async function takeOverPayment(
  deps: TakeOverDeps,
  id: string,
): Promise<PaymentRecord | undefined> {
  const taken = await deps.ledger.takeOver(id, deps.leaseMs ?? DEFAULT_PAYMENT_LEASE_MS)
  if (!taken) return undefined
  deps.logger?.info(
    { paymentId: id, status: taken.status },
    'taking over a payment whose owner is gone; reading the chain',
  )
  return withLease(deps, id, async () => {
    let resolution: Resolution = 'stillPending'
    try {
      resolution = await resolvePayment(deps, taken, { resettle: true })
    } catch (error) {
      // The chain or the facilitator could not be read: undecided, never a 500. The retry
      // is told the settlement is pending; the next retry or the reconciler looks again.
      deps.logger?.warn({ err: error, paymentId: id }, 'taking over a payment failed; pending')
    } finally {
      // Still unresolved: `settling` says so to every retry; a `settle_pending` one is only
      // released (a status write would restart the quiet a resend through a facilitator at a
      // URL waits for, and a buyer retrying every few seconds would keep it from ever coming).
      if (resolution === 'stillPending') {
        if (taken.status === 'settling') {
          await deps.ledger.transition(id, ['settling'], { status: 'settle_pending' })
        } else {
          await deps.ledger.postpone(id, 0)
        }
      }
    }
    return deps.ledger.get(id)
  })
}
