import { expectBytes } from '@pre-send-guard/client/types'
import {
  type Address,
  concat,
  decodeErrorResult,
  decodeEventLog,
  decodeFunctionResult,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  parseAbi,
  toEventSelector,
} from 'viem'
import type { UserOperation } from 'viem/account-abstraction'
import runnerArtifact from '../../../contracts/artifacts/EntryPointV06Runner.json' with {
  type: 'json',
}
import simulations07 from '../../../contracts/protocols/account-abstraction/v0.7/EntryPointSimulations.json' with {
  type: 'json',
}
import simulations08 from '../../../contracts/protocols/account-abstraction/v0.8/EntryPointSimulations.json' with {
  type: 'json',
}
import { checksummed } from '../evm/checksummed.js'
import type {
  CallRequest,
  SimulatedCall,
  SimulatedLog,
  StateOverrides,
} from '../preflight/chain-reader.js'
import type { CallOutcome } from '../screen/context.js'
import { ENTRY_POINTS } from './entry-points.js'
import { packed, type UserOperationInput } from './user-operation.js'

/** The v0.6 EntryPoint's SenderCreator: the first contract it created (as on every chain). */
export const SENDER_CREATOR_V06: Address = getContractAddress({
  from: ENTRY_POINTS['0.6'],
  nonce: 1n,
})

/** Who sends the simulation call: an address nobody holds, with no balance needed. */
const SIMULATION_CALLER: Address = '0x000000000000000000000000000000005742a0e4'

/** The runtime codes placed at the EntryPoint, checked once when the module loads. */
const RUNNER_CODE = expectBytes(runnerArtifact.deployedBytecode, 'EntryPointV06Runner.json')
const SIMULATIONS_07_CODE = expectBytes(
  simulations07.deployedBytecode,
  'v0.7 EntryPointSimulations',
)
const SIMULATIONS_08_CODE = expectBytes(
  simulations08.deployedBytecode,
  'v0.8 EntryPointSimulations',
)

const entryPointEvents = parseAbi([
  'event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
  'event UserOperationRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason)',
])
const entryPointErrors = parseAbi([
  'error FailedOp(uint256 opIndex, string reason)',
  'error FailedOpWithRevert(uint256 opIndex, string reason, bytes inner)',
])
const USER_OPERATION_EVENT = toEventSelector(entryPointEvents[0])
const REVERT_REASON_EVENT = toEventSelector(entryPointEvents[1])

/** The call and overrides that simulate one user operation. */
export interface UserOperationSimulation {
  call: CallRequest
  overrides: StateOverrides
}

/**
 * v0.7/v0.8: `simulateHandleOp` of the package's `EntryPointSimulations`, put in place of the
 * EntryPoint's code, runs the operation as `handleOps` would (account creation, validation,
 * prefund, paymaster, execution, postOp) without reverting. v0.6: the {@link runnerArtifact}
 * in place of the EntryPoint creates the account through the real SenderCreator and calls it
 * with `callData` from the EntryPoint's address (execution only). An `eip7702Auth` becomes the
 * sender's code (the delegation the bundler's type-4 transaction would install).
 */
export function userOperationSimulation(
  op: UserOperationInput,
  operation: UserOperation,
): UserOperationSimulation {
  const overrides: Record<Address, StateOverrides[Address]> = {}
  if (op.authorization !== undefined) {
    overrides[checksummed(op.sender)] = { code: concat(['0xef0100', op.authorization.address]) }
  }
  if (op.version === '0.6') {
    overrides[checksummed(op.entryPoint)] = { code: RUNNER_CODE }
    const v06 = operation as UserOperation<'0.6'>
    return {
      call: {
        from: SIMULATION_CALLER,
        to: op.entryPoint,
        data: encodeFunctionData({
          abi: runnerArtifact.abi,
          functionName: 'run',
          args: [SENDER_CREATOR_V06, v06.initCode ?? '0x', op.sender, op.callData],
        }),
        value: 0n,
      },
      overrides,
    }
  }
  const simulations = op.version === '0.7' ? simulations07 : simulations08
  overrides[checksummed(op.entryPoint)] = {
    code: op.version === '0.7' ? SIMULATIONS_07_CODE : SIMULATIONS_08_CODE,
  }
  return {
    call: {
      from: SIMULATION_CALLER,
      to: op.entryPoint,
      data: encodeFunctionData({
        abi: simulations.abi,
        functionName: 'simulateHandleOp',
        args: [packed(operation), '0x0000000000000000000000000000000000000000', '0x'],
      }),
      value: 0n,
    },
    overrides,
  }
}

/** Validation data as the EntryPoint packs it. */
export interface ValidationData {
  /** The signature (or paymaster data) failed: `aggregator` 1. */
  failed: boolean
  /** An aggregator contract the account names (neither 0 nor 1). */
  aggregator: Address | undefined
  validAfter: bigint
  /** 0 means no expiry. */
  validUntil: bigint
}

