import type { SignedAuthorization } from '@pre-send-guard/client/schemas'
import type { Hex } from 'viem'
import { checksummed } from '../../domain/evm/checksummed.js'
import type { SignedAuthorizationInput } from '../../domain/screen/context.js'

/** A hex quantity (signature parts in RPC form drop leading zeros) as a 32-byte word. */
export function toWord(quantity: string): Hex {
  return `0x${BigInt(quantity).toString(16).padStart(64, '0')}`
}

/** A validated signed EIP-7702 tuple, normalised: checksummed delegate, bigints, 32-byte r/s. */
export function toSignedAuthorization(a: SignedAuthorization): SignedAuthorizationInput {
  return {
    address: checksummed(a.address),
    chainId: BigInt(a.chainId),
    nonce: BigInt(a.nonce),
    yParity: BigInt(a.yParity) === 1n ? 1 : 0,
    r: toWord(a.r),
    s: toWord(a.s),
  }
}
