import { z } from 'zod'
import { AnyNetworkDiscoverySchema } from '../schemas/discovery.js'
import { ErrorBodySchema } from '../schemas/error-body.js'
import { PaidPreflightResponseSchema } from '../schemas/preflight.js'

/**
 * How the client reads what a guard answers. The answers themselves (preflight, bundle,
 * typed-data, paid answer, receipt, evidence, error body) are parsed with the very schemas the
 * service serves them with (`../schemas`, also `@pre-send-guard/client/schemas`). The readers
 * below are for what the buyer judges field by field before paying (discovery, the 402 body,
 * the x402 headers): they accept a missing or odd field so that it fails a named check
 * (`checkChallenge`, `verifyReceipt`) instead of the whole read.
 */

export {
  type AuthorizationResult,
  AuthorizationResultSchema,
  type BundleResult,
  BundleResultSchema,
  type Finding,
  FindingSchema,
  type PageEvidence,
  PageEvidenceSchema,
  type PreflightResult,
  PreflightResultSchema,
  type Receipt,
  ReceiptSchema,
  type TypedDataResult,
  TypedDataResultSchema,
  type UserOperationResult,
  UserOperationResultSchema,
} from '../schemas/index.js'

/** The 200 body of the paid route (the shared schema). */
export const PaidResponseSchema = PaidPreflightResponseSchema

/** One x402 v2 payment requirement (an entry of `accepts`). */
export const OfferRequirementsSchema = z.looseObject({
  scheme: z.string(),
  network: z.string(),
  asset: z.string(),
  amount: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
})

/** The decoded `PAYMENT-REQUIRED` header (x402 v2 PaymentRequired). */
export const PaymentRequiredSchema = z.looseObject({
  x402Version: z.number(),
  error: z.string().optional(),
  resource: z.looseObject({ url: z.string() }),
  accepts: z.array(OfferRequirementsSchema),
  extensions: z.record(z.string(), z.unknown()).optional(),
})
export type PaymentRequiredOffer = z.infer<typeof PaymentRequiredSchema>

/** The decoded `PAYMENT-RESPONSE` header (x402 SettleResponse). */
export const SettlementSchema = z.looseObject({
  success: z.boolean(),
  transaction: z.string(),
  network: z.string(),
  payer: z.string().optional(),
  errorReason: z.string().optional(),
})
export type Settlement = z.infer<typeof SettlementSchema>

/** The 402 body (spec 2.6); every field optional here so a bad one fails a named check instead. */
export const ChallengeBodySchema = z.looseObject({
  error: z.string().optional(),
  product: z.string().optional(),
  price: z.string().optional(),
  network: z.string().optional(),
  firstCheckUrl: z.string().optional(),
  quickstartUrl: z.string().optional(),
  browserDemoUrl: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  settlement: z.looseObject({ railReadiness: z.unknown() }).optional(),
})
export type ChallengeBody = z.infer<typeof ChallengeBodySchema>

/**
 * `GET /.well-known/x402`, read for the buyer's checks: each field has its shape from the
 * shared {@link DiscoverySchema}; the spec's fields (2.7) are required, the exact offer
 * (`asset`, `amount`, `accepts`), the onboarding URLs and the receipt signer may be missing, and
 * the checks that need them then fail by name.
 */
const discovery = AnyNetworkDiscoverySchema.shape
export const DiscoveryReaderSchema = z.looseObject({
  title: discovery.title,
  primaryPersona: discovery.primaryPersona.optional(),
  route: discovery.route,
  price: discovery.price,
  network: discovery.network,
  payTo: discovery.payTo,
  asset: discovery.asset.optional(),
  amount: discovery.amount.optional(),
  accepts: discovery.accepts.optional(),
  quickstartUrl: discovery.quickstartUrl.optional(),
  browserDemoUrl: discovery.browserDemoUrl.optional(),
  firstCheckUrl: discovery.firstCheckUrl.optional(),
  receipts: discovery.receipts.partial({ byAuthorizationUrl: true }).loose().optional(),
  environment: discovery.environment.optional(),
  devnet: discovery.devnet.unwrap().partial().required({ rpcUrl: true }).loose().optional(),
})
export type Discovery = z.infer<typeof DiscoveryReaderSchema>

/**
 * A non-2xx body, read to name the failure: the shared error body, with `error` open-ended (a
 * newer guard may add codes; they are API once published), `issues` optional, and the 402's
 * `reason` when present.
 */
export const ErrorReplySchema = ErrorBodySchema.extend({
  error: z.string(),
  issues: ErrorBodySchema.shape.issues.optional(),
  reason: z.string().optional(),
})
