import { z } from '@hono/zod-openapi'

/** The payment rail's readiness, as the 402 and discovery publish it. */
export const RailReadinessSchema = z
  .object({
    ready: z.boolean(),
    network: z.string(),
    asset: z.string(),
    payTo: z.string(),
    facilitator: z.object({
      kind: z.enum(['builtin', 'url', 'cdp']),
      url: z.string().optional(),
      supportsExactBase: z.boolean(),
      checkedAt: z.string().nullable(),
      error: z.string().optional(),
    }),
    receiptSigner: z.object({ configured: z.boolean(), address: z.string().nullable() }),
  })
  .openapi('RailReadiness', {
    description:
      '`ready` = the facilitator listed exact on eip155:8453 at its last (cached, background-refreshed) /supported check, and a receipt key is configured.',
  })
