import { ROUTES } from '@pre-send-guard/client/types'
import type { PaymentRequirements, ResourceInfo } from '@x402/core/types'
import type { Address } from 'viem'
import { BASE_MAINNET, type NetworkProfile } from '../network/network-profile.js'

/** The product sold on the paid route (the 402 body's `product`). */
export const PRODUCT = 'evm-transaction-preflight'
/** Price per call, as the 402 body and discovery advertise it. */
export const PRICE = '$0.01'
/** CAIP-2 id of Base mainnet, the default network (a service takes payments on its own). */
export const PAYMENT_NETWORK = BASE_MAINNET.id
/** USDC on Base mainnet (the devnet places its EIP-3009 token at the same address). */
export const USDC_BASE: Address = BASE_MAINNET.usdc.address
/** $0.01 in USDC atomic units (6 decimals). */
export const PRICE_ATOMIC = '10000'
/** EIP-712 domain of USDC on `network`, which the buyer signs its EIP-3009 authorization under. */
export function usdcEip712(network: NetworkProfile): { name: string; version: string } {
  return { name: network.usdc.name, version: network.usdc.version }
}

/** EIP-712 domain of USDC on Base mainnet. */
export const USDC_EIP712 = usdcEip712(BASE_MAINNET)
/**
 * How long an authorization must stay valid for us: long enough for verify, the preflight and
 * settlement with confirmation. x402's default, so stock clients sign compatible payments.
 */
export const MAX_TIMEOUT_SECONDS = 300
/** x402's requirements with the two addresses typed: the offer is built from checked ones. */
export type OfferRequirements = PaymentRequirements & { asset: Address; payTo: Address }

/**
 * The one x402 v2 offer of the paid route: exact scheme, the network's USDC, $0.01, to `payTo`.
 * Equal to what `@x402/evm`'s ExactEvmScheme derives from `$0.01` on the network (a test holds
 * them together); built here so the challenge never depends on the facilitator answering.
 */
export function paymentRequirements(
  payTo: Address,
  network: NetworkProfile = BASE_MAINNET,
): OfferRequirements {
  return {
    scheme: 'exact',
    network: network.id,
    asset: network.usdc.address,
    amount: PRICE_ATOMIC,
    payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: usdcEip712(network),
  }
}

/** The `resource` of the challenge: absolute URL of the paid route on `baseUrl`. */
export function paidResource(
  baseUrl: string,
): ResourceInfo & Required<Pick<ResourceInfo, 'description' | 'mimeType'>> {
  return {
    url: `${baseUrl}${ROUTES.paidTransactionPreflight}`,
    description:
      'EVM transaction preflight on Base: simulates the transaction (never broadcasts), reports revert risk, gas and fees (L2 + L1 data fee), screens calldata, and returns a verdict with a signed PRE_SEND_PROOF_RECEIPT.',
    mimeType: 'application/json',
  }
}