export function parseValidationData(data: bigint): ValidationData {
  const aggregator = data & ((1n << 160n) - 1n)
  return {
    failed: aggregator === 1n,
    aggregator:
      aggregator > 1n ? checksummed(`0x${aggregator.toString(16).padStart(40, '0')}`) : undefined,
    validUntil: (data >> 160n) & ((1n << 48n) - 1n),
    validAfter: data >> 208n,
  }
}

/** What simulating the operation showed. */
export type UserOperationOutcome =
  | {
      /** Validation (and for v0.6, creation) failed: the bundler drops it, or it reverts. */
      stage: 'validation'
      reason: string
      revertData: Hex
    }
  | {
      stage: 'executed'
      /** v0.7/v0.8 only: what validation returned. */
      validation: { account: ValidationData; paymaster: ValidationData } | undefined
      preOpGas: bigint | undefined
      /** Wei the operation paid (v0.7/v0.8). */
      paid: bigint | undefined
      /** The account was created by the operation. */
      deployed: boolean
      success: boolean
      /** The account call's revert data when it failed. */
      revertData: Hex
    }

/** Reads the simulated call: validation failure, or execution with its result. */
export function userOperationOutcome(
  op: UserOperationInput,
  simulated: SimulatedCall,
): UserOperationOutcome {
  if (simulated.status !== 'success') {
    return {
      stage: 'validation',
      reason: failureReason(simulated.revertData) ?? simulated.message,
      revertData: simulated.revertData,
    }
  }
  if (op.version === '0.6') {
    const [deployed, success, result] = decodeFunctionResult({
      abi: runnerArtifact.abi,
      functionName: 'run',
      data: simulated.returnData,
    }) as [boolean, boolean, Hex]
    if (op.factory !== undefined && !deployed) {
      return {
        stage: 'validation',
        reason: 'AA13 initCode failed or did not create the sender',
        revertData: result,
      }
    }
    return {
      stage: 'executed',
      validation: undefined,
      preOpGas: undefined,
      paid: undefined,
      deployed,
      success,
      revertData: success ? '0x' : result,
    }
  }
  const simulations = op.version === '0.7' ? simulations07 : simulations08
  const result = decodeFunctionResult({
    abi: simulations.abi,
    functionName: 'simulateHandleOp',
    data: simulated.returnData,
  }) as {
    preOpGas: bigint
    paid: bigint
    accountValidationData: bigint
    paymasterValidationData: bigint
  }
  const event = operationEvent(simulated.logs)
  return {
    stage: 'executed',
    validation: {
      account: parseValidationData(result.accountValidationData),
      paymaster: parseValidationData(result.paymasterValidationData),
    },
    preOpGas: result.preOpGas,
    paid: result.paid,
    deployed: op.factory !== undefined && op.factory !== '0x7702',
    success: event?.success ?? false,
    revertData: event?.revertReason ?? '0x',
  }
}

/** The UserOperationEvent's success and the revert reason the EntryPoint logged. */
function operationEvent(
  logs: readonly SimulatedLog[],
): { success: boolean; revertReason: Hex } | undefined {
  let success: boolean | undefined
  let revertReason: Hex = '0x'
  for (const log of logs) {
    const topic = log.topics[0]
    if (topic !== USER_OPERATION_EVENT && topic !== REVERT_REASON_EVENT) continue
    try {
      const decoded = decodeEventLog({
        abi: entryPointEvents,
        topics: log.topics as [Hex, ...Hex[]],
        data: log.data,
      })
      if (decoded.eventName === 'UserOperationEvent') success = decoded.args.success
      else revertReason = decoded.args.revertReason
    } catch {
      // Another contract's event with the same topic: not the EntryPoint's.
    }
  }
  return success === undefined ? undefined : { success, revertReason }
}

/** `AA23 reverted` and the like, from the EntryPoint's FailedOp errors. */
function failureReason(data: Hex): string | undefined {
  try {
    const decoded = decodeErrorResult({ abi: entryPointErrors, data })
    return decoded.args[1]
  } catch {
    return undefined
  }
}

/** The judged transaction's outcome: the account's call as the operation runs it. */
export function callOutcomeOf(outcome: UserOperationOutcome): CallOutcome {
  if (outcome.stage === 'validation') {
    return {
      status: 'failure',
      revertData: outcome.revertData,
      message: `the EntryPoint refuses the operation: ${outcome.reason}`,
    }
  }
  return outcome.success
    ? { status: 'success', returnData: '0x' }
    : {
        status: 'failure',
        revertData: outcome.revertData,
        message: "the account's call reverted inside the operation",
      }
}
