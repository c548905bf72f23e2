import { type Address, encodeFunctionData, parseEther } from 'viem'
import { clients } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup } from '../corpus-case.js'
import {
  createBridgedToken,
  ensureOpBridge,
  finalizeErc20Deposit,
  LEGACY_ERC20_ETH,
  opArtifacts,
  PREDEPLOYS,
} from './support/op-bridge-deploy.js'

/** DAI on Ethereum: the L1 token of the bridged L2 token below. */
const L1_DAI: Address = '0x6B175474E89094C44Da98b954EedeAC495271d0F'
const MIN_GAS_LIMIT = 200_000
const WITHDRAWAL_GAS_LIMIT = 100_000n

/**
 * L2 -> L1 withdrawals through Base's OP-stack predeploys (`@eth-optimism/contracts-bedrock`
 * 0.17.3 behind the bedrock Proxy, initialised as genesis does with Base's L1 bridge and
 * messenger). ETH leaves the sender for good on L2 (the L2ToL1MessagePasser holds it until
 * burned); the L1 recipient is an argument (`_to`, `_target`) or msg.sender, so the twin of each
 * action is the same call with a stranger as the L1 recipient.
 */
export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  await ensureOpBridge(rpcUrl, deployer)
  // A bridged ERC-20 (OptimismMintableERC20 from the factory predeploy, L1 token DAI) and 100 of
  // it deposited from L1 to the sender, so ERC-20 withdrawals burn a real balance.
  const token = await createBridgedToken(rpcUrl, deployer, L1_DAI, 'Dai Stablecoin', 'DAI')
  await finalizeErc20Deposit(rpcUrl, {
    l2Token: token.address,
    l1Token: L1_DAI,
    from: sender.address,
    to: sender.address,
    amount: parseEther('100'),
  })
  const { publicClient } = clients(rpcUrl, sender)
  const balance = (await publicClient.readContract({
    address: token.address,
    abi: token.abi,
    functionName: 'balanceOf',
    args: [sender.address],
  })) as bigint
  if (balance !== parseEther('100'))
    throw new Error(`op-bridge: the ERC-20 deposit did not arrive (balance ${balance})`)

  const bridge = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: opArtifacts.L2StandardBridge.abi, functionName, args } as never)
  const passer = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: opArtifacts.L2ToL1MessagePasser.abi, functionName, args } as never)
  const messenger = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: opArtifacts.L2CrossDomainMessenger.abi, functionName, args } as never)

  const from = sender.address
  const value = parseEther('0.1')
  const amount = parseEther('10')
  const cases: CorpusCase[] = [
    {
      name: 'op-bridge.withdraw-eth',
      protocol: 'op-bridge',
      category: 'bridge',
      benign: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('withdraw', [LEGACY_ERC20_ETH, value, MIN_GAS_LIMIT, '0x']),
        value,
      },
    },
    {
      name: 'op-bridge.withdraw-eth-to',
      protocol: 'op-bridge',
      category: 'bridge',
      benign: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('withdrawTo', [LEGACY_ERC20_ETH, from, value, MIN_GAS_LIMIT, '0x']),
        value,
      },
      twin: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('withdrawTo', [LEGACY_ERC20_ETH, stranger, value, MIN_GAS_LIMIT, '0x']),
        value,
      },
      twinIs: 'a stranger as _to (the L1 recipient)',
    },
    {
      name: 'op-bridge.bridge-eth',
      protocol: 'op-bridge',
      category: 'bridge',
      benign: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('bridgeETH', [MIN_GAS_LIMIT, '0x']),
        value,
      },
    },
    {
      name: 'op-bridge.bridge-eth-to',
      protocol: 'op-bridge',
      category: 'bridge',
      benign: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('bridgeETHTo', [from, MIN_GAS_LIMIT, '0x']),
        value,
      },
      twin: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('bridgeETHTo', [stranger, MIN_GAS_LIMIT, '0x']),
        value,
      },
      twinIs: 'a stranger as _to (the L1 recipient)',
    },
    {
      name: 'op-bridge.send-eth-to-bridge',
      protocol: 'op-bridge',
      category: 'bridge',
      // receive(): withdraws msg.value to msg.sender on L1 (200,000 min gas).
      benign: { from, to: PREDEPLOYS.L2StandardBridge, data: '0x', value },
    },
    {
      name: 'op-bridge.withdraw-erc20',
      protocol: 'op-bridge',
      category: 'bridge',
      benign: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('withdraw', [token.address, amount, MIN_GAS_LIMIT, '0x']),
      },
      twin: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('withdrawTo', [token.address, stranger, amount, MIN_GAS_LIMIT, '0x']),
      },
      twinIs: 'withdrawTo with a stranger as _to (the L1 recipient)',
    },
    {
      name: 'op-bridge.bridge-erc20',
      protocol: 'op-bridge',
      category: 'bridge',
      benign: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('bridgeERC20', [token.address, L1_DAI, amount, MIN_GAS_LIMIT, '0x']),
      },
      twin: {
        from,
        to: PREDEPLOYS.L2StandardBridge,
        data: bridge('bridgeERC20To', [
          token.address,
          L1_DAI,
          stranger,
          amount,
          MIN_GAS_LIMIT,
          '0x',
        ]),
      },
      twinIs: 'bridgeERC20To with a stranger as _to (the L1 recipient)',
    },
    {
      name: 'op-bridge.message-passer-withdraw',
      protocol: 'op-bridge',
      category: 'bridge',
      benign: {
        from,
        to: PREDEPLOYS.L2ToL1MessagePasser,
        data: passer('initiateWithdrawal', [from, WITHDRAWAL_GAS_LIMIT, '0x']),
        value,
      },
      twin: {
        from,
        to: PREDEPLOYS.L2ToL1MessagePasser,
        data: passer('initiateWithdrawal', [stranger, WITHDRAWAL_GAS_LIMIT, '0x']),
        value,
      },
      twinIs: 'a stranger as _target (the L1 account called with the value)',
    },
    {
      name: 'op-bridge.send-eth-to-message-passer',
      protocol: 'op-bridge',
      category: 'bridge',
      // receive(): initiateWithdrawal(msg.sender, 100,000, "") with msg.value.
      benign: { from, to: PREDEPLOYS.L2ToL1MessagePasser, data: '0x', value },
    },
    {
      name: 'op-bridge.messenger-send-eth',
      protocol: 'op-bridge',
      category: 'bridge',
      benign: {
        from,
        to: PREDEPLOYS.L2CrossDomainMessenger,
        data: messenger('sendMessage', [from, '0x', MIN_GAS_LIMIT]),
        value,
      },
      twin: {
        from,
        to: PREDEPLOYS.L2CrossDomainMessenger,
        data: messenger('sendMessage', [stranger, '0x', MIN_GAS_LIMIT]),
        value,
      },
      twinIs: 'a stranger as _target (the L1 account the messenger calls with the value)',
    },
  ]
  return cases
}
