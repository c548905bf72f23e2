import { expectAddress, expectBytes32 } from '@pre-send-guard/client/types'
import { parseAbi } from 'viem'
import metamaskDelegator from '../../../contracts/protocols/metamask/EIP7702StatelessDeleGator.json' with {
  type: 'json',
}
import { onBase, onBaseAndSepolia } from './network.js'
import type { ProtocolModule } from './protocol-module.js'

/**
 * Smart accounts and EIP-7702 delegates: their executors (the account itself makes the calls
 * they carry, opened by the decoder: SimpleAccount, Simple7702Account, Coinbase Smart Wallet,
 * Kernel v2, OpenZeppelin accounts; ERC-7821 / ERC-7579 `execute(mode, executionData)`, whose
 * mode byte 0 is the call type: 0x00 one call, packed; 0x01 a batch of (target, value, data)),
 * the ERC-4337 EntryPoints, and the wallet code a delegation may point to.
 */
const ABI = parseAbi([
  'struct WalletCall { address target; uint256 value; bytes data; }',
  'function execute(address target, uint256 value, bytes data)',
  'function executeBatch(WalletCall[] calls)',
  'function executeBatch(address[] dest, uint256[] value, bytes[] func)',
  'function executeBatch(address[] dest, bytes[] func)',
  'function execute(bytes32 mode, bytes executionData)',
])

/** Account executors, the EntryPoints, and the recognised wallet delegates. */
export const SMART_ACCOUNTS = {
  name: 'Smart accounts',
  abi: ABI,
  contracts: [
    {
      id: 'entry-point',
      name: 'ERC-4337 EntryPoint',
      kind: 'entry-point',
      deployments: onBaseAndSepolia(
        '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789', // v0.6
        '0x0000000071727De22E5E9d8BAf0edAc6f37da032', // v0.7
        '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108', // v0.8
        '0x433709009B8330FDa32311DF1C2AFA402eD8D009', // v0.9 (OpenZeppelin 5.x accounts name it)
      ),
      codes: [],
    },
    {
      id: 'simple-7702-account',
      name: "eth-infinitism Simple7702Account (EntryPoint v0.8's reference EIP-7702 wallet)",
      kind: 'wallet-delegate',
      deployments: onBase('0xe6Cae83BdE06E4c305530e199D7217f42808555B'),
      codes: [
        {
          hash: '0xcc7b633aef4b2543cb8f37522adf1a401f910f0f6b2430c1eecc11f401ccfcf3',
          immutables: [],
          source: '@account-abstraction/contracts 0.8.0 artifacts/Simple7702Account.json (runtime)',
        },
      ],
    },
    {
      id: 'metamask-eip7702-stateless-delegator',
      name: 'MetaMask EIP7702StatelessDeleGator (Delegation Framework 1.3.0)',
      kind: 'wallet-delegate',
      // The deployments file lists Base mainnet's (chain id 8453).
      deployments: onBase(
        expectAddress(
          metamaskDelegator.deployments.EIP7702StatelessDeleGator,
          'EIP7702StatelessDeleGator.json deployments',
        ),
      ),
      codes: [
        {
          // Its immutables: the EntryPoint, the DelegationManager, its own address and EIP-712's
          // cached chain id and domain separator (30 ranges, found by two deployments).
          hash: expectBytes32(metamaskDelegator.maskedCodeHash, 'EIP7702StatelessDeleGator.json'),
          immutables: metamaskDelegator.immutables as [number, number][],
          source: '@metamask/delegation-abis 2.0.0 dist/bytecode.mjs (runtime, immutables masked)',
        },
      ],
    },
  ],
} satisfies ProtocolModule
