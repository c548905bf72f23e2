import type { Address } from 'viem'
import { fields, type ProtocolKind } from '../kind-definition.js'
import { addr, int } from '../typed-message.js'

/** Morpho Blue on Base (and Ethereum). */
const MORPHO_BLUE: Address = '0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb'

/**
 * Morpho Blue's `setAuthorizationWithSig` message (`AUTHORIZATION_TYPEHASH` of ConstantsLib),
 * under the deployed contract's domain `EIP712Domain(uint256 chainId,address verifyingContract)`
 * (no name, no version). An authorized account may borrow, withdraw and withdraw collateral
 * on behalf of the authorizer on every market, to any receiver.
 */
export const morphoAuthorization: ProtocolKind = {
  kind: 'morpho-authorization',
  standardName: 'Authorization',
  primaryType: 'Authorization',
  types: {
    Authorization: fields(
      'address authorizer,address authorized,bool isAuthorized,uint256 nonce,uint256 deadline',
    ),
  },
  domain: { fields: ['chainId', 'verifyingContract'], verifyingContract: MORPHO_BLUE },
  read(m) {
    const authorizer = addr(m.authorizer)
    return {
      operator: {
        protocol: 'Morpho Blue',
        path: 'authorized',
        operator: addr(m.authorized),
        granted: m.isAuthorized === true,
        power: `borrow against, withdraw and withdraw the collateral of every Morpho Blue position of ${authorizer}, to any receiver`,
      },
      grants: [],
      deadlines: [{ field: 'deadline', value: int(m.deadline), never: false }],
      nonces: [{ kind: 'counter', owner: authorizer, expected: int(m.nonce), getter: 'nonce' }],
      tokens: [],
    }
  },
}
