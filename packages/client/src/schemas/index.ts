/**
 * `@pre-send-guard/client/schemas`: every answer of the guard, declared once in plain zod. The
 * service builds its routes and its OpenAPI document from these very objects (their `.meta()`
 * ids are the document's component names) and types its domain with their `z.output`; the
 * client parses what a guard answers with them. So the served contract, the service's types and
 * the buyer's checks cannot drift apart.
 */
export {
  type DecodedArg,
  type DecodedCall,
  DecodedCallSchema,
  type DecodedRevert,
  DecodedRevertSchema,
  type JsonValue,
  type KnownCall,
  type NestedCall,
  type RevertReport,
  RevertSchema,
  UNDECODED_REASONS,
  type UndecodedReason,
  type UnknownCall,
} from './calldata.js'
export {
  type AuthorizationRequest,
  AuthorizationRequestSchema,
  type AuthorizationResult,
  AuthorizationResultSchema,
  type AuthorizationTuple,
  AuthorizationTupleSchema,
  type SignedAuthorization,
  SignedAuthorizationSchema,
} from './delegation.js'
export {
  type DiscoveryDocument,
  DiscoverySchema,
  type PaymentChallenge,
  PaymentChallengeSchema,
  PaymentRequirementsSchema,
  type RailReadiness,
  RailReadinessSchema,
} from './discovery.js'
export {
  type ErrorBody,
  ErrorBodySchema,
  ErrorCodeSchema,
  type ErrorIssue,
  ErrorIssueSchema,
} from './error-body.js'
export { type PageEvidence, PageEvidenceSchema } from './evidence.js'
export {
  AccountChangesSchema,
  type AccountReport,
  ApprovalChangeSchema,
  type ApprovalReport,
  AssetChangeSchema,
  type AssetReport,
  type BundleResult,
  BundleResultSchema,
  type ChangeReport,
  EffectAssetSchema,
  type EffectsReport,
  ExecutionEffectsSchema,
  FeeContextSchema,
  type Finding,
  FindingSchema,
  type PaidPreflightResponse,
  PaidPreflightResponseSchema,
  type PreflightResult,
  PreflightResultSchema,
  type ReceivedTokenFactsReport,
  ReceivedTokenFactsSchema,
  type TransactionReport,
  TransactionReportSchema,
} from './preflight.js'
export { address, bytes32, decimal, hex, PinnedBlockSchema } from './primitives.js'
export {
  type Receipt,
  ReceiptEip712Schema,
  ReceiptSchema,
} from './receipt.js'
export {
  type BundleRequestBody,
  BundleRequestSchema,
  type EvidenceRequestBody,
  EvidenceRequestSchema,
  StateOverrideSchema,
  type TransactionRequestBody,
  TransactionRequestSchema,
  type TypedDataRequestBody,
  TypedDataRequestSchema,
  transactionFields,
} from './requests.js'
export { type DecodedValue, type TypedDataResult, TypedDataResultSchema } from './typed-data.js'
export {
  Eip7702AuthSchema,
  type UserOperationRequest,
  UserOperationRequestSchema,
  type UserOperationResult,
  UserOperationResultSchema,
  type UserOperationRpc,
  UserOperationRpcSchema,
} from './user-operation.js'
