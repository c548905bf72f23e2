import { type Address, type Hex, isAddress } from 'viem'
import { z } from 'zod'
import { ENVIRONMENTS, SEVERITIES, VERDICTS } from '../types/index.js'

/**
 * Schemas for what the guard answers. Loose on purpose: they check the fields the buyer kit
 * relies on and keep everything else, so the service can add fields without breaking buyers.
 */

const address = z.custom<Address>(
  (v) => typeof v === 'string' && isAddress(v, { strict: false }),
  'expected a 0x-prefixed 20-byte address',
)
const hex = z.custom<Hex>(
  (v) => typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v),
  'expected 0x-prefixed hex',
)
const bytes32 = z.custom<Hex>(
  (v) => typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v),
  'expected 32 bytes of hex',
)
const decimal = z.string().regex(/^[0-9]+$/, 'expected a decimal integer string')

/** One explained finding of the risk screen (see docs/rules.md). */
export const FindingSchema = z.looseObject({
  id: z.string(),
  severity: z.enum(SEVERITIES),
  title: z.string(),
  detail: z.string(),
  path: z.string().optional(),
})
export type Finding = z.infer<typeof FindingSchema>

/** A preflight answer (read-only route, and `result` of the paid route). */
export const PreflightResultSchema = z.looseObject({
  verdict: z.enum(VERDICTS),
  findings: z.array(FindingSchema),
  environment: z.enum(ENVIRONMENTS),
  chainId: z.string(),
  network: z.string(),
  block: z.looseObject({ number: z.string(), hash: hex, timestamp: z.string() }),
  call: z.looseObject({
    success: z.boolean(),
    returnData: hex.optional(),
    message: z.string().optional(),
  }),
  gas: z.looseObject({ success: z.boolean(), estimate: z.string().nullable() }),
  fees: z.looseObject({
    baseFeePerGas: decimal,
    maxPriorityFeePerGas: decimal,
    maxFeePerGas: decimal,
    totalCost: decimal,
    totalCostMax: decimal,
    totalCostPlusValue: decimal,
  }),
  /** What execution does; optional so answers of guards without effects still parse. */
  effects: z
    .looseObject({
      available: z.boolean(),
      reason: z.string().optional(),
      senderNet: z.looseObject({ summary: z.string() }).optional(),
    })
    .optional(),
})
export type PreflightResult = z.infer<typeof PreflightResultSchema>

/** A bundle preflight answer (`POST /payanagent/v1/base-bundle-preflight`). */
export const BundleResultSchema = z.looseObject({
  verdict: z.enum(VERDICTS),
  hypothetical: z.boolean(),
  environment: z.enum(ENVIRONMENTS),
  block: z.looseObject({ number: z.string(), hash: hex, timestamp: z.string() }),
  transactions: z.array(
    z.looseObject({
      verdict: z.enum(VERDICTS),
      findings: z.array(FindingSchema),
      fees: PreflightResultSchema.shape.fees,
    }),
  ),
  netEffects: z.array(z.looseObject({ sender: address, summary: z.string() })),
})
export type BundleResult = z.infer<typeof BundleResultSchema>

/** A signed PRE_SEND_PROOF_RECEIPT. Its `signer` is a claim: verify against discovery. */
export const ReceiptSchema = z.looseObject({
  type: z.string(),
  id: z.string(),
  requestHash: bytes32,
  responseHash: bytes32,
  verdict: z.string(),
  chainId: decimal,
  blockNumber: decimal,
  blockHash: bytes32,
  settlementTx: bytes32,
  payer: address,
  payTo: address,
  asset: address,
  amount: decimal,
  network: z.string(),
  issuedAt: decimal,
  signer: address,
  signature: hex,
})
export type Receipt = z.infer<typeof ReceiptSchema>

/** The 200 body of the paid route. */
export const PaidResponseSchema = z.looseObject({
  result: PreflightResultSchema,
  receipt: ReceiptSchema,
})

/** One x402 v2 payment requirement (an entry of `accepts`). */
export const PaymentRequirementsSchema = z.looseObject({
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
  accepts: z.array(PaymentRequirementsSchema),
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

/** The EIP-712 definition discovery publishes for receipts. */
const Eip712Schema = z.looseObject({
  domain: z.looseObject({
    name: z.string(),
    version: z.string(),
    chainId: z.number(),
  }),
  primaryType: z.string(),
  types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
})

/**
 * `GET /.well-known/x402`. The spec's fields (2.7) are required; the exact offer (`asset`,
 * `amount`, `accepts`) and the receipt signer are optional here, and checks that need them fail
 * by name when a discovery document lacks them.
 */
export const DiscoverySchema = z.looseObject({
  title: z.string(),
  primaryPersona: z.string().optional(),
  route: z.string().startsWith('/'),
  price: z.string(),
  network: z.string(),
  payTo: address,
  asset: address.optional(),
  amount: decimal.optional(),
  accepts: z.array(PaymentRequirementsSchema).optional(),
  quickstartUrl: z.string().optional(),
  browserDemoUrl: z.string().optional(),
  firstCheckUrl: z.string().optional(),
  receipts: z
    .looseObject({ name: z.string(), url: z.string(), signer: address, eip712: Eip712Schema })
    .optional(),
  environment: z.enum(ENVIRONMENTS).optional(),
  devnet: z
    .looseObject({
      rpcUrl: z.string(),
      chainId: z.string().optional(),
      accounts: z
        .record(z.string(), z.looseObject({ index: z.number().int(), address }))
        .optional(),
    })
    .optional(),
})
export type Discovery = z.infer<typeof DiscoverySchema>

/** A typed-data preflight answer (`POST /payanagent/v1/base-typed-data-preflight`). */
export const TypedDataResultSchema = z.looseObject({
  verdict: z.enum(VERDICTS),
  findings: z.array(FindingSchema),
  environment: z.enum(ENVIRONMENTS),
  chainId: z.string(),
  block: z.looseObject({ number: z.string(), hash: hex, timestamp: z.string() }),
  signer: address,
  kind: z.string(),
  typedData: z.looseObject({ primaryType: z.string(), digest: bytes32 }),
})
export type TypedDataResult = z.infer<typeof TypedDataResultSchema>

/** The public-page evidence answer (spec 2.3). */
export const PageEvidenceSchema = z.looseObject({
  markdown: z.string(),
  title: z.string().nullable(),
  sourceUrl: z.string(),
  finalUrl: z.string().nullable().optional(),
  truncated: z.boolean(),
  originalChars: z.number().optional(),
  returnedChars: z.number().optional(),
  fetchedAt: z.string().optional(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
})
export type PageEvidence = z.infer<typeof PageEvidenceSchema>

/** The service's one error body. */
export const ErrorBodySchema = z.looseObject({
  error: z.string(),
  message: z.string(),
  issues: z.array(z.looseObject({ path: z.string(), message: z.string() })).optional(),
  requestId: z.string().optional(),
  reason: z.string().optional(),
})
