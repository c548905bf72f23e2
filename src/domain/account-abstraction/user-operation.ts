import { type Address, concat, type Hex, size, slice } from 'viem'
import {
  getUserOperationHash,
  toPackedUserOperation,
  type UserOperation,
} from 'viem/account-abstraction'
import { privateKeyToAccount } from 'viem/accounts'
import { ENTRY_POINTS, type EntryPointVersion } from './entry-points.js'

/** An EIP-7702 authorization carried by a user operation (`eip7702Auth`), signed. */
export interface UserOperationAuthorization {
  address: Address
  chainId: number
  nonce: number
  yParity: 0 | 1
  r: Hex
  s: Hex
}

/**
 * A user operation as the guard simulates it: validated, with every field present. Gas and fee
 * fields the request left out are `undefined` here and filled by {@link simulationFields}.
 */
export interface UserOperationInput {
  version: EntryPointVersion
  entryPoint: Address
  sender: Address
  nonce: bigint
  callData: Hex
  /** A factory address, `0x7702` (an EIP-7702 account), or undefined (deployed). */
  factory?: Address | '0x7702'
  factoryData?: Hex
  callGasLimit?: bigint
  verificationGasLimit?: bigint
  preVerificationGas?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  paymaster?: Address
  paymasterVerificationGasLimit?: bigint
  paymasterPostOpGasLimit?: bigint
  paymasterData?: Hex
  /** Absent (or `0x`): simulated with a stub signature, and said so. */
  signature?: Hex
  authorization?: UserOperationAuthorization
}

/** Gas the simulation assumes for a limit the request left out. */
export const DEFAULT_GAS = {
  callGasLimit: 10_000_000n,
  verificationGasLimit: 2_000_000n,
  preVerificationGas: 100_000n,
  paymasterVerificationGasLimit: 500_000n,
  paymasterPostOpGasLimit: 200_000n,
} as const

/** The signature of the fields a simulation starts from: empty until signed (the request's or the stub's). */
const NO_SIGNATURE: Hex = '0x'

/**
 * A throwaway key whose signature stands in for a missing one: well formed, so an ECDSA account
 * reports a failed signature (`SIG_VALIDATION_FAILED`) instead of reverting, and the rest of
 * validation and the execution still run. Public on purpose: it signs for nobody.
 */
const STUB_SIGNER = privateKeyToAccount(
  '0x5354554253494732303236000000000000000000000000000000000000000001',
)

/** True when every gas limit and fee is given: the prefund the chain would take can be judged. */
export function gasComplete(op: UserOperationInput): boolean {
  const base =
    op.callGasLimit !== undefined &&
    op.verificationGasLimit !== undefined &&
    op.preVerificationGas !== undefined &&
    op.maxFeePerGas !== undefined &&
    op.maxPriorityFeePerGas !== undefined
  if (!base) return false
  if (op.paymaster === undefined || op.version === '0.6') return true
  return op.paymasterVerificationGasLimit !== undefined && op.paymasterPostOpGasLimit !== undefined
}

/**
 * The operation in viem's shape, as simulated. A missing gas limit takes {@link DEFAULT_GAS};
 * when any is missing the fees are zero, so no prefund is taken (a made-up limit must not fail
 * an account for money it would never be asked for), and the answer says the prefund was not
 * checked.
 */
