import { parseAbi } from 'viem'
import { onBaseAndSepolia } from './network.js'
import type { ProtocolModule } from './protocol-module.js'

/**
 * Batching containers: Uniswap/OpenZeppelin `multicall` (each item delegatecalled into the same
 * contract) and Multicall3 (each call made by Multicall3 itself). The decoder opens their calls
 * (`calldata/container-children.ts`); they move nothing of their own.
 */
const ABI = parseAbi([
  'struct Call { address target; bytes callData; }',
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Call3Value { address target; bool allowFailure; uint256 value; bytes callData; }',
  'function multicall(bytes[] data)',
  'function multicall(uint256 deadline, bytes[] data)',
  'function aggregate(Call[] calls)',
  'function tryAggregate(bool requireSuccess, Call[] calls)',
  'function aggregate3(Call3[] calls)',
  'function aggregate3Value(Call3Value[] calls)',
])

/** `multicall` and Multicall3. */
export const MULTICALL = {
  name: 'Multicall',
  abi: ABI,
  contracts: [
    {
      id: 'multicall3',
      name: 'Multicall3',
      kind: 'multicall3',
      deployments: onBaseAndSepolia('0xcA11bde05977b3631167028862bE2a173976CA11'),
      codes: [],
    },
  ],
} satisfies ProtocolModule
