import { z } from 'zod'
import { DEFAULT_NETWORK, NETWORK_NAMES, NETWORKS, type NetworkFacts } from '../types/networks.js'
import { ENVIRONMENTS, PAYMENT_REASON_CODES, RECEIPT_TYPE } from '../types/vocabulary.js'
import { ErrorIssueSchema } from './error-body.js'
import { address, addressText, decimal } from './primitives.js'
import { ReceiptEip712Schema } from './receipt.js'

/** One x402 v2 PaymentRequirements, as discovery lists it and the 402 carries it. */
export const PaymentRequirementsSchema = z
  .object({
    scheme: z.string(),
    network: z.string(),
    asset: addressText,
    amount: decimal,
    payTo: addressText,
    maxTimeoutSeconds: z.number().int(),
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'PaymentRequirements', description: 'x402 v2 PaymentRequirements.' })

/** The payment rail's readiness, as the 402 and discovery publish it. */
export const RailReadinessSchema = z
  .object({
    ready: z.boolean(),
    network: z.string(),
    asset: address,
    payTo: address,
    facilitator: z.object({
      kind: z.enum(['builtin', 'url', 'cdp']),
      url: z.string().optional().meta({
        description:
          'The facilitator origin (never its userinfo, path or query); absent for the built-in one.',
      }),
      supportsExactBase: z.boolean(),
      checkedAt: z.string().nullable(),
      error: z.string().optional(),
    }),
    receiptSigner: z.object({ configured: z.boolean(), address: address.nullable() }),
  })
  .meta({
    id: 'RailReadiness',
    description: `\`ready\` = the facilitator listed exact on ${DEFAULT_NETWORK.id} at its last (cached, background-refreshed) /supported check, and a receipt key is configured.`,
  })
export type RailReadiness = z.output<typeof RailReadinessSchema>

/** `GET /.well-known/x402`: the spec's fields (2.7), the exact offer, receipts, indexer fields. */
export const DiscoverySchema = z
  .object({
    version: z.literal(1).meta({ description: 'For x402scan-style indexers.' }),
    x402Version: z.literal(2),
    title: z.string(),
    description: z.string(),
    primaryPersona: z.string(),
    product: z.string(),
    route: z.string().startsWith('/').meta({ example: '/simulate/transaction-preflight' }),
    method: z.literal('POST'),
    url: z.url(),
    price: z.string().meta({ example: '$0.01' }),
    network: z.string().meta({ example: DEFAULT_NETWORK.id }),
    asset: addressText,
    amount: decimal,
    payTo: addressText,
    resources: z.array(z.url()).meta({ description: 'Absolute URLs of the paid resources.' }),
    accepts: z.array(PaymentRequirementsSchema),
    resource: z.object({ url: z.url(), description: z.string(), mimeType: z.string() }),
    firstCheckUrl: z.url(),
    quickstartUrl: z.url(),
    browserDemoUrl: z.url(),
    openapiUrl: z.url(),
    mcp: z.object({ url: z.url(), transport: z.literal('streamable-http') }),
    freeRoutes: z.array(
      z.object({ method: z.literal('POST'), path: z.string(), description: z.string() }),
    ),
    receipts: z.object({
      name: z.literal(RECEIPT_TYPE),
      url: z.string(),
      byAuthorizationUrl: z.string(),
      signer: address.meta({ description: 'The receipt key: verify receipts against it.' }),
      eip712: ReceiptEip712Schema,
    }),
    settlement: z.object({ railReadiness: RailReadinessSchema }),
    environment: z.enum(ENVIRONMENTS),
    devnet: devnetOf(z.literal(DEFAULT_NETWORK.chainIdHex)),
  })
  .meta({ id: 'Discovery' })

/**
 * Discovery as a service on `network` declares it (its OpenAPI document): the devnet's chain id
 * is that network's alone ({@link DiscoverySchema} itself on Base mainnet). A client parses any
 * service's discovery with {@link AnyNetworkDiscoverySchema}.
 */
export function discoverySchemaOn(network: NetworkFacts): typeof DiscoverySchema {
  if (network.chainIdHex === DEFAULT_NETWORK.chainIdHex) return DiscoverySchema
  // Typed as mainnet's: only the devnet's literal chain id differs, and nothing reads its type.
  return DiscoverySchema.extend({ devnet: devnetOf(z.literal(network.chainIdHex)) }).meta({
    id: 'Discovery',
  }) as unknown as typeof DiscoverySchema
}

/** Discovery as a client reads it: the served network's, whichever it is. */
export const AnyNetworkDiscoverySchema = DiscoverySchema.extend({
  devnet: devnetOf(z.enum(NETWORK_NAMES.map((name) => NETWORKS[name].chainIdHex))),
})
export type DiscoveryDocument = z.output<typeof AnyNetworkDiscoverySchema>

function devnetOf<C extends z.ZodType>(chainId: C) {
  return z
    .object({
      warning: z.string(),
      rpcUrl: z.url(),
      chainId,
      accounts: z.record(z.string(), z.object({ index: z.number().int(), address })),
    })
    .optional()
    .meta({ description: 'Only on the devnet: its RPC URL and the demo accounts (no key).' })
}

/** The 402 body of the paid route (spec 2.6) with our `reason` and `settlement.railReadiness`. */
export const PaymentChallengeSchema = z
  .object({
    error: z.literal('payment_required'),
    product: z.string(),
    price: z.string().meta({ example: '$0.01' }),
    network: z.string().meta({ example: DEFAULT_NETWORK.id }),
    firstCheckUrl: z.url(),
    quickstartUrl: z.url(),
    browserDemoUrl: z.url(),
    settlement: z.object({ railReadiness: RailReadinessSchema }),
    reason: z.enum(PAYMENT_REASON_CODES).meta({ description: 'Stable code: why this 402.' }),
    message: z.string(),
    facilitatorReason: z
      .string()
      .optional()
      .meta({ description: "The facilitator's own code, when it rejected the payment." }),
    issues: z
      .array(ErrorIssueSchema)
      .max(0)
      .meta({ description: 'As in every error body; always empty on a 402.' }),
    requestId: z.string().optional(),
  })
  .meta({ id: 'PaymentChallenge' })
export type PaymentChallenge = z.output<typeof PaymentChallengeSchema>
