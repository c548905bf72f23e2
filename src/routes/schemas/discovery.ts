import { z } from '@hono/zod-openapi'
import { RailReadinessSchema } from './rail-readiness.js'

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)

/** One x402 v2 PaymentRequirements, as the 402 will carry it. */
const PaymentRequirementsSchema = z
  .object({
    scheme: z.string(),
    network: z.string(),
    asset: address,
    amount: z.string().regex(/^[0-9]+$/),
    payTo: address,
    maxTimeoutSeconds: z.number().int(),
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('PaymentRequirements', { description: 'x402 v2 PaymentRequirements.' })

/** `GET /.well-known/x402` (see `discoveryDocument`). */
export const DiscoverySchema = z
  .object({
    version: z.literal(1).openapi({ description: 'For x402scan-style indexers.' }),
    x402Version: z.literal(2),
    title: z.string(),
    description: z.string(),
    primaryPersona: z.string(),
    product: z.string(),
    route: z.string().openapi({ example: '/simulate/transaction-preflight' }),
    method: z.literal('POST'),
    url: z.url(),
    price: z.string().openapi({ example: '$0.01' }),
    network: z.string().openapi({ example: 'eip155:8453' }),
    asset: address,
    amount: z.string().regex(/^[0-9]+$/),
    payTo: address,
    resources: z.array(z.url()).openapi({ description: 'Absolute URLs of the paid resources.' }),
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
      name: z.literal('PRE_SEND_PROOF_RECEIPT'),
      url: z.string(),
      byAuthorizationUrl: z.string(),
      signer: address.openapi({ description: 'The receipt key: verify receipts against it.' }),
      eip712: z.object({
        domain: z.object({ name: z.string(), version: z.string(), chainId: z.number() }),
        primaryType: z.string(),
        types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
      }),
    }),
    settlement: z.object({ railReadiness: RailReadinessSchema }),
    environment: z.enum(['devnet', 'mainnet']),
    devnet: z
      .object({
        warning: z.string(),
        rpcUrl: z.url(),
        chainId: z.literal('0x2105'),
        accounts: z.record(z.string(), z.object({ index: z.number().int(), address })),
      })
      .optional()
      .openapi({ description: 'Only on the devnet: its RPC URL and the demo accounts (no key).' }),
  })
  .openapi('Discovery')
