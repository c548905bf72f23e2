import { encodeFunctionData, erc20Abi } from 'viem'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../src/adapters/devnet/prepare.js'

/** The devnet's funded buyer: the sender of every plain preflight. */
export const BUYER = DEVNET_ACCOUNTS.buyer.address
/** Anvil account #2: the ETH and USDC recipient. */
export const PERSON = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
/** Anvil account #3: the approved spender. */
export const SPENDER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'

/**
 * A distinct read-only preflight input for each `k`, cycling through the first `kinds` of: an
 * ETH transfer, a USDC transfer, a USDC approve; each with its own amount (`k + 1`).
 */
export function plainPreflightBody(k: number, kinds: 2 | 3 = 3) {
  const amount = BigInt(k + 1)
  switch (k % kinds) {
    case 0:
      return { from: BUYER, to: PERSON, data: '0x', value: `0x${amount.toString(16)}` }
    case 1:
      return {
        from: BUYER,
        to: USDC_ADDRESS,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'transfer',
          args: [PERSON, amount],
        }),
        value: '0x0',
      }
    default:
      return {
        from: BUYER,
        to: USDC_ADDRESS,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [SPENDER, amount],
        }),
        value: '0x0',
      }
  }
}
