import type { Hex } from 'viem'
import type { PaymentLedger } from './payment-ledger.js'

/**
 * Told the hash of each settlement transaction before it is handed to the node (write-ahead);
 * a throw stops that send, nothing is sent. Only a settler that signs in this process can tell
 * a hash before sending (the built-in facilitator); a facilitator at a URL tells it after.
 */
export type SettlementAnnouncer = (transaction: Hex) => Promise<void>

/**
 * The payment moved on, or another sender announced a settlement of it first: this one is not
 * sent. Whoever resolves the payment next reads the announced transaction from the ledger.
 */
export class SettlementNotAnnouncedError extends Error {
  override name = 'SettlementNotAnnouncedError'
}

/**
 * Announces the settlements of payment `id` in the ledger, each a compare-and-set from the
 * one before (`previous`: what the row held when this sender read it). Two senders that read
 * the same row cannot both send: the second's announcement fails, and so does a sender's
 * whose payment was resolved meanwhile. A re-signature (a new nonce or fees) is announced
 * from the hash it replaces.
 */
export function announceSettlementTo(
  ledger: Pick<PaymentLedger, 'announceSettlement'>,
  id: string,
  previous: Hex | null,
): SettlementAnnouncer {
  let last = previous
  return async (transaction) => {
    if (transaction === last) return
    if (!(await ledger.announceSettlement(id, last, transaction))) {
      throw new SettlementNotAnnouncedError(
        `payment ${id} was resolved, or another settlement of it was announced, before ${transaction}: it is not sent`,
      )
    }
    last = transaction
  }
}
