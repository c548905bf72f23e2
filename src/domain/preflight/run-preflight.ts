import type {
  EffectsReport,
  PreflightResult,
  RevertReport,
  TransactionReport,
} from '@pre-send-guard/client/schemas'
import { hexNumber } from '@pre-send-guard/client/types'
import { type Hex, slice } from 'viem'
import { effectsReport } from '../effects/effects-report.js'
import { decodeRevert } from '../revert/decode-revert.js'
import type { TransactionInput } from '../screen/context.js'
import {
  type PreflightDeps,
  preflightSequence,
  preflightSequenceAtTrackedHead,
  type SequenceOutcome,
  type TransactionOutcome,
} from './preflight-sequence.js'
import { TOKEN_METADATA_LIMIT } from './read-token-metadata.js'

// The answer shapes (`RevertReport`, `TransactionReport`, `PreflightResult`) are declared once,
// in the client package's schemas; this module builds them.
export type {
  PreflightResult,
  RevertReport,
  TransactionReport,
} from '@pre-send-guard/client/schemas'
export type { PreflightDeps } from './preflight-sequence.js'

function revertReport(data: Hex): RevertReport {
  return {
    data,
    selector: data.length >= 10 ? slice(data, 0, 4) : null,
    decoded: decodeRevert(data),
  }
}

/** One transaction of a sequence as answered; `effects` from its own simulated logs. */
export function transactionReport(
  sequence: SequenceOutcome,
  o: TransactionOutcome,
): TransactionReport {
  const { tx, call, gas, fees } = o
  const sim = sequence.simulation
  const effects: EffectsReport = !sim.available
    ? { available: false, reason: sim.reason }
    : effectsReport(
        o.effects ?? { moves: [], approvals: [], net: [] },
        tx.from,
        sim.source,
        sequence.tokens,
        { limit: TOKEN_METADATA_LIMIT, omitted: sequence.tokensOmitted },
        new Map([...sequence.ownerPowers].map(([token, p]) => [token, p.powers])),
      )
  return {
    verdict: o.verdict,
    findings: o.findings,
    transaction: { from: tx.from, to: tx.to, data: tx.data, value: tx.value.toString() },
    call:
      call.status === 'success'
        ? { success: true, returnData: call.returnData }
        : { success: false, message: call.message, revert: revertReport(call.revertData) },
    gas:
      gas.status === 'success'
        ? { success: true, estimate: gas.gas.toString() }
        : {
            success: false,
            estimate: null,
            message: gas.message,
            revert: gas.revertData ? revertReport(gas.revertData) : null,
          },
    fees: {
      baseFeePerGas: fees.baseFeePerGas.toString(),
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      maxFeePerGas: fees.maxFeePerGas.toString(),
      gasLimit: o.gasLimit.toString(),
      l2ExecutionCost: fees.l2ExecutionCost.toString(),
      l2ExecutionCostMax: fees.l2ExecutionCostMax.toString(),
      l1DataFee: fees.l1DataFee.toString(),
      totalCost: fees.totalCost.toString(),
      totalCostMax: fees.totalCostMax.toString(),
      totalCostPlusValue: fees.totalCostPlusValue.toString(),
    },
    decoded: o.decoded,
    effects,
  }
}

/** Chain, network and block fields every answer carries. */
export function chainFields(deps: PreflightDeps, sequence: Pick<SequenceOutcome, 'block'>) {
  const { block } = sequence
  return {
    environment: deps.environment,
    chainId: hexNumber(deps.chainId),
    network: `eip155:${deps.chainId}`,
    block: {
      number: block.number.toString(),
      hash: block.hash,
      timestamp: block.timestamp.toString(),
    },
  }
}

/**
 * Simulates a transaction at one pinned block and screens it. Sends nothing: only reads.
 * The same input at the same block yields a byte-identical answer, effects included.
 */
export async function runPreflight(
  deps: PreflightDeps,
  tx: TransactionInput,
): Promise<PreflightResult> {
  return resultOf(deps, await preflightSequence(deps, [tx]))
}

/** A preflight at the tracked head, and the same preflight at the head the chain moved to. */
export interface TrackedHeadPreflight {
  result: PreflightResult
  /**
   * When the chain moved past `result`'s block during its wave: the preflight at the new head,
   * already running (undefined when it failed; never rejects). `result` stands in until then.
   */
  atMovedHead?: Promise<PreflightResult | undefined>
}

/**
 * {@link runPreflight} in one wave even when the chain moved during it: the answer at the
 * tracked head comes at once, with the answer at the new head on its way (`atTrackedHead`).
 * For the paid call, which holds the first, settles meanwhile, and answers with the second.
 */
export async function runPreflightAtTrackedHead(
  deps: PreflightDeps,
  tx: TransactionInput,
): Promise<TrackedHeadPreflight> {
  const { sequence, atMovedHead } = await preflightSequenceAtTrackedHead(deps, [tx])
  const result = resultOf(deps, sequence)
  if (!atMovedHead) return { result }
  const answered = atMovedHead.then((moved) => moved && resultOf(deps, moved))
  return { result, atMovedHead: answered.catch(() => undefined) }
}

/** The answer of a one-transaction sequence. */
function resultOf(deps: PreflightDeps, sequence: SequenceOutcome): PreflightResult {
  const outcome = sequence.outcomes[0] as TransactionOutcome
  const report = transactionReport(sequence, outcome)
  // Field order of the answer before effects existed, effects last (additive).
  const { verdict, findings, transaction, call, gas, fees, decoded, effects } = report
  return {
    verdict,
    findings,
    ...chainFields(deps, sequence),
    transaction,
    call,
    gas,
    fees,
    decoded,
    effects,
  }
}
