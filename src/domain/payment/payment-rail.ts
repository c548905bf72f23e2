import type { RailReadiness } from '@pre-send-guard/client/schemas'
import type {
  PaymentPayload,
  PaymentRequired,
  ResourceInfo,
  SettleResponse,
} from '@x402/core/types'
import type { Address, Hex } from 'viem'
import type { OfferRequirements } from './offer.js'
import type { SettlementAnnouncer } from './settlement-announcement.js'

/**
 * `settlement.railReadiness` in every 402 body and in discovery: whether a paid call can succeed
 * right now (declared once, in the client package's schemas). `ready` is true when the
 * facilitator supports exact on eip155:8453, a payTo is set and a receipt key is configured.
 */
export type { RailReadiness } from '@pre-send-guard/client/schemas'

/** The facilitator's last `/supported` answer, as reported in `railReadiness.facilitator`. */
export type FacilitatorStatus = RailReadiness['facilitator']

/** Which facilitator settles payments. */
export type FacilitatorKind = FacilitatorStatus['kind']

/** Facilitator verdict on a payment. A rejection is data; an unreachable facilitator throws. */
export type VerifyOutcome =
  | { valid: true; payer: Address }
  | { valid: false; facilitatorReason: string; message?: string }

/** How a settle attempt ended. */
export type SettleOutcome =
  /** Settled on chain: the transfer happened. */
  | { status: 'settled'; transaction: Hex; response: SettleResponse }
  /**
   * Refused before anything was sent (insufficient balance, bad signature, outside the
   * validity window...), and no transaction was seen: nothing can have been charged.
   */
  | { status: 'failed'; facilitatorReason: string; message?: string; response?: SettleResponse }
  /**
   * The facilitator refused the connection, or its RPC failed before it sent anything. This
   * call sent nothing, but the payment is still treated as unknown: an earlier attempt may have.
   */
  | { status: 'unreachable'; message: string }
  /**
   * Anything else (timeout, unconfirmed, a failure after broadcasting, a reason we cannot prove
   * was raised before sending): the chain decides, later.
   */
  | { status: 'unknown'; transaction?: Hex; message: string }

/**
 * The x402 rail, as the paid route needs it: the challenge, verify and settle against the one
 * offer. Implemented over `@x402/core`'s resource server and a facilitator client.
 */
export interface PaymentRail {
  readonly requirements: OfferRequirements
  /**
   * The x402 v2 PaymentRequired for the PAYMENT-REQUIRED header; `error` carries the reason and
   * `extensions` (bazaar, payment-identifier) ride beside the offer. Extensions never change
   * `accepts`: what the buyer signs is the offer alone.
   */
  paymentRequired(
    resource: ResourceInfo,
    error: string,
    extensions?: Record<string, unknown>,
  ): Promise<PaymentRequired>
  /**
   * A refusal is decided on healthy answers only.
   * @throws {FacilitatorUnavailableError} when the facilitator cannot answer.
   * @throws {RpcUnavailableError} when the built-in facilitator's RPC failed meanwhile.
   */
  verify(payload: PaymentPayload): Promise<VerifyOutcome>
  /**
   * Settles the payment. `announce` is told each settlement transaction's hash before it is
   * sent (a settler that cannot tell it beforehand, a facilitator at a URL, never calls it); a
   * failed announcement sends nothing and the outcome is `unreachable`.
   */
  settle(
    payload: PaymentPayload,
    options?: { announce?: SettlementAnnouncer },
  ): Promise<SettleOutcome>
  facilitatorStatus(): FacilitatorStatus
}
