import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'

/** Devnet USDC's EIP-712 domain (FiatToken v2 on Base). */
export const USDC_DOMAIN = {
  name: 'USD Coin',
  version: '2',
  chainId: 8453,
  verifyingContract: USDC_ADDRESS,
} as const

/** EIP-3009 `TransferWithAuthorization`, as devnet USDC checks it. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** EIP-3009 `CancelAuthorization`. */
export const CANCEL_AUTHORIZATION_TYPES = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** EIP-2612 `Permit`. */
export const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

/**
 * A typed-data preflight body for an EIP-2612 permit on devnet USDC: `signer` lets `spender`
 * take `value` (atomic units, as a decimal string) until a far deadline.
 */
export function usdcPermitRequest(signer: string, spender: string, value: string) {
  return {
    signer,
    typedData: {
      domain: USDC_DOMAIN,
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message: { owner: signer, spender, value, nonce: 0, deadline: '99999999999' },
    },
  }
}
