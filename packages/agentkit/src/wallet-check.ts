import type { GuardCheck, TypedDataCheck } from '@pre-send-guard/client/viem'
import type { PolicyViolation } from './spend-policy.js'

/**
 * What the guard said about one thing the wrapped wallet provider was asked to do, with what
 * the spend policy found in it: a transaction (`sendTransaction`, `nativeTransfer`,
 * `signTransaction`; for a smart wallet, the call its user operation makes) or typed data
 * (`signTypedData`).
 */
export type WalletCheck =
  | { kind: 'transaction'; check: GuardCheck; violations: PolicyViolation[] }
  | { kind: 'typed-data'; check: TypedDataCheck; violations: PolicyViolation[] }
