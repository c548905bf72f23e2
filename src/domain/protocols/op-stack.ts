import { type Address, parseAbi } from 'viem'
import { l1Recipient } from './beneficiary-args.js'
import { onBaseAndSepolia } from './network.js'
import type { FunctionKey, KnownContract, ProtocolModule } from './protocol-module.js'

/**
 * The OP-stack predeploys an agent calls: an L2 -> L1 withdrawal gives nothing back on L2; who
 * gets it on L1 is an argument (or the caller). The predeploys sit at the same addresses on
 * every OP-stack chain, fixed by its genesis.
 */
const ABI = parseAbi([
  'function withdraw(address _l2Token, uint256 _amount, uint32 _minGasLimit, bytes _extraData)',
  'function withdrawTo(address _l2Token, address _to, uint256 _amount, uint32 _minGasLimit, bytes _extraData)',
  'function bridgeETH(uint32 _minGasLimit, bytes _extraData)',
  'function bridgeETHTo(address _to, uint32 _minGasLimit, bytes _extraData)',
  'function bridgeERC20(address _localToken, address _remoteToken, uint256 _amount, uint32 _minGasLimit, bytes _extraData)',
  'function bridgeERC20To(address _localToken, address _remoteToken, address _to, uint256 _amount, uint32 _minGasLimit, bytes _extraData)',
  'function initiateWithdrawal(address _target, uint256 _gasLimit, bytes _data)',
  'function sendMessage(address _target, bytes _message, uint32 _minGasLimit)',
])

const BRIDGE = 'OP-stack L2StandardBridge'
const PASSER = 'OP-stack L2ToL1MessagePasser'
const MESSENGER = 'OP-stack L2CrossDomainMessenger'

const predeploy = (id: string, name: string, address: Address): KnownContract => ({
  id,
  name,
  kind: 'op-predeploy',
  deployments: onBaseAndSepolia(address),
  codes: [],
})

/** The L2StandardBridge, the L2ToL1MessagePasser and the L2CrossDomainMessenger. */
export const OP_STACK = {
  name: 'OP-stack predeploys',
  abi: ABI,
  catalogue: {
    'withdraw(address,uint256,uint32,bytes)': {
      protocol: BRIDGE,
      beneficiaries: [],
      token: '_l2Token',
      amount: '_amount',
    },
    'withdrawTo(address,address,uint256,uint32,bytes)': {
      protocol: BRIDGE,
      beneficiaries: [l1Recipient('_to')],
      token: '_l2Token',
      amount: '_amount',
    },
    'bridgeETH(uint32,bytes)': { protocol: BRIDGE, beneficiaries: [] },
    'bridgeETHTo(address,uint32,bytes)': { protocol: BRIDGE, beneficiaries: [l1Recipient('_to')] },
    'bridgeERC20(address,address,uint256,uint32,bytes)': {
      protocol: BRIDGE,
      beneficiaries: [],
      token: '_localToken',
      amount: '_amount',
    },
    'bridgeERC20To(address,address,address,uint256,uint32,bytes)': {
      protocol: BRIDGE,
      beneficiaries: [l1Recipient('_to')],
      token: '_localToken',
      amount: '_amount',
    },
    'initiateWithdrawal(address,uint256,bytes)': {
      protocol: PASSER,
      beneficiaries: [l1Recipient('_target')],
    },
    'sendMessage(address,bytes,uint32)': {
      protocol: MESSENGER,
      beneficiaries: [l1Recipient('_target')],
    },
  },
  contracts: [
    predeploy(
      'op-l2-standard-bridge',
      'OP-stack L2StandardBridge',
      '0x4200000000000000000000000000000000000010',
    ),
    predeploy(
      'op-l2-to-l1-message-passer',
      'OP-stack L2ToL1MessagePasser',
      '0x4200000000000000000000000000000000000016',
    ),
    predeploy(
      'op-l2-cross-domain-messenger',
      'OP-stack L2CrossDomainMessenger',
      '0x4200000000000000000000000000000000000007',
    ),
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>
