/**
 * `@pre-send-guard/client/client`: the typed HTTP client of the guard (free and paid routes),
 * the spec's challenge check, receipt verification and the package's one base error.
 */
export { PreSendGuardBaseError } from './base-error.js'
export {
  BASE_USDC,
  type ChallengeCheck,
  type ChallengeCheckName,
  type ChallengeChecks,
  type CheckChallengeOptions,
  checkChallenge,
  DEFAULT_MAX_PAYMENT,
  INFORMATIONAL_EXTENSIONS,
  MAX_TIMEOUT_SECONDS,
} from './check-challenge.js'
export { createGuardClient } from './guard-client.js'
export { type GuardClientErrorCode, GuardError } from './guard-error.js'
export type {
  AuthorizationResult,
  BundleResult,
  ChallengeBody,
  Discovery,
  PageEvidence,
  PaymentRequiredOffer,
  PreflightResult,
  Receipt,
  Settlement,
  TypedDataResult,
  UserOperationResult,
} from './guard-responses.js'
export {
  AUTHORIZATION_PREFLIGHT_PATH,
  type AuthorizationRequest,
  BUNDLE_PREFLIGHT_PATH,
  type BundleRequest,
  DISCOVERY_PATH,
  EVIDENCE_PATH,
  type GuardClient,
  type GuardClientOptions,
  type GuardPayer,
  PAID_PREFLIGHT_PATH,
  type PaidPreflight,
  type PaidPreflightOptions,
  READ_ONLY_PREFLIGHT_PATH,
  type TransactionRequest,
  TYPED_DATA_PREFLIGHT_PATH,
  type TypedDataJson,
  type TypedDataRequest,
  type UnpaidChallenge,
  USER_OPERATION_PREFLIGHT_PATH,
  type UserOperationRequest,
} from './guard-types.js'
export { BASE_NETWORK } from './paid-preflight.js'
export {
  type OfferReceiptBinding,
  type OfferReceiptCheck,
  type OfferReceiptCheckName,
  type OfferReceiptVerification,
  offerReceiptOf,
  verifyOfferReceipt,
} from './verify-offer-receipt.js'
export {
  canonicalJson,
  canonicalJsonHash,
  RECEIPT_TYPE,
  type ReceiptBinding,
  type ReceiptCheck,
  type ReceiptCheckName,
  type ReceiptVerification,
  SIGNED_RECEIPT_FIELDS,
  verifyReceipt,
} from './verify-receipt.js'
