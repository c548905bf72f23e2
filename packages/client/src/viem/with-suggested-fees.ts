import type { SendTransactionParameters } from 'viem'
import type { PreflightResult } from '../client/guard-responses.js'

/**
 * The guard's suggested EIP-1559 fees, only where the caller chose none, and only within limits:
 * `maxPriorityFeePerGas <= maxFeePerGas <= min(ceiling, 3 x baseFeePerGas + maxPriorityFeePerGas)`.
 * Otherwise the suggestion is ignored and viem estimates the fees.
 */
export function withSuggestedFees(
  parameters: SendTransactionParameters,
  fees: PreflightResult['fees'],
  ceiling: bigint,
): SendTransactionParameters {
  const p = parameters as SendTransactionParameters & {
    gasPrice?: bigint
    maxFeePerGas?: bigint
    maxPriorityFeePerGas?: bigint
    type?: string
  }
  const callerChoseFees =
    p.gasPrice !== undefined ||
    p.maxFeePerGas !== undefined ||
    p.maxPriorityFeePerGas !== undefined ||
    p.type === 'legacy' ||
    p.type === 'eip2930'
  if (callerChoseFees) return parameters
  const baseFee = BigInt(fees.baseFeePerGas)
  const maxFeePerGas = BigInt(fees.maxFeePerGas)
  const maxPriorityFeePerGas = BigInt(fees.maxPriorityFeePerGas)
  const reasonable =
    maxPriorityFeePerGas <= maxFeePerGas &&
    maxFeePerGas <= ceiling &&
    maxFeePerGas <= 3n * baseFee + maxPriorityFeePerGas
  if (!reasonable) return parameters
  return { ...parameters, maxFeePerGas, maxPriorityFeePerGas } as SendTransactionParameters
}
