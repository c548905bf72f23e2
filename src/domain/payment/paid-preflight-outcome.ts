import type { SettleResponse } from '@x402/core/types'
import type { PreflightResult } from '../preflight/run-preflight.js'
import type { Receipt } from '../receipt/receipt.js'
import type { PaymentReason } from './payment-reasons.js'

/** Wall time of each phase of the call that did the work (ms); absent when skipped. */
export interface PhaseTimings {
  verifyMs?: number
  preflightMs?: number
  settleMs?: number
}

/** The answer: paid (200) or a payment problem (402). Other failures throw an AppError. */
export type PaidPreflightOutcome =
  | {
      kind: 'paid'
      result: PreflightResult
      receipt: Receipt
      settlement: SettleResponse
      /** True when this is the stored answer of an earlier (or concurrent) identical call. */
      replayed: boolean
      timings: PhaseTimings
    }
  | {
      kind: 'payment_required'
      reason: PaymentReason
      detail?: string
      facilitatorReason?: string
      /** The failed settlement, for the PAYMENT-RESPONSE header. */
      settlement?: SettleResponse
      timings: PhaseTimings
    }