export function simulationFields(op: UserOperationInput): UserOperation {
  const complete = gasComplete(op)
  const fields = {
    sender: op.sender,
    nonce: op.nonce,
    callData: op.callData,
    callGasLimit: op.callGasLimit ?? DEFAULT_GAS.callGasLimit,
    verificationGasLimit: op.verificationGasLimit ?? DEFAULT_GAS.verificationGasLimit,
    preVerificationGas: op.preVerificationGas ?? DEFAULT_GAS.preVerificationGas,
    maxFeePerGas: complete ? (op.maxFeePerGas ?? 0n) : 0n,
    maxPriorityFeePerGas: complete ? (op.maxPriorityFeePerGas ?? 0n) : 0n,
    signature: NO_SIGNATURE,
  }
  if (op.version === '0.6') {
    return {
      ...fields,
      initCode: op.factory === undefined ? '0x' : concat([op.factory, op.factoryData ?? '0x']),
      paymasterAndData:
        op.paymaster === undefined ? '0x' : concat([op.paymaster, op.paymasterData ?? '0x']),
    } as UserOperation<'0.6'>
  }
  return {
    ...fields,
    ...(op.factory !== undefined
      ? { factory: op.factory, factoryData: op.factoryData ?? '0x' }
      : {}),
    ...(op.paymaster !== undefined
      ? {
          paymaster: op.paymaster,
          paymasterVerificationGasLimit:
            op.paymasterVerificationGasLimit ?? DEFAULT_GAS.paymasterVerificationGasLimit,
          paymasterPostOpGasLimit:
            op.paymasterPostOpGasLimit ?? DEFAULT_GAS.paymasterPostOpGasLimit,
          paymasterData: op.paymasterData ?? '0x',
        }
      : {}),
    ...(op.authorization !== undefined ? { authorization: op.authorization } : {}),
  } as UserOperation<'0.7'>
}

/** The operation's hash as its EntryPoint computes it (EIP-712 from v0.8). */
export function userOperationHash(op: UserOperationInput, chainId: number): Hex {
  return getUserOperationHash({
    chainId,
    entryPointAddress: op.entryPoint,
    entryPointVersion: op.version,
    userOperation: simulationFields(op) as UserOperation<typeof op.version>,
  })
}

/**
 * The operation as simulated: the request's fields (defaults filled), with its signature or,
 * when it has none, the stub signer's signature over the hash (EIP-191 for v0.6/v0.7, whose
 * reference accounts sign the eth-signed hash; the raw hash from v0.8).
 */
export async function simulatedOperation(
  op: UserOperationInput,
  chainId: number,
): Promise<{ operation: UserOperation; hash: Hex; stub: boolean }> {
  const operation = simulationFields(op)
  const hash = userOperationHash(op, chainId)
  if (op.signature !== undefined)
    return { operation: { ...operation, signature: op.signature }, hash, stub: false }
  const signature =
    op.version === '0.8'
      ? await STUB_SIGNER.sign({ hash })
      : await STUB_SIGNER.signMessage({ message: { raw: hash } })
  return { operation: { ...operation, signature }, hash, stub: true }
}

/** The v0.7/v0.8 packed form `simulateHandleOp` takes. */
export function packed(operation: UserOperation) {
  return toPackedUserOperation(operation)
}

/** The most ETH the EntryPoint takes up front (wei): gas limits times `maxFeePerGas`. */
export function requiredPrefund(op: UserOperationInput): bigint {
  const f = simulationFields(op) as UserOperation & {
    paymasterVerificationGasLimit?: bigint
    paymasterPostOpGasLimit?: bigint
  }
  const fee = f.maxFeePerGas ?? 0n
  const base = (f.callGasLimit ?? 0n) + (f.preVerificationGas ?? 0n)
  if (op.version === '0.6') {
    const multiplier = op.paymaster === undefined ? 1n : 3n
    return (base + (f.verificationGasLimit ?? 0n) * multiplier) * fee
  }
  return (
    (base +
      (f.verificationGasLimit ?? 0n) +
      (f.paymasterVerificationGasLimit ?? 0n) +
      (f.paymasterPostOpGasLimit ?? 0n)) *
    fee
  )
}

/** The canonical EntryPoint of a version. */
export function entryPointOf(version: EntryPointVersion): Address {
  return ENTRY_POINTS[version]
}

/** Splits v0.6 `initCode` / `paymasterAndData` into address and data. */
export function splitAddressPrefixed(data: Hex): { address: Address; rest: Hex } | undefined {
  if (data === '0x' || size(data) < 20) return undefined
  return {
    // At least 20 bytes (checked above): the first 20 are the address.
    address: slice(data, 0, 20),
    rest: size(data) === 20 ? '0x' : slice(data, 20),
  }
}
