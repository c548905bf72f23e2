/**
 * `@pre-send-guard/client/schemas`: every request and answer of the guard and the zod primitives
 * they are made of, declared once in plain zod (the hex/address patterns and the route paths are
 * `/types`'s). The service builds its routes and its OpenAPI document from these very objects
 * (their `.meta()` ids are the document's component names) and types its domain with their
 * `z.output`; the client parses what a guard answers with them and types what it sends with the
 * requests' `z.input`, and the MCP tools take the request schemas as their input. So the served
 * contract, the service's types and the buyer's checks cannot drift apart.
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
export { type AuthorizationResult, AuthorizationResultSchema } from './delegation.js'
export {
  AnyNetworkDiscoverySchema,
  type DiscoveryDocument,
  DiscoverySchema,
  discoverySchemaOn,
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
  OwnerPowerSchema,
  type PaidPreflightResponse,
  PaidPreflightResponseSchema,
  type PreflightResult,
  PreflightResultSchema,
  type ReceivedTokenFacts,
  ReceivedTokenFactsSchema,
  type TransactionReport,
  TransactionReportSchema,
} from './preflight.js'
export {
  address,
  addressOf,
  boundedHexOf,
  bytes32,
  bytes32Of,
  bytesOf,
  decimal,
  hex,
  hexOf,
  nonEmptyBytesOf,
  PinnedBlockSchema,
} from './primitives.js'
export {
  type Receipt,
  ReceiptEip712Schema,
  ReceiptSchema,
} from './receipt.js'
export {
  type AuthorizationRequest,
  AuthorizationRequestSchema,
  type AuthorizationTuple,
  AuthorizationTupleSchema,
  type BundleRequestBody,
  BundleRequestSchema,
  Eip7702AuthSchema,
  type EvidenceRequestBody,
  EvidenceRequestSchema,
  OPENAPI_REQUEST_BODIES,
  requestBodiesOn,
  type SignedAuthorization,
  SignedAuthorizationSchema,
  StateOverrideSchema,
  type TransactionRequestBody,
  TransactionRequestSchema,
  type TypedDataRequestBody,
  TypedDataRequestSchema,
  transactionFields,
  transactionRequestOn,
  type UserOperationRequest,
  UserOperationRequestSchema,
  type UserOperationRpc,
  UserOperationRpcSchema,
} from './requests.js'
export { type DecodedValue, type TypedDataResult, TypedDataResultSchema } from './typed-data.js'
export { type UserOperationResult, UserOperationResultSchema } from './user-operation.js'
