import type { BundleResult } from '@pre-send-guard/client/schemas'
import { AppError } from '../../errors.js'
import { effectsReport } from '../effects/effects-report.js'
import { executionEffects } from '../effects/execution-effects.js'
import type { TransactionInput } from '../screen/context.js'
import { verdictOf } from '../screen/screen-transaction.js'
import type { SimulatedLog, StateOverrides } from './chain-reader.js'
import {
  type PreflightDeps,
  preflightSequence,
  SimulationUnavailableError,
} from './preflight-sequence.js'
import { TOKEN_METADATA_LIMIT } from './read-token-metadata.js'
import { chainFields, transactionReport } from './run-preflight.js'

/** Most transactions in one bundle. */
export const MAX_BUNDLE_TRANSACTIONS = 8

/** The bundle answer (declared once, in the client package's schemas). */
export type { BundleResult } from '@pre-send-guard/client/schemas'

/**
 * Simulates the transactions in order at one pinned block (each sees the state the earlier ones
 * left, via one `eth_simulateV1` block) and screens each; same three RPC waves as one preflight.
 * A node without `eth_simulateV1` cannot sequence: 502 `simulation_unavailable` (a lone
 * transaction without overrides is answered like the single preflight instead).
 */
export async function runBundlePreflight(
  deps: PreflightDeps,
  txs: readonly TransactionInput[],
  overrides?: StateOverrides,
): Promise<BundleResult> {
  let sequence: Awaited<ReturnType<typeof preflightSequence>>
  try {
    sequence = await preflightSequence(deps, txs, overrides)
  } catch (error) {
    if (!(error instanceof SimulationUnavailableError)) throw error
    throw error.refused
      ? new AppError(
          'simulation_refused',
          `The node refused to simulate the bundle: ${error.reason}`,
        )
      : new AppError('simulation_unavailable', error.message, { retryAfter: 60 })
  }
  const transactions = sequence.outcomes.map((o) => transactionReport(sequence, o))
  const sim = sequence.simulation
  const logs: SimulatedLog[] = sim.available
    ? sim.calls.flatMap((c) => (c.status === 'success' ? c.logs : []))
    : []
  const senders = [...new Map(txs.map((tx) => [tx.from.toLowerCase(), tx.from])).values()]
  const netEffects = sim.available
    ? senders.map((sender) => {
        const report = effectsReport(
          executionEffects(logs, sender),
          sender,
          sim.source,
          sequence.tokens,
          { limit: TOKEN_METADATA_LIMIT, omitted: sequence.tokensOmitted },
        )
        const net = report.available ? report.senderNet : { changes: [], summary: 'no change' }
        return { sender, ...net }
      })
    : []
  return {
    verdict: verdictOf(transactions.flatMap((t) => t.findings)),
    hypothetical: overrides !== undefined,
    ...chainFields(deps, sequence),
    transactions,
    netEffects,
  }
}
