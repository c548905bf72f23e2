import type { Address, Hex } from 'viem'

/**
 * What a call declares it does, read from its decoded arguments before anything runs: the
 * transfers, grants, role and Safe changes, and owner, implementation or admin changes. Protocol
 * modules read them (`ProtocolModule`); the screen's rules judge them.
 */

/** Tokens (or ETH, token = zero address in Universal Router) moved to a recipient. */
export interface TransferEffect {
  /** Absent when the asset is only known from a swap path. */
  token?: Address
  from?: Address
  to: Address
  /** Raw amount(s) or token id(s), for the detail text. */
  amount: string
  /** transferFrom-style: moves tokens from an owner by allowance or operator approval. */
  pull: boolean
  /** `amount` is an ERC-721 token id (`safeTransferFrom` without an amount). */
  tokenId?: boolean
  /** Moves the caller's own balance (`transfer`). */
  byCaller?: boolean
  /**
   * The shape pays its output to whoever makes the call unless told otherwise (router outputs,
   * vault shares and withdrawals): a recipient other than the caller is a third party.
   */
  output?: 'route' | 'vault'
  /** A Universal Router `PAY_PORTION`/`TAKE_PORTION`: the share of the balance paid, in bips. */
  portionBips?: bigint
  via: string
}

/**
 * An allowance or operator grant the call creates (or revokes). `approve(address,uint256)` is
 * shared by ERC-20 (an allowance) and ERC-721 (one token id): `erc721` when the target is known to
 * be an ERC-721, `erc20` when known to be an ERC-20, otherwise `erc20-or-erc721`, read as an
 * allowance that is never a revoke unless the spender is the zero address.
 */
export interface ApprovalEffect {
  kind: 'erc20' | 'erc721' | 'erc20-or-erc721' | 'permit2' | 'operator'
  /** The token (or collection) the grant is for. */
  token: Address
  spender: Address
  /**
   * Allowance granted; absent for operator and ERC-721 grants. DAI's `permit(allowed=true)` is
   * 2^256-1. For `erc20-or-erc721` it is also the token id if the token is an ERC-721.
   */
  amount?: bigint
  /** The token id an ERC-721 `approve` (or a possible one) names. */
  tokenId?: bigint
  /**
   * Grants the caller's own tokens (`approve`, `increaseAllowance`, `setApprovalForAll`, Permit2
   * `approve`), as opposed to a permit, which grants the signer's.
   */
  byCaller: boolean
  /** Permit2 expiration (unix seconds; 0 means "this block"). */
  expiration?: bigint
  /** Sets the grant to nothing: zero allowance, `approved=false`, `allowed=false`. */
  revoke: boolean
  /** What made it, for the detail text, e.g. `approve`, `PERMIT2_PERMIT`. */
  via: string
}

/** A change of who holds a role in an AccessControl contract or who controls a Safe. */
export interface PowerEffect {
  kind:
    | 'role-grant'
    | 'role-revoke'
    | 'role-renounce'
    | 'safe-owner'
    | 'safe-threshold'
    | 'safe-module'
    | 'safe-guard'
    | 'safe-fallback-handler'
  /** The AccessControl contract or the Safe. */
  contract: Address
  /** The account, owner, module, guard or handler the change is about (the one gaining power first). */
  subject?: Address
  /** AccessControl role id (bytes32 hex), for role changes. */
  role?: Hex
  /** What the call does, in words, for the detail text. */
  action: string
}

/** A change of who controls a contract or what code it runs. */
export interface PrivilegedEffect {
  kind: 'ownership-transfer' | 'ownership-renounce' | 'upgrade' | 'admin-change'
  contract: Address
  /** New owner, implementation or admin. */
  subject?: Address
  via: string
}
