import type { Address, Hex } from 'viem'
import type { CallOutcome, GasOutcome } from '../screen/context.js'

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

/** A call as sent to `eth_call` / `eth_estimateGas`. */
export interface CallRequest {
  from: Address
  to: Address
  data: Hex
  value: bigint
}

/**
 * The read-only chain access the preflight needs. Implementations never send a transaction.
 * Expected outcomes (a revert, a failed estimate) are values; transport trouble throws
 * `RpcUnavailableError`.
 */
export interface ChainReader {
  chainId(): Promise<number>
  latestBlock(): Promise<PinnedBlock>
  call(request: CallRequest, at: BlockRef): Promise<CallOutcome>
  estimateGas(request: CallRequest, at: BlockRef): Promise<GasOutcome>
  balance(address: Address, at: BlockRef): Promise<bigint>
  code(address: Address, at: BlockRef): Promise<Hex>
  nonce(address: Address, at: BlockRef): Promise<number>
  /** Priority-fee rewards (wei) at the given percentile over the `count` blocks ending at `block`. */
  priorityFeeRewards(count: number, at: BlockRef, percentile: number): Promise<bigint[]>
  /** L1 data fee (wei) the GasPriceOracle predeploy charges for this serialized transaction. */
  l1Fee(serializedTx: Hex, at: BlockRef): Promise<bigint>
}
