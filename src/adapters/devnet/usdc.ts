import {
  type Address,
  encodeFunctionData,
  type Hash,
  maxUint256,
  parseAbi,
  parseEther,
  toHex,
} from 'viem'
import { devnetRpc } from './rpc.js'

/** USDC on Base mainnet; the devnet places DevnetUSDC's runtime code here. */
export const USDC_ADDRESS: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

const fiatTokenAbi = parseAbi([
  'function masterMinter() view returns (address)',
  'function configureMinter(address minter, uint256 minterAllowedAmount) returns (bool)',
  'function mint(address to, uint256 amount) returns (bool)',
])

/** Mints USDC on a fork through the account that holds Circle's FiatToken minter role. */
const FORK_MINTER: Address = '0x00000000000000000000000000000000000D3911'

/**
 * Gives `to` `amount` USDC (atomic units) on a devnet. On the devnet's own USDC (DevnetUSDC at
 * the USDC address) its minter mints. On a fork of Base the USDC is Circle's FiatToken: its
 * `masterMinter` (impersonated) makes a devnet account a minter, which mints. Resolves with
 * the minting transaction.
 */
export async function fundUsdc(rpcUrl: string, to: Address, amount: bigint): Promise<Hash> {
  const rpc = devnetRpc(rpcUrl)
  const masterMinter = await rpc
    .read<[Address]>(USDC_ADDRESS, fiatTokenAbi, 'masterMinter', [])
    .then(([address]) => address)
    .catch(() => undefined)
  if (!masterMinter) {
    // Loaded on use: prepare.ts carries the devnet's contract artifacts.
    const { mintDevnetUsdc } = await import('./prepare.js')
    return mintDevnetUsdc(rpcUrl, to, amount)
  }
  const impersonated = async <T>(from: Address, run: () => Promise<T>): Promise<T> => {
    await rpc.call('anvil_setBalance', [from, toHex(parseEther('1'))])
    await rpc.call('anvil_impersonateAccount', [from])
    try {
      return await run()
    } finally {
      await rpc.call('anvil_stopImpersonatingAccount', [from])
    }
  }
  await impersonated(masterMinter, () =>
    rpc.send(
      {
        from: masterMinter,
        to: USDC_ADDRESS,
        data: encodeFunctionData({
          abi: fiatTokenAbi,
          functionName: 'configureMinter',
          args: [FORK_MINTER, maxUint256],
        }),
      },
      'USDC configureMinter',
    ),
  )
  const { hash } = await impersonated(FORK_MINTER, () =>
    rpc.send(
      {
        from: FORK_MINTER,
        to: USDC_ADDRESS,
        data: encodeFunctionData({ abi: fiatTokenAbi, functionName: 'mint', args: [to, amount] }),
      },
      'USDC mint',
    ),
  )
  return hash
}
