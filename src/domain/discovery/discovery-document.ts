import type { DiscoveryDocument } from '@pre-send-guard/client/schemas'
import { DEFAULT_NETWORK, networkById, ROUTES } from '@pre-send-guard/client/types'
import type { PaymentRequirements } from '@x402/core/types'
import type { Address } from 'viem'
import { onboardingUrls } from '../payment/challenge.js'
import { PRICE, PRODUCT, paidResource } from '../payment/offer.js'
import type { RailReadiness } from '../payment/payment-rail.js'
import type { ReceiptVerification } from '../receipt/receipt.js'

/** Who the service is for, as discovery's `primaryPersona` states it. */
export const PRIMARY_PERSONA = 'programmatic EVM agent builders'

/** What discovery says about the embedded devnet, so a newcomer can point a wallet at it. */
export interface DevnetDescription {
  rpcUrl: string
  accounts: Record<string, { index: number; address: Address }>
}

/** Inputs of {@link discoveryDocument}: all facts the service already holds. */
export interface DiscoveryInputs {
  baseUrl: string
  environment: 'devnet' | 'mainnet'
  requirements: PaymentRequirements
  readiness: RailReadiness
  receipts: ReceiptVerification
  devnet?: DevnetDescription
}

/**
 * The `/.well-known/x402` document: the spec's fields (2.7), the exact x402 v2 offer the unpaid
 * 402 will carry (so a client can check the challenge against it before paying), the fields
 * x402scan-style indexers read (`version: 1`, `resources` as absolute URLs), where the OpenAPI
 * document is (its paid operation carries `x-payment-info`), how to verify receipts, and on
 * the devnet its RPC URL.
 */
export function discoveryDocument(input: DiscoveryInputs): DiscoveryDocument {
  const { baseUrl } = input
  const network = networkById(input.requirements.network) ?? DEFAULT_NETWORK
  const urls = onboardingUrls(baseUrl)
  return {
    version: 1,
    x402Version: 2,
    title: 'Pre-Send Guard: EVM transaction preflight on Base',
    description:
      'Before an agent signs: will the transaction revert, what will it cost (L2 execution + L1 data fee), and is anything about it dangerous? Simulates and screens; never broadcasts.',
    primaryPersona: PRIMARY_PERSONA,
    product: PRODUCT,
    route: ROUTES.paidTransactionPreflight,
    method: 'POST',
    url: `${baseUrl}${ROUTES.paidTransactionPreflight}`,
    price: PRICE,
    network: input.requirements.network,
    asset: input.requirements.asset,
    amount: input.requirements.amount,
    payTo: input.requirements.payTo,
    // x402scan-style indexers read `version` and `resources` as the absolute URLs of the paid
    // resources; each answers an unpaid call with the 402 carrying `extensions.bazaar`.
    resources: [`${baseUrl}${ROUTES.paidTransactionPreflight}`],
    accepts: [input.requirements],
    resource: paidResource(baseUrl),
    ...urls,
    openapiUrl: `${baseUrl}${ROUTES.openapi}`,
    // The same routes as MCP tools (the paid one under x402's MCP convention).
    mcp: { url: `${baseUrl}${ROUTES.mcp}`, transport: 'streamable-http' },
    freeRoutes: [
      {
        method: 'POST',
        path: ROUTES.transactionPreflight,
        description: 'Read-only Base preflight with a sign/review/block verdict. No payment.',
      },
      {
        method: 'POST',
        path: ROUTES.bundlePreflight,
        description:
          'Read-only Base bundle preflight: 1-8 transactions simulated in order (approve then swap), optional state overrides, net effects and one verdict. No payment.',
      },
      {
        method: 'POST',
        path: ROUTES.evidence,
        description: 'One public URL to bounded, SHA-256-hashed markdown. No payment.',
      },
      {
        method: 'POST',
        path: ROUTES.typedDataPreflight,
        description:
          'EIP-712 typed data (eth_signTypedData_v4) screened before signing, with a sign/review/block verdict. No payment.',
      },
      {
        method: 'POST',
        path: ROUTES.userOperationPreflight,
        description:
          'An ERC-4337 user operation (EntryPoint v0.6/v0.7/v0.8, viem JSON-RPC form) simulated through its EntryPoint and judged before it is signed or sent: validation, prefund, effects and every inner call of execute/executeBatch, with a sign/review/block verdict. No payment.',
      },
      {
        method: 'POST',
        path: ROUTES.authorizationPreflight,
        description:
          "An EIP-7702 authorization judged before it is signed or sent: signer, chain, nonce, and a behaviour probe of the delegate (does it sweep incoming ETH, can a stranger or a hard-coded address move the account's assets), with a sign/review/block verdict. No payment.",
      },
    ],
    receipts: {
      name: 'PRE_SEND_PROOF_RECEIPT',
      url: `${baseUrl}${ROUTES.receipt}`,
      byAuthorizationUrl: `${baseUrl}${ROUTES.receiptByAuthorization}`,
      ...input.receipts,
    },
    settlement: { railReadiness: input.readiness },
    environment: input.environment,
    ...(input.devnet
      ? {
          devnet: {
            warning: `DEVNET: a local anvil chain shaped like ${network.label} (chain id ${network.chainId}). Not ${network.label}; nothing here is real money.`,
            rpcUrl: input.devnet.rpcUrl,
            chainId: network.chainIdHex,
            // Picked field by field: whatever a caller passes, no key ever reaches the document.
            accounts: Object.fromEntries(
              Object.entries(input.devnet.accounts).map(([role, { index, address }]) => [
                role,
                { index, address },
              ]),
            ),
          },
        }
      : {}),
  }
}

/** The discovery document (declared once, in the client package's schemas). */
export type { DiscoveryDocument }
