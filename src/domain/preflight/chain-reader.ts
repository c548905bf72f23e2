import type { Address, Hex } from 'viem'
import type {
  CallOutcome,
  ExecutionOutcome,
  GasOutcome,
  SignedAuthorizationInput,
} from '../evm/transaction.js'

/**
 * The address `eth_simulateV1` (with `traceTransfers`) names as the emitter of the ERC-20-shaped
 * `Transfer` logs it reports for native ETH moves (execution-apis spec).
 */
export const ETH_TRANSFER_EMITTER: Address = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE'

/** The block every read of one preflight is pinned to. */
export interface PinnedBlock {
  number: bigint
  hash: Hex
  timestamp: bigint
  gasLimit: bigint
  baseFeePerGas: bigint
}

/**
 * Where a read is pinned. State reads name the block by hash (EIP-1898), so a reorg or a
 * lagging node behind a load balancer fails the read instead of answering for another block.
 */
export interface BlockRef {
  number: bigint
  hash: Hex
}

/**
 * The block a transaction sent now lands in: the pinned block's number + 1 and timestamp + the
 * network's block time. A call, an estimate or a simulation "in" it runs on the pinned block's
 * state with that block's number and time (JSON-RPC block overrides), so what depends on the
 * block (a deadline, a Uniswap v3 pool's first oracle write of a timestamp) is judged as the
 * chain will run it, not as it ran in a block already sealed.
 */
export interface NextBlock {
  number: bigint
  timestamp: bigint
}

/** A call as sent to `eth_call` / `eth_estimateGas`. */
export interface CallRequest {
  from: Address
  to: Address
  data: Hex
  value: bigint
  /** EIP-7702 authorizations applied before the call (simulation only). */
  authorizationList?: readonly SignedAuthorizationInput[]
}

/** One log a simulated call emitted (or, with transfer tracing, one native ETH move). */
export interface SimulatedLog {
  address: Address
  topics: Hex[]
  data: Hex
}

/** One call of a simulation: a revert is a failure with its revert data, and no logs. */
export type SimulatedCall = ExecutionOutcome<
  { returnData: Hex; gasUsed: bigint; logs: SimulatedLog[] },
  { revertData: Hex; message: string; gasUsed: bigint }
>

/**
 * What simulating the calls in order produced. `available: false` when the node offers neither
 * `eth_simulateV1` nor a usable `debug_traceCall` (or cannot sequence a bundle): the preflight
 * still answers, without execution effects.
 */
export type Simulation =
  | {
      available: true
      source: 'eth_simulateV1' | 'debug_traceCall'
      calls: SimulatedCall[]
      /** Results of the read-only `reads`, when they rode along (only with `eth_simulateV1`). */
      reads?: SimulatedCall[]
      /** Results of the `after` view calls, when there were any. */
      after?: SimulatedCall[]
      /** Results of the {@link LaterBlock}'s calls, when one was asked for. */
      later?: SimulatedCall[]
    }
  | {
      available: false
      reason: string
      /** The node executed and refused the calls as a whole; absent when it lacks the method. */
      refused?: true
    }

/** State one address is assumed to have, in `eth_simulateV1`'s shape (hex quantities as bigint). */
export interface StateOverride {
  balance?: bigint
  nonce?: number
  code?: Hex
  /** Full storage replacement: slot -> 32-byte value. */
  state?: Record<Hex, Hex>
  /** Storage patch: slot -> 32-byte value. */
  stateDiff?: Record<Hex, Hex>
}

/** Overrides by checksummed address. */
export type StateOverrides = Readonly<Record<Address, StateOverride>>

/**
 * A second simulated block in the same `eth_simulateV1` request, after the calls' block: its
 * overrides apply from its start (the calls never see them), its calls see the state the calls
 * left. The sell probe runs there.
 */
export interface LaterBlock {
  overrides: StateOverrides
  calls: readonly CallRequest[]
}

/**
 * The read-only chain access the preflight needs. Implementations never send a transaction.
 * Expected outcomes (a revert, a failed estimate) are values; transport trouble throws
 * `RpcUnavailableError`.
 */
export interface ChainReader {
  chainId(): Promise<number>
  /** The `latest` block, read now; the answer also becomes the tracked {@link head}. */
  latestBlock(): Promise<PinnedBlock>
  /**
   * The last head this reader saw (its own reads, its background poll), without a request;
   * undefined before the first. Never trusted alone: see `atLatestHead`.
   */
  head(): PinnedBlock | undefined
  /**
   * `eth_call` at `at`; with `next`, as in that block (see {@link NextBlock}). A node that
   * refuses block overrides is asked without them, and from then on never with them.
   */
  call(request: CallRequest, at: BlockRef, next?: NextBlock): Promise<CallOutcome>
  /** `eth_estimateGas` at `at`; with `next`, as in that block (as {@link call}). */
  estimateGas(request: CallRequest, at: BlockRef, next?: NextBlock): Promise<GasOutcome>
  balance(address: Address, at: BlockRef): Promise<bigint>
  code(address: Address, at: BlockRef): Promise<Hex>
  nonce(address: Address, at: BlockRef): Promise<number>
  /** Priority-fee rewards (wei) at the given percentile over the `count` blocks ending at `block`. */
  priorityFeeRewards(count: number, at: BlockRef, percentile: number): Promise<bigint[]>
  /**
   * Runs the calls in order at the pinned block, each seeing the state the earlier ones left,
   * with native ETH moves traced as `Transfer` logs from `ETH_TRANSFER_EMITTER`. Node trouble
   * throws `RpcUnavailableError`; a node without the method is `available: false`.
   * `reads` are view calls (token metadata) run first in the same block, so they cost no extra
   * request; they change no state the calls see. `after` are view calls run after the calls in
   * the same block (a position read again once the transaction ran). `later` is a second block
   * in the same request (see {@link LaterBlock}). All three are dropped on the fallback path.
   * With `next`, the calls' block is dated as that block (number and time), as `call` is.
   */
  simulate(
    calls: readonly CallRequest[],
    at: BlockRef,
    overrides?: StateOverrides,
    reads?: readonly CallRequest[],
    after?: readonly CallRequest[],
    later?: LaterBlock,
    next?: NextBlock,
  ): Promise<Simulation>
}
