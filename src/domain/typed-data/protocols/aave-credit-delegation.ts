import { fields, type ProtocolKind } from '../kind-definition.js'
import { addr, int } from '../typed-message.js'

/**
 * Aave v3's credit delegation by signature (`DebtTokenBase.DELEGATION_WITH_SIG_TYPEHASH`),
 * under a debt token's domain: its name, version `1` (`EIP712Base.EIP712_REVISION`). The
 * delegator is the signer (it is not in the message); the delegatee may then borrow up to
 * `value` of the underlying asset against the delegator's collateral, the debt being the
 * delegator's. Every debt token is its own verifying contract, so the address is not fixed.
 */
export const aaveCreditDelegation: ProtocolKind = {
  kind: 'aave-credit-delegation',
  standardName: 'DelegationWithSig',
  primaryType: 'DelegationWithSig',
  types: {
    DelegationWithSig: fields('address delegatee,uint256 value,uint256 nonce,uint256 deadline'),
  },
  domain: { fields: ['name', 'version', 'chainId', 'verifyingContract'], version: '1' },
  read(m, { signer, verifyingContract }) {
    const value = int(m.value)
    return {
      operator: {
        protocol: 'Aave v3',
        path: 'delegatee',
        operator: addr(m.delegatee),
        granted: value > 0n,
        power: `borrow against the collateral of ${signer}, the debt being ${signer}'s`,
        amount: { token: verifyingContract, value },
      },
      grants: [],
      deadlines: [{ field: 'deadline', value: int(m.deadline), never: false }],
      nonces: [{ kind: 'counter', owner: signer, expected: int(m.nonce) }],
      tokens: [verifyingContract],
    }
  },
}
