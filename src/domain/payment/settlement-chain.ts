import type { Address, Hex } from 'viem'
import type { ExecutionStatus } from '../evm/transaction.js'

/** One log of a mined transaction, as any RPC returns it. */
export interface ChainLog {
  address: Address
  topics: readonly Hex[]
  data: Hex
  logIndex: number
}

/** A mined transaction: its status (a receipt's `'reverted'` is a `'failure'`) and logs. */
export interface MinedTransaction {
  hash: Hex
  status: ExecutionStatus
  blockNumber: bigint
  logs: readonly ChainLog[]
}

/** The chain head a resolution is judged at. */
export interface ChainHead {
  number: bigint
  /**
   * Unix seconds expiry is judged by: the head's timestamp (never our clock) on a live chain;
   * on the devnet, whose idle anvil makes no blocks, the later of it and the wall clock (the
   * next block anvil makes is stamped with the wall clock).
   */
  timestamp: bigint
}

/** Where an authorization's nonce was spent. */
export interface AuthorizationEvent {
  /** `used`: a transfer with an authorization under this nonce; `canceled`: cancelAuthorization. */
  kind: 'used' | 'canceled'
  transaction: Hex
  blockNumber: bigint
}

/** What the node knows about a transaction. */
export type TransactionState =
  | { state: 'mined'; tx: MinedTransaction }
  /** In the node's mempool: it may still be mined. */
  | { state: 'pending' }
  /** Not known to the node (never received, dropped, or invented). */
  | { state: 'unknown' }

/**
 * The port settlements are confirmed and resolved through (the request path and the
 * reconciler): on-chain facts about an EIP-3009 authorization, read-only. Implemented over
 * viem by `adapters/facilitator/settlement-chain.ts`.
 */
export interface SettlementChain {
  /** The latest block, read first so every other read of a payment is pinned to it. */
  latestBlock(): Promise<ChainHead>
  /** The token's `authorizationState(authorizer, nonce)` at `blockNumber`: used or canceled. */
  authorizationUsed(
    asset: Address,
    authorizer: Address,
    nonce: Hex,
    blockNumber: bigint,
  ): Promise<boolean>
  /** The first AuthorizationUsed / AuthorizationCanceled event for the nonce in the range. */
  findAuthorizationEvent(
    asset: Address,
    authorizer: Address,
    nonce: Hex,
    fromBlock: bigint,
    toBlock: bigint,
  ): Promise<AuthorizationEvent | undefined>
  transaction(hash: Hex): Promise<TransactionState>
}
