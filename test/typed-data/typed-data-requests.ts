import { type Address, getAddress, parseEther } from 'viem'
import { MULTICALL3_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { testAccount } from '../support/contracts.js'
import { PERMIT_SINGLE_TYPES, PERMIT2_ADDRESS } from '../support/typed-data-kinds.js'
import { PERMIT_TYPES } from '../support/usdc-typed-data.js'
import type { TypedDataChain } from './typed-data-chain.js'

/** Requests the typed-data tests build: permits signed by {@link OWNER}. */

export const owner = testAccount(7)
export const OWNER = owner.address
/** Never used on the devnet: no code. */
export const NOBODY: Address = getAddress('0x00000000000000000000000000000000c0dec0de')
/** A contract spender (Multicall3 is on the devnet). */
export const ROUTER = MULTICALL3_ADDRESS
export const MAX_UINT160 = 2n ** 160n - 1n
export const ZERO: Address = '0x0000000000000000000000000000000000000000'

const PERMIT2_DOMAIN_TYPES = [
  { name: 'name', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]

/** A Permit2 `PermitSingle` over the chain's test token, as a dapp sends it (EIP712Domain included). */
export function permitSingle(
  chain: TypedDataChain,
  o: {
    spender: Address
    amount: bigint
    expiration: bigint
    sigDeadline?: bigint
    nonce?: number
    verifyingContract?: Address
  },
) {
  return {
    signer: OWNER,
    typedData: {
      domain: {
        name: 'Permit2',
        chainId: 8453,
        verifyingContract: o.verifyingContract ?? PERMIT2_ADDRESS,
      },
      types: { EIP712Domain: PERMIT2_DOMAIN_TYPES, ...PERMIT_SINGLE_TYPES },
      primaryType: 'PermitSingle',
      message: {
        details: {
          token: chain.token,
          amount: o.amount.toString(),
          expiration: o.expiration.toString(),
          nonce: o.nonce ?? 0,
        },
        spender: o.spender,
        sigDeadline: (o.sigDeadline ?? chain.now + 1800n).toString(),
      },
    },
  }
}

/** An EIP-2612 `Permit`, by default on the chain's test token in its own domain. */
export function permit(
  chain: TypedDataChain,
  o: {
    name?: string
    version?: string
    chainId?: number
    verifyingContract?: Address
    spender?: Address
    value?: bigint
    nonce?: number
    deadline?: bigint
  },
) {
  return {
    signer: OWNER,
    typedData: {
      domain: {
        name: o.name ?? 'Test Token',
        version: o.version ?? '1',
        chainId: o.chainId ?? 8453,
        verifyingContract: o.verifyingContract ?? chain.token,
      },
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message: {
        owner: OWNER,
        spender: o.spender ?? ROUTER,
        value: (o.value ?? parseEther('100')).toString(),
        nonce: o.nonce ?? 0,
        deadline: (o.deadline ?? chain.now + 1800n).toString(),
      },
    },
  }
}
