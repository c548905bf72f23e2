import { type Hex, keccak256, stringToBytes } from 'viem'
import type { Authorization } from './decode-payment.js'

/** The ledger's payment id: the identity of an authorization (EIP-3009 nonces are unique per payer and token). */
export function authorizationId(
  network: string,
  asset: string,
  auth: Pick<Authorization, 'payer' | 'nonce'>,
): Hex {
  const key = [network, asset, auth.payer, auth.nonce].map((s) => s.toLowerCase()).join('/')
  return keccak256(stringToBytes(key))
}
