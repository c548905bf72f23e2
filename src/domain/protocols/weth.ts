import { parseAbi } from 'viem'
import { onEveryNetwork } from './network.js'
import type { ProtocolModule } from './protocol-module.js'

/** WETH9: wrapping mints and unwrapping burns without a `Transfer` (its own events say so). */
const ABI = parseAbi(['function deposit()', 'function withdraw(uint256 wad)'])

/** WETH9, the OP-stack predeploy at 0x4200…0006. */
export const WETH = {
  name: 'WETH9',
  abi: ABI,
  contracts: [
    {
      id: 'weth9',
      name: 'WETH9 (OP-stack predeploy)',
      kind: 'weth',
      deployments: onEveryNetwork((network) => [network.weth]),
      codes: [
        {
          hash: '0xb603564c85581d9f3165facdbd3edebd05417b132ec760ce26eba226ca210458',
          immutables: [],
          source: 'canonical-weth 1.4.0 build/contracts/WETH9.json',
        },
      ],
    },
  ],
} satisfies ProtocolModule
