import type { PaymentRequirements } from '@x402/core/types'
import { authorizationTypes } from '@x402/evm'
import { type Address, type Hex, isAddressEqual, recoverTypedDataAddress } from 'viem'
import type { Authorization } from './decode-payment.js'

/**
 * What a payment's signature proves without any I/O:
 * - `signer`: a 65-byte ECDSA signature that recovers to `authorization.from` over the offer's
 *   EIP-712 domain: only the holder of that key made it (an EOA payer, or an EIP-7702 account
 *   signing with its own key);
 * - `unproven`: anything else. It may still be genuine: an ERC-1271 contract payer (Coinbase
 *   Smart Wallet, Safe: USDC then calls `isValidSignature` on `from`) or an ERC-6492 wrapped
 *   signature of an undeployed wallet. Only the chain can tell, so only verify decides.
 */
export type SignatureProof = 'signer' | 'unproven'

/** 65 bytes as hex: `0x` and 130 digits. */
const ECDSA_SIGNATURE_LENGTH = 132

/**
 * Recovers the signer of the EIP-3009 `TransferWithAuthorization` a payment carries, under the
 * offer's USDC domain (`extra.name`/`extra.version`, the network's chain id, the asset as
 * verifying contract: what the token checks), and compares it with `authorization.from`.
 * CPU only (one secp256k1 recovery); never throws.
 */
export async function proveSignature(
  authorization: Authorization,
  signature: Hex,
  offer: Pick<PaymentRequirements, 'network' | 'extra'> & { asset: Address },
): Promise<SignatureProof> {
  if (signature.length !== ECDSA_SIGNATURE_LENGTH) return 'unproven'
  const chainId = /^eip155:([0-9]{1,15})$/.exec(offer.network)?.[1]
  const { name, version } = offer.extra ?? {}
  if (!chainId || typeof name !== 'string' || typeof version !== 'string') return 'unproven'
  try {
    const signer = await recoverTypedDataAddress({
      domain: { name, version, chainId: Number(chainId), verifyingContract: offer.asset },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: authorization.payer,
        to: authorization.to,
        value: authorization.value,
        validAfter: authorization.validAfter,
        validBefore: authorization.validBefore,
        nonce: authorization.nonce,
      },
      signature,
    })
    return isAddressEqual(signer, authorization.payer) ? 'signer' : 'unproven'
  } catch {
    // Not a recoverable ECDSA signature (bad v, r or s): only a contract could accept it.
    return 'unproven'
  }
}
