import type { BundleResult } from '@pre-send-guard/client/schemas'
import { REQUEST_LIMITS } from '@pre-send-guard/client/types'
import { AppError } from '../../errors.js'
import {
  type BundleAuthorizations,
  judgeBundleAuthorizations,
} from '../delegation/bundle-authorizations.js'
import { effectsReport } from '../effects/effects-report.js'
import { executionEffects } from '../effects/execution-effects.js'
import type { TransactionInput } from '../screen/context.js'
import { compareFindings, verdictOf } from '../screen/screen-transaction.js'
import { atLatestHead } from './at-latest-head.js'
import type { SimulatedLog, StateOverrides } from './chain-reader.js'
import {
  type PreflightDeps,
  preflightSequence,
  SimulationUnavailableError,
} from './preflight-sequence.js'
import { TOKEN_METADATA_LIMIT } from './read-token-metadata.js'
import { chainFields, transactionReport } from './run-preflight.js'

/** Most transactions in one bundle. */
export const MAX_BUNDLE_TRANSACTIONS = REQUEST_LIMITS.bundleTransactions

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
  let listed: BundleAuthorizations | undefined
  try {
    // The authorizations are judged beside the simulation (the same wave), at the same head;
    // when the head moved between the two, they are judged again at the sequence's block.
    const listing = txs.some((tx) => (tx.authorizationList?.length ?? 0) > 0)
    const [s, judged] = await Promise.all([
      preflightSequence(deps, txs, overrides),
      listing
        ? atLatestHead(deps.chain, (b) => judgeBundleAuthorizations(deps, txs, b))
        : undefined,
    ])
    sequence = s
    listed =
      judged === undefined
        ? undefined
        : judged.block.hash === s.block.hash
          ? judged.result
          : await judgeBundleAuthorizations(deps, txs, s.block)
  } catch (error) {
    if (!(error instanceof SimulationUnavailableError)) throw error
    throw error.refused
      ? new AppError(
          'simulation_refused',
          `The node refused to simulate the bundle: ${error.reason}`,
        )
      : new AppError('simulation_unavailable', error.message, { retryAfter: 60 })
  }
  const transactions = sequence.outcomes.map((o, i) => {
    const report = transactionReport(sequence, o)
    if (listed === undefined) return report
    // An account an earlier tuple delegated has code by the time this transaction calls it.
    const delegatedBefore = new Set(
      listed.applied.filter((a) => a.txIndex < i).map((a) => a.authority.toLowerCase()),
    )
    const kept = report.findings.filter(
      (f) => !(f.id === 'calldata-to-no-code' && delegatedBefore.has(o.tx.to.toLowerCase())),
    )
    const findings = [...kept, ...(listed.findings[i] ?? [])].sort(compareFindings)
    return { ...report, verdict: verdictOf(findings), findings }
  })
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
