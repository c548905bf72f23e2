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

/**
 * How running code on the chain ended, in viem's words (`multicall`, `simulateCalls`): the one
 * tag of every execution outcome here (a call, a gas estimate, a simulated call, a user
 * operation's account call, a mined transaction). A receipt's `'reverted'` is read as
 * `'failure'` by the adapter that reads the receipt.
 */
export type ExecutionStatus = 'success' | 'failure'

/**
 * An execution outcome tagged by {@link ExecutionStatus}: the fields of a success, or those of
 * a failure. A failure is data, not an exception.
 */
export type ExecutionOutcome<Success extends object, Failure extends object> =
  | ({ status: Extract<ExecutionStatus, 'success'> } & Success)
  | ({ status: Extract<ExecutionStatus, 'failure'> } & Failure)

/** Outcome of `eth_call`: a revert is a failure with its revert data. */
export type CallOutcome = ExecutionOutcome<
  { returnData: Hex },
  { revertData: Hex; message: string }
>

/** Outcome of `eth_estimateGas`: a failure carries revert data when the node gave some. */
export type GasOutcome = ExecutionOutcome<{ gas: bigint }, { message: string; revertData?: Hex }>

/**
 * What a token contract is, as far as `approve(address,uint256)` is concerned: `erc721` and
 * `erc1155` from ERC-165 `supportsInterface`, `erc20` when it answers ERC-20's `allowance`.
 */
export type TokenStandard = 'erc20' | 'erc721' | 'erc1155' | 'unknown'
