import type { Address, Hex } from 'viem'
import type { SenderDelegate } from '../delegation/probe-report.js'
import type { ExecutionEffects } from '../effects/execution-effects.js'
import type { TokenBook } from '../effects/token-amount.js'
import type {
  CallOutcome,
  GasOutcome,
  TokenStandard,
  TransactionInput,
} from '../evm/transaction.js'
import type { OwnerPowers } from '../tokens/owner-powers.js'

// The transaction vocabulary lives in evm/transaction.ts, below the preflight and the screen
// alike (the chain reader speaks it too); re-exported here for the screen's readers.
export type {
  CallOutcome,
  GasOutcome,
  SignedAuthorizationInput,
  TokenStandard,
  TransactionInput,
} from '../evm/transaction.js'

/** Fee context in wei for the block the simulation is pinned to. */
export interface FeeFacts {
  baseFeePerGas: bigint
  maxPriorityFeePerGas: bigint
  maxFeePerGas: bigint
  /** gas * maxFeePerGas (worst case L2 execution cost); 0 when gas estimation failed. */
  l2ExecutionCostMax: bigint
  /** L1 data fee from the GasPriceOracle predeploy. */
  l1DataFee: bigint
  /** l2ExecutionCostMax + l1DataFee. */
  totalCostMax: bigint
}

/** Everything the deterministic screen may look at. Pure data, read at one pinned block. */
export interface ScreenContext {
  tx: TransactionInput
  call: CallOutcome
  gas: GasOutcome
  fees: FeeFacts
  sender: { balance: bigint; code: Hex }
  block: { number: bigint; timestamp: bigint; gasLimit: bigint }
  /**
   * Runtime code of every address the screen asked for (the target, the sender, and every
   * address returned by the screen's `addressesOfInterest`), read at the pinned block.
   * Keys are lower-case addresses; `0x` means no code.
   */
  codes: ReadonlyMap<string, Hex>
  /**
   * Token standard of the addresses the screen's `standardProbeTargets` lists (the targets of
   * `approve(address,uint256)`, a selector ERC-20 and ERC-721 share), read at the pinned block.
   * Keys are lower-case addresses. Optional: an absent map or entry means `unknown`, which the
   * screen judges conservatively (an `approve(spender, 0)` is not taken for an ERC-20 revoke).
   */
  tokenStandards?: ReadonlyMap<string, TokenStandard>
  /**
   * What execution did (from `eth_simulateV1` or a `debug_traceCall` trace): asset moves and
   * approvals, or why the node could not show them. Absent: not looked at (the effect rules stay
   * silent). Addresses the effect rules judge (net gainers of the sender's assets, spenders of
   * approvals emitted) have their code in `codes` too, bounded.
   */
  execution?: { available: true; effects: ExecutionEffects } | { available: false; reason: string }
  /** ERC-20 `symbol`/`decimals` of the tokens findings name, read at the pinned block. */
  tokens?: TokenBook
  /**
   * Owner powers of the ERC-20s the sender receives whose code the preflight read (lower-case
   * keys): the tokens the calldata names or its swaps trade (in the one wave), and tokens only
   * execution revealed when their metadata takes a second wave anyway. Absent entry: not read.
   */
  ownerPowers?: ReadonlyMap<string, OwnerPowers>
  /** The answer assumes state overrides the caller supplied: its verdict is hypothetical. */
  hypothetical?: boolean
  /**
   * The sender's EIP-7702 delegate, read and probed when the sender is delegated to code not
   * recognised by its address (a second wave, delegated senders only).
   */
  senderDelegate?: SenderDelegate
  /**
   * Owners of the position NFTs the calls act on by token id (a v3 position's
   * `increaseLiquidity`), read with `ownerOf` before the transactions in the one simulation; keys
   * from {@link positionKey}. Absent entry: not read, or no such token.
   */
  positionOwners?: ReadonlyMap<string, Address>
  /**
   * Every contract that emitted a log in the simulated execution (lower-case): the contracts
   * taking part in it beside the calls' targets and the accounts assets move between. Absent:
   * execution not seen.
   */
  logEmitters?: ReadonlySet<string>
}

/** The key of a position NFT in {@link ScreenContext.positionOwners}: `collection:tokenId`, lower-case. */
export function positionKey(collection: Address, tokenId: bigint): string {
  return `${collection.toLowerCase()}:${tokenId}`
}

/** Screen thresholds; the defaults are `DEFAULT_SCREEN_CONFIG` (screen-transaction.ts), config overrides them. */
export interface ScreenConfig {
  /** Gas estimate above this is a warning. */
  gasWarnThreshold: bigint
  /** ERC-20 allowances at or above this count as unlimited. */
  unlimitedAllowanceThreshold: bigint
  /** Permit2 expirations further than this many seconds past the block are flagged. */
  permit2ExpiryWarnSeconds: bigint
}

/**
 * Severity, finding and verdict come from the client package's shared answer vocabulary, so the
 * service and its buyers cannot disagree on them. `Finding.id` is stable API.
 */
export type { Finding, Severity, Verdict } from '@pre-send-guard/client/types'
