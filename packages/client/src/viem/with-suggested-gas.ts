import type { SendTransactionParameters } from 'viem'
import type { PreflightResult } from '../client/guard-responses.js'

/** viem's own gas estimate of a transaction (its `prepareTransactionRequest`, gas alone). */
export type EstimateGas = (parameters: SendTransactionParameters) => Promise<bigint | undefined>

/**
 * The gas limit to send a checked transaction with, where the caller set none.
 *
 * viem estimates gas in the context of the latest block (a node's default for
 * `eth_estimateGas`), and the transaction lands in a later one. What differs between the two
 * can make that estimate short: a Uniswap v3 pool's first swap in a new block timestamp writes an
 * oracle observation (about 4,000 gas) that an estimate in a block that already traded skips, and
 * a transaction sent with it runs out of gas. The guard's `gas.estimate` is made as in the next
 * block. So the limit is viem's estimate raised to the guard's, and never above twice viem's: a
 * guard can neither starve the transaction (the limit is never under viem's) nor make it need
 * much more balance for gas than viem would. When the guard's estimate failed, the caller set a
 * gas limit, or viem's estimate fails (the send then fails as it would unguarded), the parameters
 * are left as they are.
 */
export async function withSuggestedGas(
  parameters: SendTransactionParameters,
  gas: PreflightResult['gas'],
  estimateGas: EstimateGas,
): Promise<SendTransactionParameters> {
  if ((parameters as { gas?: bigint }).gas !== undefined || !gas.success) return parameters
  const guardGas = BigInt(gas.estimate)
  let ownGas: bigint | undefined
  try {
    ownGas = await estimateGas(parameters)
  } catch {
    return parameters
  }
  if (ownGas === undefined || ownGas <= 0n) return parameters
  const raised = guardGas > ownGas ? (guardGas < 2n * ownGas ? guardGas : 2n * ownGas) : ownGas
  return { ...parameters, gas: raised } as SendTransactionParameters
}
