import { encodeFunctionData, maxUint256, parseEther } from 'viem'
import { clients } from '../../support/contracts.js'
import type { CorpusSetup } from '../corpus-case.js'
import { ensurePermit2, PERMIT2_ADDRESS } from './support/permit2-deploy.js'
import { ensureWeth9, WETH9_ADDRESS, weth9 } from './support/weth9-deploy.js'

/**
 * WETH9 (`canonical-weth@1.4.0`) at Base's predeploy 0x4200...0006. Wrapping and unwrapping
 * move ETH against a WETH balance kept in storage and announced by `Deposit(dst, wad)` /
 * `Withdrawal(src, wad)`, never by an ERC-20 `Transfer`: the receipt the sender gets is not a
 * Transfer log. WETH9 has no depositTo/withdrawTo, so wrap and unwrap have no stranger twin.
 */
export const setup: CorpusSetup = async ({ rpcUrl, sender, stranger }) => {
  await ensureWeth9(rpcUrl)
  // The spender of the everyday approval: canonical Permit2, placed too.
  await ensurePermit2(rpcUrl)
  const call = (functionName: string, args: readonly unknown[] = []) =>
    encodeFunctionData({ abi: weth9.abi, functionName, args } as never)

  // The sender's own earlier wrap: 5 WETH to unwrap, transfer and approve.
  const { walletClient, publicClient } = clients(rpcUrl, sender)
  const hash = await walletClient.sendTransaction({
    to: WETH9_ADDRESS,
    data: call('deposit'),
    value: parseEther('5'),
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error('weth9: the sender could not wrap 5 ETH')
  const balance = (await publicClient.readContract({
    address: WETH9_ADDRESS,
    abi: weth9.abi,
    functionName: 'balanceOf',
    args: [sender.address],
  })) as bigint

  const from = sender.address
  const to = WETH9_ADDRESS
  return [
    {
      name: 'weth9.wrap',
      protocol: 'weth9',
      category: 'receipt',
      benign: { from, to, data: call('deposit'), value: parseEther('1') },
    },
    {
      name: 'weth9.wrap-by-sending-eth',
      protocol: 'weth9',
      category: 'receipt',
      benign: { from, to, data: '0x', value: parseEther('0.5') },
    },
    {
      name: 'weth9.unwrap',
      protocol: 'weth9',
      category: 'receipt',
      benign: { from, to, data: call('withdraw', [parseEther('1')]) },
    },
    {
      name: 'weth9.unwrap-all',
      protocol: 'weth9',
      category: 'receipt',
      benign: { from, to, data: call('withdraw', [balance]) },
    },
    {
      name: 'weth9.approve-permit2-max',
      protocol: 'weth9',
      category: 'infrastructure',
      benign: { from, to, data: call('approve', [PERMIT2_ADDRESS, maxUint256]) },
      twin: { from, to, data: call('approve', [stranger, maxUint256]) },
      twinIs: 'a stranger key as spender of an unlimited WETH allowance (instead of Permit2)',
    },
    {
      name: 'weth9.transfer-to-a-friend',
      protocol: 'weth9',
      category: 'plain',
      benign: { from, to, data: call('transfer', [stranger, parseEther('1')]) },
    },
    {
      name: 'weth9.transfer-from-self-to-a-friend',
      protocol: 'weth9',
      category: 'plain',
      // transferFrom with src = msg.sender needs no allowance in WETH9.
      benign: { from, to, data: call('transferFrom', [from, stranger, parseEther('1')]) },
    },
    {
      name: 'weth9.revoke-permit2',
      protocol: 'weth9',
      category: 'plain',
      benign: { from, to, data: call('approve', [PERMIT2_ADDRESS, 0n]) },
    },
  ]
}
