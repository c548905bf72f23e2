import { encodeFunctionData, parseEther, parseUnits } from 'viem'
import { clients, deploy } from '../../support/contracts.js'
import type { CorpusSetup } from '../corpus-case.js'

/**
 * Plain everyday actions on an OpenZeppelin ERC-20 (solc-js, contracts/test/TestERC20.sol):
 * paying someone is the sender's declared intent; approving a stranger's key is not.
 */
export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const token = await deploy(rpcUrl, 'TestERC20', ['Plain Token', 'PLN'], deployer)
  // A contract the sender may approve: another token contract stands in for a protocol.
  const spender = await deploy(rpcUrl, 'TestERC20', ['Spender', 'SPD'], deployer)
  const { walletClient, publicClient } = clients(rpcUrl, deployer)
  await publicClient.waitForTransactionReceipt({
    hash: await walletClient.writeContract({
      address: token.address,
      abi: token.abi,
      functionName: 'mint',
      args: [sender.address, parseUnits('1000', 18)],
    }),
  })
  const call = (functionName: string, args: unknown[]) =>
    encodeFunctionData({ abi: token.abi, functionName, args })
  return [
    {
      name: 'eth.pay-a-friend',
      protocol: 'eth',
      category: 'plain',
      benign: { from: sender.address, to: stranger, data: '0x', value: parseEther('0.01') },
    },
    {
      name: 'erc20.pay-a-friend',
      protocol: 'erc20',
      category: 'plain',
      benign: {
        from: sender.address,
        to: token.address,
        data: call('transfer', [stranger, parseUnits('10', 18)]),
      },
    },
    {
      name: 'erc20.approve-a-contract',
      protocol: 'erc20',
      category: 'plain',
      benign: {
        from: sender.address,
        to: token.address,
        data: call('approve', [spender.address, parseUnits('10', 18)]),
      },
      twin: {
        from: sender.address,
        to: token.address,
        data: call('approve', [stranger, parseUnits('10', 18)]),
      },
      twinIs: 'a stranger key as spender',
    },
  ]
}
