import type { OpenAPIHono } from '@hono/zod-openapi'
import type { DevnetDescription } from '../domain/discovery/discovery-document.js'
import { discoveryDocument } from '../domain/discovery/discovery-document.js'
import { railReadiness } from '../domain/payment/challenge.js'
import type { PaymentRail } from '../domain/payment/payment-rail.js'
import { type ReceiptSigner, receiptVerification } from '../domain/receipt/receipt.js'
import { publicBaseUrl } from '../http/base-url.js'

export const DISCOVERY_PATH = '/.well-known/x402'

/** Mounts `GET /.well-known/x402` (unauthenticated). */
export function registerDiscovery(
  app: OpenAPIHono,
  deps: {
    publicBaseUrl: string | undefined
    environment: 'devnet' | 'mainnet'
    rail: PaymentRail
    receiptSigner: ReceiptSigner
    devnet: DevnetDescription | undefined
  },
): void {
  app.get(DISCOVERY_PATH, (c) => {
    const signer = deps.receiptSigner.address
    const doc = discoveryDocument({
      baseUrl: publicBaseUrl(c, deps.publicBaseUrl),
      environment: deps.environment,
      requirements: deps.rail.requirements,
      readiness: railReadiness({ rail: deps.rail, receiptSigner: signer }),
      receipts: receiptVerification(signer),
      ...(deps.devnet ? { devnet: deps.devnet } : {}),
    })
    c.header('Cache-Control', 'no-store')
    return c.json(doc)
  })
}
