import { type Address, encodeFunctionData, maxUint256, parseUnits } from 'viem'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../src/adapters/devnet/prepare.js'
import { clients, deploy } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup, CorpusTx } from '../corpus-case.js'

/**
 * An ERC-4626 vault: OpenZeppelin 5.7.0 `ERC4626` (contracts/test/TestVault.sol, artifact
 * contracts/artifacts/TestVault.json built by `npm run build:contracts` from the
 * `@openzeppelin/contracts@5.7.0` devDependency) over devnet USDC at the real Base USDC address.
 * Shares are an ERC-20 of the vault itself (6 decimals, decimals offset 0). The sender holds
 * USDC, has approved the vault and owns 1,000 shares from an earlier deposit.
 */

const usdc = (amount: string) => parseUnits(amount, 6)

export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const me = sender.address
  const vault = await deploy(rpcUrl, 'TestVault', [USDC_ADDRESS], deployer)
  const { publicClient, walletClient } = clients(rpcUrl, sender)
  const asSender = async (address: Address, functionName: string, args: readonly unknown[]) => {
    const hash = await walletClient.writeContract({
      address,
      abi: vault.abi,
      functionName,
      args: args as unknown[],
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted`)
  }
  await mintDevnetUsdc(rpcUrl, me, usdc('5000'))
  // The vault's ABI includes the ERC-20 approve of its shares; USDC's approve has the same shape.
  await asSender(USDC_ADDRESS, 'approve', [vault.address, maxUint256])
  await asSender(vault.address, 'deposit', [usdc('1000'), me])
  const shares = (await publicClient.readContract({
    address: vault.address,
    abi: vault.abi,
    functionName: 'balanceOf',
    args: [me],
  })) as bigint
  if (shares !== usdc('1000')) throw new Error(`unexpected share balance ${shares}`)

  const tx = (functionName: string, args: readonly unknown[]): CorpusTx => ({
    from: me,
    to: vault.address,
    data: encodeFunctionData({ abi: vault.abi, functionName, args }),
  })
  const cases: CorpusCase[] = [
    {
      name: 'erc4626.deposit',
      protocol: 'erc4626',
      category: 'receipt',
      benign: tx('deposit', [usdc('100'), me]),
      twin: tx('deposit', [usdc('100'), stranger]),
      twinIs: 'stranger as receiver (the shares are minted to the stranger)',
    },
    {
      name: 'erc4626.mint',
      protocol: 'erc4626',
      category: 'receipt',
      benign: tx('mint', [usdc('100'), me]),
      twin: tx('mint', [usdc('100'), stranger]),
      twinIs: 'stranger as receiver (the shares are minted to the stranger)',
    },
    {
      name: 'erc4626.withdraw',
      protocol: 'erc4626',
      category: 'claim',
      benign: tx('withdraw', [usdc('100'), me, me]),
      twin: tx('withdraw', [usdc('100'), stranger, me]),
      twinIs: "stranger as receiver (the sender's shares burn, the stranger gets the USDC)",
    },
    {
      name: 'erc4626.redeem',
      protocol: 'erc4626',
      category: 'claim',
      benign: tx('redeem', [usdc('100'), me, me]),
      twin: tx('redeem', [usdc('100'), stranger, me]),
      twinIs: "stranger as receiver (the sender's shares burn, the stranger gets the USDC)",
    },
    {
      name: 'erc4626.redeem-all',
      protocol: 'erc4626',
      category: 'claim',
      benign: tx('redeem', [shares, me, me]),
      twin: tx('redeem', [shares, stranger, me]),
      twinIs: "stranger as receiver (all the sender's shares burn, the stranger gets the USDC)",
    },
  ]
  return cases
}
