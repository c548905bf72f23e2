/**
 * `@pre-send-guard/client/viem`: the guard in front of a viem wallet client
 * (`withPreSendGuard`) and of an account's `signTypedData` (`withTypedDataGuard`), and the
 * errors they refuse with (all `PreSendGuardBaseError`s).
 */
export type {
  AuthorizationCheck,
  BatchCheck,
  GuardCheck,
  GuardMode,
  TypedDataCheck,
} from './guard-checks.js'
export {
  GuardUnavailableError,
  PreSendGuardError,
  SignatureBlockedError,
  SignatureNeedsReviewError,
  TransactionBlockedError,
  TransactionNeedsReviewError,
  TransactionNotCheckableError,
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
