import type { Address } from 'viem'

/**
 * What the guard learns about the ERC-20s a sender receives (issue 31), as types only: the
 * effects carry them, the token rules read them, the sell probe and the logs produce them.
 */

/** What the probe measured for one received token (raw amounts in the token's units). */
export interface SellMeasurement {
  /** What the transaction left the sender (its balance after minus before). */
  received: bigint
  /** Moving `received` to a fresh address succeeded. */
  moved: boolean
  /** What arrived there. */
  arrived: bigint
  /** The pool the sell went through; undefined when the factory knows none. */
  pool: Address | undefined
  /** Paying `received` into the pool succeeded. */
  delivered: boolean
  /** What the pool received of it. */
  poolGot: bigint
  /** What the sell paid back, in the pool's other token. */
  proceeds: bigint
}

/** Shares lost to a token's own transfer logic, in basis points; null when not measured. */
export interface TaxBps {
  /** Received less than the pool sent (from the transaction's logs). */
  buy: number | null
  /** The pool received less than the sender sent, selling the received amount back (the probe). */
  sell: number | null
  /** A fresh address received less than the sender sent it (the probe). */
  transfer: number | null
}

/** What the guard learnt about one ERC-20 the sender receives. */
export interface ReceivedTokenFacts {
  token: Address
  /** The pinned token lists that carry it (`uniswap-default`, `superchain`); empty when none. */
  listed: string[]
  /** Whether the received amount can be moved and sold back; null when not determinable. */
  sellable: boolean | null
  taxBps: TaxBps
  /** The probe's figures (for findings; not answered). */
  measured?: SellMeasurement
}

/** A token the sender sells that loses part of what it sends to its own transfer logic. */
export interface SellLoss {
  token: Address
  /** What the sender's balance lost. */
  debited: bigint
  /** What the swap pools received of it. */
  credited: bigint
  lossBps: number
}
