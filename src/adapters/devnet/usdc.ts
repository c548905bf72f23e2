import {
  type Address,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  type Hash,
  http,
  maxUint256,
  parseAbi,
  parseEther,
  publicActions,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BASE_MAINNET } from '../../domain/network/network-profile.js'
import { DEVNET_ACCOUNTS } from './accounts.js'
import { devnetRpc } from './rpc.js'

/** USDC on Base mainnet; the devnet places DevnetUSDC's runtime code here. */
export const USDC_ADDRESS: Address = BASE_MAINNET.usdc.address

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
export async function fundUsdc(
  rpcUrl: string,
  to: Address,
  amount: bigint,
  /** The network's USDC address (Base mainnet's when absent). */
  usdc: Address = USDC_ADDRESS,
): Promise<Hash> {
  const rpc = devnetRpc(rpcUrl)
  const masterMinter = await rpc
    .read<[Address]>(usdc, fiatTokenAbi, 'masterMinter', [])
    .then(([address]) => address)
    .catch(() => undefined)
  if (!masterMinter) return mintDevnetUsdc(rpcUrl, to, amount, usdc)
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
        to: usdc,
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
        to: usdc,
        data: encodeFunctionData({ abi: fiatTokenAbi, functionName: 'mint', args: [to, amount] }),
      },
      'USDC mint',
    ),
  )
  return hash
}

const mintAbi = parseAbi(['function mint(address to, uint256 amount) returns (bool)'])

/**
 * Mints DevnetUSDC (atomic units) to `to` from the devnet minter and waits for the receipt.
 * Needs the devnet's USDC in place (`prepareDevnet`).
 */
export async function mintDevnetUsdc(
  rpcUrl: string,
  to: Address,
  amount: bigint,
  /** Where the DevnetUSDC is (the network's USDC address); Base mainnet's when absent. */
  usdc: Address = USDC_ADDRESS,
): Promise<Hash> {
  // Anvil mines each transaction on submission; poll fast instead of viem's multi-second default.
  const transport = http(rpcUrl, { retryCount: 0 })
  const test = createTestClient({ mode: 'anvil', transport, pollingInterval: 50 }).extend(
    publicActions,
  )
  const minter = createWalletClient({
    account: privateKeyToAccount(DEVNET_ACCOUNTS.usdcMinter.privateKey),
    transport,
    pollingInterval: 50,
  })
  const hash = await minter.writeContract({
    chain: null,
    address: usdc,
    abi: mintAbi,
    functionName: 'mint',
    args: [to, amount],
  })
  const receipt = await test.waitForTransactionReceipt({ hash, timeout: 10_000 })
  if (receipt.status !== 'success') throw new Error(`DevnetUSDC mint reverted in ${hash}`)
  return hash
}
