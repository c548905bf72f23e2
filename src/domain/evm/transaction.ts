import type { Address, Hex } from 'viem'

/**
 * The transaction vocabulary every stage shares: what the agent intends to send, and what the
 * chain said about it. A leaf: the chain reader (preflight), the effects and the screen all
 * import it, and it imports none of them.
 */

/** The transaction as the agent intends to send it (already validated and normalised). */
export interface TransactionInput {
  from: Address
  to: Address
  data: Hex
  value: bigint
  /**
   * `from` and `to` as the request spelled them, when a mixed-case spelling is not its EIP-55
   * checksum (`address-checksum-mismatch`); absent when both are all-lower, all-upper or valid.
   */
  misspelled?: { field: 'from' | 'to'; given: string }[]
  /** EIP-7702 authorizations the transaction carries (type 4), applied as the chain applies them. */
  authorizationList?: readonly SignedAuthorizationInput[]
}

/** A signed EIP-7702 authorization, normalised. */
export interface SignedAuthorizationInput {
  address: Address
  chainId: bigint
  nonce: bigint
  yParity: 0 | 1
  r: Hex
  s: Hex
}

/** Outcome of `eth_call`: a revert is data, not an exception. */
export type CallOutcome =
  | { status: 'success'; returnData: Hex }
  | { status: 'reverted'; revertData: Hex; message: string }

/** Outcome of `eth_estimateGas`. */
export type GasOutcome =
  | { status: 'success'; gas: bigint }
  | { status: 'failed'; message: string; revertData?: Hex }

/**
 * What a token contract is, as far as `approve(address,uint256)` is concerned: `erc721` and
 * `erc1155` from ERC-165 `supportsInterface`, `erc20` when it answers ERC-20's `allowance`.
 */
export type TokenStandard = 'erc20' | 'erc721' | 'erc1155' | 'unknown'
