import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createDevnetFaucet } from '../../src/adapters/devnet/faucet.js'

/** A fresh account on the devnet at `rpcUrl`, holding `ethWei` (5 ETH by default) and no USDC. */
export async function ethFundedAccount(rpcUrl: string, ethWei = parseEther('5')) {
  const account = privateKeyToAccount(generatePrivateKey())
  await createDevnetFaucet(rpcUrl)({ address: account.address, ethWei, usdc: 0n })
  return account
}
