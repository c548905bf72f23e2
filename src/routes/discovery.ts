import type { OpenAPIHono } from '@hono/zod-openapi'
import { discoverySchemaOn } from '@pre-send-guard/client/schemas'
import { ROUTES } from '@pre-send-guard/client/types'
import type { DevnetDescription } from '../domain/discovery/discovery-document.js'
import { discoveryDocument } from '../domain/discovery/discovery-document.js'
import { BASE_MAINNET, type NetworkProfile } from '../domain/network/network-profile.js'
import { railReadiness } from '../domain/payment/challenge.js'
import type { PaymentRail } from '../domain/payment/payment-rail.js'
import { type ReceiptSigner, receiptVerification } from '../domain/receipt/receipt.js'
import { publicBaseUrl } from '../http/base-url.js'

/** Mounts `GET /.well-known/x402` (unauthenticated). */
export function registerDiscovery(
  app: OpenAPIHono,
  deps: {
    publicBaseUrl: string | undefined
    environment: 'devnet' | 'mainnet'
    /** The served network (the receipts' EIP-712 domain); Base mainnet when absent. */
    network?: NetworkProfile
    rail: PaymentRail
    receiptSigner: ReceiptSigner
    devnet: DevnetDescription | undefined
  },
): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: ROUTES.discovery,
    operationId: 'getDiscovery',
    tags: ['discovery'],
    summary: 'The x402 discovery document',
    description:
      'What the paid route costs and where it lives (compare it with the 402 before paying), the free routes, how to verify receipts, and on the devnet its RPC URL. Unauthenticated, never cached.',
    responses: {
      200: {
        description: 'The discovery document.',
        content: {
          'application/json': { schema: discoverySchemaOn(deps.network ?? BASE_MAINNET) },
        },
      },
    },
  })
  app.get(ROUTES.discovery, (c) => {
    const signer = deps.receiptSigner.address
    const doc = discoveryDocument({
      baseUrl: publicBaseUrl(c, deps.publicBaseUrl),
      environment: deps.environment,
      requirements: deps.rail.requirements,
      readiness: railReadiness({ rail: deps.rail, receiptSigner: signer }),
      receipts: receiptVerification(signer, deps.network),
      ...(deps.devnet ? { devnet: deps.devnet } : {}),
    })
    c.header('Cache-Control', 'no-store')
    return c.json(doc)
  })
}
