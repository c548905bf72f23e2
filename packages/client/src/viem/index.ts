/**
 * `@pre-send-guard/client/viem`: the guard in front of a viem wallet client
 * (`withPreSendGuard`), of an ERC-4337 bundler client (`withPreSendGuardBundler`) and of an
 * account's `signTypedData` (`withTypedDataGuard`), and the errors they refuse with (all
 * `PreSendGuardBaseError`s).
 */

export {
  type AnyBundlerClient,
  type PreSendGuardBundlerActions,
  type PreSendGuardBundlerOptions,
  withPreSendGuardBundler,
} from './bundler-guard.js'
export type {
  AuthorizationCheck,
  BatchCheck,
  GuardCheck,
  GuardMode,
  TypedDataCheck,
  UserOperationCheck,
} from './guard-checks.js'
export {
  ChainMismatchError,
  GuardUnavailableError,
  PreSendGuardError,
  SignatureBlockedError,
  SignatureNeedsReviewError,
  TransactionBlockedError,
  TransactionNeedsReviewError,
  TransactionNotCheckableError,
  UserOperationBlockedError,
  UserOperationNeedsReviewError,
} from './pre-send-guard-errors.js'
export {
  createTypedDataJudge,
  isGuardedAccount,
  type TypedDataGuardOptions,
  type TypedDataJudge,
  toTypedDataJson,
  withTypedDataGuard,
} from './typed-data-guard.js'
export {
  DEFAULT_MAX_SUGGESTED_FEE_PER_GAS,
  type PreSendGuardActions,
  type PreSendGuardOptions,
  withPreSendGuard,
} from './viem-guard.js'
