import {
  type Address,
  createTestClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  maxUint256,
  parseAbi,
  parseEther,
  parseUnits,
} from 'viem'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../src/adapters/devnet/prepare.js'
import { clients, loadArtifact } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup, CorpusTx } from '../corpus-case.js'

/**
 * Compound III's cUSDCv3 Comet at its Base address, on a contract of our own that implements
 * Comet's published interface (contracts/test/Comet.sol; no npm package ships Comet): USDC as
 * the base, WETH as collateral. Supplying the base mints cUSDCv3 to the account credited;
 * collateral and a repaid or opened borrow show no token at all, only the Comet's storage
 * (`positionChanges`). Each twin names a stranger as `dst`, `to` or the manager allowed.
 */
const COMET = getAddress('0xb125E6687d4313864e53df431d5425969c15Eb2F')
const WETH: Address = '0x4200000000000000000000000000000000000006'

const ABI = parseAbi([
  'function supply(address asset, uint256 amount)',
  'function supplyTo(address dst, address asset, uint256 amount)',
  'function supplyFrom(address from, address dst, address asset, uint256 amount)',
  'function withdraw(address asset, uint256 amount)',
  'function withdrawTo(address to, address asset, uint256 amount)',
  'function withdrawFrom(address src, address to, address asset, uint256 amount)',
  'function allow(address manager, bool isAllowed)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function deposit() payable',
])

export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
  await test.setCode({ address: COMET, bytecode: loadArtifact('CometStandIn').deployedBytecode })
  const send = async (
    account: typeof sender,
    to: Address,
    functionName: string,
    args: readonly unknown[],
    value = 0n,
  ) => {
    const { walletClient, publicClient } = clients(rpcUrl, account)
    const data = encodeFunctionData({ abi: ABI, functionName, args } as never)
    const hash = await walletClient.sendTransaction({ to, data, value })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`compound: ${functionName} reverted`)
  }
  const me = sender.address
  // Lenders' USDC for borrowers to borrow.
  await mintDevnetUsdc(rpcUrl, deployer.address, parseUnits('100000', 6))
  await send(deployer, USDC_ADDRESS, 'approve', [COMET, maxUint256])
  await send(deployer, COMET, 'supply', [USDC_ADDRESS, parseUnits('100000', 6)])
  // The sender's own earlier actions: 1,000 USDC supplied, 2 WETH of collateral, both tokens
  // approved to the Comet for more.
  await mintDevnetUsdc(rpcUrl, me, parseUnits('5000', 6))
  await send(sender, WETH, 'deposit', [], parseEther('4'))
  await send(sender, USDC_ADDRESS, 'approve', [COMET, maxUint256])
  await send(sender, WETH, 'approve', [COMET, maxUint256])
  await send(sender, COMET, 'supply', [USDC_ADDRESS, parseUnits('1000', 6)])
  await send(sender, COMET, 'supply', [WETH, parseEther('2')])

  const tx = (data: Hex): CorpusTx => ({ from: me, to: COMET, data })
  const call = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: ABI, functionName, args } as never)
  const pair = (functionName: string, args: (who: Address) => readonly unknown[]) => ({
    benign: tx(call(functionName, args(me))),
    twin: tx(call(functionName, args(stranger))),
  })
  const usdc = (amount: string) => parseUnits(amount, 6)

  const cases: CorpusCase[] = [
    {
      name: 'compound.supply-usdc',
      protocol: 'compound',
      category: 'receipt',
      benign: tx(call('supply', [USDC_ADDRESS, usdc('100')])),
    },
    {
      name: 'compound.supply-usdc-to',
      protocol: 'compound',
      category: 'receipt',
      ...pair('supplyTo', (dst) => [dst, USDC_ADDRESS, usdc('100')]),
      twinIs: 'stranger as `dst` (the supplied USDC is credited to a stranger)',
    },
    {
      name: 'compound.supply-collateral',
      protocol: 'compound',
      category: 'receipt',
      benign: tx(call('supply', [WETH, parseEther('0.5')])),
    },
    {
      name: 'compound.supply-collateral-to',
      protocol: 'compound',
      category: 'receipt',
      ...pair('supplyTo', (dst) => [dst, WETH, parseEther('0.5')]),
      twinIs: 'stranger as `dst` (the WETH collateral is credited to a stranger)',
    },
    {
      name: 'compound.supply-from-self',
      protocol: 'compound',
      category: 'receipt',
      ...pair('supplyFrom', (dst) => [me, dst, USDC_ADDRESS, usdc('100')]),
      twinIs: 'stranger as `dst` (the sender’s USDC is credited to a stranger)',
    },
    {
      name: 'compound.withdraw-usdc',
      protocol: 'compound',
      category: 'claim',
      benign: tx(call('withdraw', [USDC_ADDRESS, usdc('50')])),
    },
    {
      name: 'compound.withdraw-usdc-to',
      protocol: 'compound',
      category: 'claim',
      ...pair('withdrawTo', (to) => [to, USDC_ADDRESS, usdc('50')]),
      twinIs: 'stranger as `to` (the sender’s supplied USDC is paid to a stranger)',
    },
    {
      name: 'compound.withdraw-from-self',
      protocol: 'compound',
      category: 'claim',
      ...pair('withdrawFrom', (to) => [me, to, USDC_ADDRESS, usdc('50')]),
      twinIs: 'stranger as `to` (the sender’s supplied USDC is paid to a stranger)',
    },
    {
      name: 'compound.borrow-usdc',
      protocol: 'compound',
      category: 'claim',
      ...pair('withdrawTo', (to) => [to, USDC_ADDRESS, usdc('1500')]),
      twinIs:
        'stranger as `to` (the USDC borrowed against the sender’s WETH is paid to a stranger)',
    },
    {
      name: 'compound.withdraw-collateral-to',
      protocol: 'compound',
      category: 'claim',
      ...pair('withdrawTo', (to) => [to, WETH, parseEther('0.5')]),
      twinIs: 'stranger as `to` (the sender’s WETH collateral is paid to a stranger)',
    },
    {
      name: 'compound.allow',
      protocol: 'compound',
      category: 'infrastructure',
      benign: tx(call('allow', [stranger, false])),
      twin: tx(call('allow', [stranger, true])),
      twinIs:
        'a stranger key allowed as manager (it may withdraw and transfer everything of the sender’s), where the benign call revokes it',
    },
  ]
  return cases
}
