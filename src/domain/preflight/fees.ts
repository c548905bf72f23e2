import type { FeeFacts } from '../screen/context.js'

/**
 * Floor for the suggested priority fee, in wei (0.001 gwei). Base's sequencer orders by
 * priority fee and an empty fee history (quiet blocks, devnets) would otherwise suggest 0.
 */
export const MIN_PRIORITY_FEE_PER_GAS = 1_000_000n

/** Median of the rewards, floored at {@link MIN_PRIORITY_FEE_PER_GAS}. Deterministic for a block. */
export function suggestPriorityFee(rewards: readonly bigint[]): bigint {
  const sorted = [...rewards].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const median = sorted.length === 0 ? 0n : (sorted[Math.floor(sorted.length / 2)] ?? 0n)
  return median > MIN_PRIORITY_FEE_PER_GAS ? median : MIN_PRIORITY_FEE_PER_GAS
}

/**
 * Max fee per gas: twice the base fee plus the tip, so the transaction stays includable through
 * several consecutive full blocks (each may raise the base fee by 12.5%).
 */
export function suggestMaxFee(baseFeePerGas: bigint, priorityFeePerGas: bigint): bigint {
  return baseFeePerGas * 2n + priorityFeePerGas
}

/** Fee context in wei: what the transaction is expected to cost and the most it can cost. */
export interface FeeContext extends FeeFacts {
  /** gas * (baseFee + priorityFee): the expected L2 execution cost. */
  l2ExecutionCost: bigint
  /** l2ExecutionCost + l1DataFee. */
  totalCost: bigint
  /** totalCostMax + value: what the sender must hold for the transaction to be includable. */
  totalCostPlusValue: bigint
}

/** Combines the fee facts of one pinned block. `gas` is 0 when estimation failed. */
export function computeFees(input: {
  gas: bigint
  value: bigint
  baseFeePerGas: bigint
  maxPriorityFeePerGas: bigint
  l1DataFee: bigint
}): FeeContext {
  const maxFeePerGas = suggestMaxFee(input.baseFeePerGas, input.maxPriorityFeePerGas)
  const l2ExecutionCost = input.gas * (input.baseFeePerGas + input.maxPriorityFeePerGas)
  const l2ExecutionCostMax = input.gas * maxFeePerGas
  const totalCostMax = l2ExecutionCostMax + input.l1DataFee
  return {
    baseFeePerGas: input.baseFeePerGas,
    maxPriorityFeePerGas: input.maxPriorityFeePerGas,
    maxFeePerGas,
    l2ExecutionCost,
    l2ExecutionCostMax,
    l1DataFee: input.l1DataFee,
    totalCost: l2ExecutionCost + input.l1DataFee,
    totalCostMax,
    totalCostPlusValue: totalCostMax + input.value,
  }
}
