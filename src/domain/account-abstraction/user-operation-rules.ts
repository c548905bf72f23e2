import { type Address, formatEther } from 'viem'
import type { SignatureCheck } from '../delegation/delegation-rules.js'
import { describeRule, type RuleDescription } from '../screen/screen-rule.js'
import type { UserOperationOutcome } from './simulate-user-operation.js'
import type { UserOperationInput } from './user-operation.js'

/** What the user-operation rules read beside the transaction screen's findings. */
export interface UserOperationFacts {
  op: UserOperationInput
  outcome: UserOperationOutcome
  /** The signature was missing and a stub stood in. */
  stub: boolean
  /** Every gas limit and fee was given (else fees were zero in the simulation). */
  gasComplete: boolean
  prefund: bigint
  /** The timestamp of the block a bundler can include it in at the earliest: the next one. */
  blockTime: bigint
  serviceChainId: number
  /** The `eip7702Auth` signature check, when the operation carries one. */
  authorization: SignatureCheck | undefined
  /** The sender's nonce at the pinned block (what a bundler's type-4 transaction needs). */
  senderNonce: number
}

export interface UserOperationRule extends RuleDescription {
  evaluate(facts: UserOperationFacts): string[]
}

const executed = (f: UserOperationFacts) => (f.outcome.stage === 'executed' ? f.outcome : undefined)

export const useropSignatureInvalid: UserOperationRule = {
  id: 'userop-signature-invalid',
  severity: 'critical',
  title: "The operation's signature does not validate",
  checks:
    "The request carries a signature and, simulated through the EntryPoint (v0.7/v0.8), the account's `validateUserOp` reports it failed (`SIG_VALIDATION_FAILED`).",
  why: 'A bundler drops the operation (or handleOps reverts with AA24): signed by a key that is not the owner, or for other fields than these.',
  example: 'A SimpleAccount operation signed by a key that is not the account owner.',
  evaluate(f) {
    const e = executed(f)
    if (f.stub || e?.validation === undefined || !e.validation.account.failed) return []
    return [`${f.op.sender} rejects the signature (validateUserOp returned SIG_VALIDATION_FAILED).`]
  },
}

export const useropPaymasterRejects: UserOperationRule = {
  id: 'userop-paymaster-rejects',
  severity: 'critical',
  title: 'The paymaster rejects the operation',
  checks: "The paymaster's `validatePaymasterUserOp` reports a failed signature (v0.7/v0.8).",
  why: 'The operation cannot be included as it stands: whatever the paymaster was to pay for does not happen.',
  example: "A verifying paymaster's data signed for another operation.",
  evaluate(f) {
    const e = executed(f)
    if (e?.validation === undefined || !e.validation.paymaster.failed) return []
    return [`The paymaster ${f.op.paymaster ?? ''} rejects this operation.`]
  },
}

export const useropExpired: UserOperationRule = {
  id: 'userop-expired',
  severity: 'critical',
  title: 'The operation has expired',
  checks:
    "The validity window the account (or paymaster) returns ends before the next block's timestamp (the pinned block's + 2 s), the earliest a bundler can include the operation.",
  why: 'The EntryPoint refuses it (AA22/AA32): it can never be included.',
  example: 'An operation whose `validUntil` is an hour in the past.',
  evaluate(f) {
    const e = executed(f)
    if (e?.validation === undefined) return []
    return [e.validation.account, e.validation.paymaster]
      .filter((v) => v.validUntil !== 0n && v.validUntil < f.blockTime)
      .map((v) => `Valid until ${v.validUntil}, before the next block's timestamp ${f.blockTime}.`)
  },
}

export const useropNotYetValid: UserOperationRule = {
  id: 'userop-not-yet-valid',
  severity: 'warning',
  title: 'The operation is not valid yet',
  checks:
    "The validity window starts after the next block's timestamp (`validAfter`; the pinned block's + 2 s).",
  why: 'It sits with a bundler until then, and executes later under whatever state the chain has by that time.',
  example: 'An operation valid only from tomorrow.',
  evaluate(f) {
    const e = executed(f)
    if (e?.validation === undefined) return []
    return [e.validation.account, e.validation.paymaster]
      .filter((v) => v.validAfter > f.blockTime)
      .map((v) => `Valid from ${v.validAfter}; the next block's timestamp is ${f.blockTime}.`)
  },
}

export const useropAggregator: UserOperationRule = {
  id: 'userop-aggregator',
  severity: 'warning',
  title: 'The account defers its signature check to an aggregator',
  checks: '`validateUserOp` returns an aggregator address instead of a verdict.',
  why: 'The signature is judged by the aggregator contract, which this preflight does not run.',
  example: 'A BLS account naming its aggregator.',
  evaluate(f) {
    const e = executed(f)
    const aggregator: Address | undefined = e?.validation?.account.aggregator
    return aggregator === undefined ? [] : [`Signature aggregated by ${aggregator}.`]
  },
}

