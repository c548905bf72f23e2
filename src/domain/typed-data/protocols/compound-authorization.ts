import { fields, type ProtocolKind } from '../kind-definition.js'
import { addr, int } from '../typed-message.js'

/**
 * Compound III's `allowBySig` message (`AUTHORIZATION_TYPEHASH` of CometExt), under a Comet
 * market's domain: its `name()` (`Compound USDC`...), version `0`. Every Comet market is its
 * own verifying contract, so the address is not fixed. A manager may withdraw and transfer
 * everything the owner has in that market (`allow(manager, true)`).
 */
export const compoundAuthorization: ProtocolKind = {
  kind: 'compound-authorization',
  standardName: 'Authorization',
  primaryType: 'Authorization',
  types: {
    Authorization: fields(
      'address owner,address manager,bool isAllowed,uint256 nonce,uint256 expiry',
    ),
  },
  domain: { fields: ['name', 'version', 'chainId', 'verifyingContract'], version: '0' },
  read(m, { verifyingContract }) {
    const owner = addr(m.owner)
    return {
      operator: {
        protocol: 'Compound III',
        path: 'manager',
        operator: addr(m.manager),
        granted: m.isAllowed === true,
        power: `withdraw and transfer everything ${owner} supplied to the Comet market ${verifyingContract}, collateral included`,
      },
      grants: [],
      deadlines: [{ field: 'expiry', value: int(m.expiry), never: false }],
      nonces: [{ kind: 'counter', owner, expected: int(m.nonce), getter: 'userNonce' }],
      tokens: [],
    }
  },
}
