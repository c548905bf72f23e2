import type { UserOperationResult } from '@pre-send-guard/client/schemas'
import { AppError } from '../../errors.js'
import type { SignatureCheck } from '../delegation/delegation-rules.js'
import { checkSignature } from '../delegation/run-authorization-preflight.js'
import {
  nextBlockAfter,
  type PreflightDeps,
  preflightSequence,
  SimulationUnavailableError,
} from '../preflight/preflight-sequence.js'
import { chainFields, transactionReport } from '../preflight/run-preflight.js'
import type { TransactionInput } from '../screen/context.js'
import { compareFindings, findingsOf, verdictOf } from '../screen/screen-transaction.js'
import {
  callOutcomeOf,
  userOperationOutcome,
  userOperationSimulation,
} from './simulate-user-operation.js'
import {
  gasComplete,
  requiredPrefund,
  simulatedOperation,
  type UserOperationInput,
} from './user-operation.js'
import {
  ENVELOPE_RULES,
  USER_OPERATION_RULES,
  type UserOperationFacts,
} from './user-operation-rules.js'

export type { UserOperationResult } from '@pre-send-guard/client/schemas'

/**
 * Simulates a user operation through its EntryPoint at one pinned block and judges it: the
 * account's call is screened by every transaction rule as the account calling itself with
 * `callData` (so `execute`/`executeBatch`/ERC-7821 batches are opened and each inner call
 * judged, the account being the sender), with effects from the simulated logs, plus the
 * user-operation rules. Same single RPC wave as a transaction preflight. Sends nothing.
 */
export async function runUserOperationPreflight(
  deps: PreflightDeps,
  op: UserOperationInput,
): Promise<UserOperationResult> {
  const { operation, hash, stub } = await simulatedOperation(op, deps.chainId)
  const authorization: SignatureCheck | undefined =
    op.authorization === undefined
      ? undefined
      : await checkSignature({
          authority: op.sender,
          delegate: op.authorization.address,
          chainId: BigInt(op.authorization.chainId),
          nonce: BigInt(op.authorization.nonce),
          signature: {
            yParity: op.authorization.yParity,
            r: op.authorization.r,
            s: op.authorization.s,
          },
        })
  const simulation = userOperationSimulation(op, operation)
  // The account calling itself: its executor's inner calls are made by the account.
  const tx: TransactionInput = { from: op.sender, to: op.sender, data: op.callData, value: 0n }
  let sequence: Awaited<ReturnType<typeof preflightSequence>>
  try {
    sequence = await preflightSequence(deps, [tx], simulation.overrides, {
      simulateAs: [simulation.call],
      outcomeOf: (simulated) => callOutcomeOf(userOperationOutcome(op, simulated)),
      gasPaidTo: op.entryPoint,
    })
  } catch (error) {
    if (!(error instanceof SimulationUnavailableError)) throw error
    throw error.refused
      ? new AppError('simulation_refused', `The node refused to simulate: ${error.reason}`)
      : new AppError(
          'simulation_unavailable',
          `User operations need eth_simulateV1: ${error.reason}`,
          { retryAfter: 60 },
        )
  }
  const first = sequence.outcomes[0]
  const simulated = sequence.simulation.available ? sequence.simulation.calls[0] : undefined
  if (first === undefined || simulated === undefined) {
    throw new AppError('simulation_unavailable', 'The node returned no simulation', {
      retryAfter: 60,
    })
  }
  const outcome = userOperationOutcome(op, simulated)
  const prefund = requiredPrefund(op)
  const facts: UserOperationFacts = {
    op,
    outcome,
    stub,
    gasComplete: gasComplete(op),
    prefund,
    blockTime: nextBlockAfter(sequence.block).timestamp,
    serviceChainId: deps.chainId,
    authorization,
    senderNonce: sequence.senderNonces.get(op.sender.toLowerCase()) ?? 0,
  }
  const deploys = op.factory !== undefined && op.factory !== '0x7702'
  const screened = first.findings.filter(
    (f) =>
      !ENVELOPE_RULES.has(f.id) &&
      // The account the operation creates (or delegates) has no code yet at the pinned block.
      !(f.id === 'calldata-to-no-code' && (deploys || op.authorization !== undefined)),
  )
  const findings = [...screened, ...findingsOf(USER_OPERATION_RULES, facts)].sort(compareFindings)
  const report = transactionReport(sequence, first)
  const executed = outcome.stage === 'executed' ? outcome : undefined
  const validation = executed?.validation
  return {
    verdict: verdictOf(findings),
    findings,
    ...chainFields(deps, sequence),
    userOperation: {
      hash,
      entryPoint: op.entryPoint,
      entryPointVersion: op.version,
      sender: op.sender,
      nonce: op.nonce.toString(),
      deploysAccount: deploys,
      eip7702Delegate: op.authorization?.address ?? null,
      paymaster: op.paymaster ?? null,
    },
    validation: {
      simulated: op.version !== '0.6',
      signature:
        op.version === '0.6'
          ? 'not-simulated'
          : stub
            ? 'not-checked'
            : validation === undefined
              ? 'invalid'
              : validation.account.failed
                ? 'invalid'
                : 'valid',
      paymaster:
        op.paymaster === undefined
          ? 'none'
          : op.version === '0.6'
            ? 'not-simulated'
            : validation === undefined || validation.paymaster.failed
              ? 'invalid'
              : 'valid',
      failure: outcome.stage === 'validation' ? outcome.reason : null,
      validAfter: validation === undefined ? null : validation.account.validAfter.toString(),
      validUntil: validation === undefined ? null : validation.account.validUntil.toString(),
    },
    prefund: {
      checked: facts.gasComplete && op.version !== '0.6',
      required: prefund.toString(),
      paid: executed?.paid === undefined ? null : executed.paid.toString(),
      payer: op.paymaster === undefined ? 'account' : 'paymaster',
    },
    execution: report.call,
    gasUsed: simulated.gasUsed.toString(),
    decoded: report.decoded,
    effects: report.effects,
  }
}