export const useropAuthorizationInvalid: UserOperationRule = {
  id: 'userop-eip7702-auth-invalid',
  severity: 'critical',
  title: "The operation's EIP-7702 authorization is not the sender's",
  checks:
    "`eip7702Auth` does not recover to the operation's sender, names a chain other than 0 and Base, or a nonce other than the sender's current one (the bundler, not the sender, sends the type-4 transaction).",
  why: "The bundler's type-4 transaction would not install the delegation the operation needs: it fails, or delegates another account.",
  example: 'An `eip7702Auth` signed by a key other than the sender.',
  evaluate(f) {
    const auth = f.op.authorization
    if (auth === undefined || f.authorization === undefined) return []
    const out: string[] = []
    if (f.authorization.status === 'mismatch') {
      out.push(
        `eip7702Auth recovers to ${f.authorization.recovered}, not the sender ${f.op.sender}.`,
      )
    } else if (f.authorization.status === 'malformed') {
      out.push(`eip7702Auth's signature cannot be recovered: ${f.authorization.reason}.`)
    }
    if (auth.chainId !== 0 && auth.chainId !== f.serviceChainId) {
      out.push(`eip7702Auth is for chain ${auth.chainId}, not Base (${f.serviceChainId}).`)
    }
    if (auth.nonce !== f.senderNonce) {
      out.push(
        `eip7702Auth's nonce is ${auth.nonce} but the sender's is ${f.senderNonce}: the chain skips it.`,
      )
    }
    return out
  },
}

export const useropExecutionOnly: UserOperationRule = {
  id: 'userop-execution-only',
  severity: 'info',
  title: 'EntryPoint v0.6: execution simulated, validation not',
  checks:
    'The operation is for EntryPoint v0.6, whose simulation entry point reverts with its result: the account is created and its call run from the EntryPoint, but `validateUserOp`, the prefund and the paymaster are not simulated.',
  why: 'The signature, the prefund and the paymaster are not checked for v0.6 operations.',
  example: 'A Coinbase Smart Wallet (v0.6) operation.',
  evaluate(f) {
    return f.op.version === '0.6'
      ? ['Validation, prefund and paymaster are not simulated for EntryPoint v0.6.']
      : []
  },
}

export const useropSignatureNotChecked: UserOperationRule = {
  id: 'userop-signature-not-checked',
  severity: 'info',
  title: 'No signature given: a stub stood in',
  checks:
    'The request has no `signature` (or `0x`); a well-formed signature by a throwaway key was used.',
  why: 'The answer judges what the operation does once signed; whether the real signature validates is not known.',
  example: 'An operation checked before the account signs it.',
  evaluate(f) {
    return f.stub
      ? ['Unsigned: validation ran with a stub signature, which the account rejects.']
      : []
  },
}

export const useropPrefundNotChecked: UserOperationRule = {
  id: 'userop-prefund-not-checked',
  severity: 'info',
  title: 'Gas fields missing: the prefund was not checked',
  checks:
    'A gas limit or fee is missing: the simulation used default limits and zero fees, so no prefund was taken.',
  why: 'Whether the account (or paymaster) can pay for the operation is not known.',
  example: 'An operation without `maxFeePerGas`.',
  evaluate(f) {
    return f.gasComplete || f.op.version === '0.6'
      ? []
      : ['Defaults for the missing gas limits and zero fees were simulated; no prefund was taken.']
  },
}

export const useropSponsored: UserOperationRule = {
  id: 'userop-sponsored',
  severity: 'info',
  title: 'A paymaster pays for the operation',
  checks: 'The operation names a paymaster.',
  why: 'The paymaster, not the account, pays the gas: check its terms (an ERC-20 paymaster takes tokens).',
  example: 'An operation with a verifying paymaster.',
  evaluate(f) {
    if (f.op.paymaster === undefined) return []
    const prefund = f.gasComplete ? ` up to ${formatEther(f.prefund)} ETH` : ''
    return [`${f.op.paymaster} pays the gas${prefund}.`]
  },
}

export const USER_OPERATION_RULES: readonly UserOperationRule[] = [
  useropSignatureInvalid,
  useropPaymasterRejects,
  useropExpired,
  useropAuthorizationInvalid,
  useropNotYetValid,
  useropAggregator,
  useropExecutionOnly,
  useropSignatureNotChecked,
  useropPrefundNotChecked,
  useropSponsored,
]

export const USER_OPERATION_RULE_CATALOGUE: readonly RuleDescription[] =
  USER_OPERATION_RULES.map(describeRule)

/**
 * Transaction rules that judge the envelope of a transaction the agent sends itself, which a
 * user operation does not have: its sender's ETH pays no gas of its own (the prefund is the
 * EntryPoint's check), and its gas is the operation's limits, not an estimate.
 */
export const ENVELOPE_RULES: ReadonlySet<string> = new Set([
  'insufficient-balance',
  'gas-estimation-failed',
  'gas-above-threshold',
  'gas-above-block-limit',
])
