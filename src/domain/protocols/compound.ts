import { parseAbi } from 'viem'
import { position, receiver } from './beneficiary-args.js'
import { onBase } from './network.js'
import type { FunctionKey, ProtocolModule } from './protocol-module.js'

/** Compound III (Comet): `*To` names the recipient, `*From` moves another account's balance. */
const ABI = parseAbi([
  'function supplyTo(address dst, address asset, uint256 amount)',
  'function withdrawTo(address to, address asset, uint256 amount)',
  'function supply(address asset, uint256 amount)',
])

const COMET = 'Compound III Comet'

/** Compound III's Comet markets (cUSDCv3 on Base). */
export const COMPOUND = {
  name: 'Compound III',
  abi: ABI,
  catalogue: {
    'supplyTo(address,address,uint256)': {
      protocol: COMET,
      beneficiaries: [position('dst')],
      token: 'asset',
      amount: 'amount',
    },
    'withdrawTo(address,address,uint256)': {
      protocol: COMET,
      beneficiaries: [receiver('to')],
      token: 'asset',
      amount: 'amount',
    },
    'supply(address,uint256)': {
      protocol: COMET,
      beneficiaries: [],
      token: 'asset',
      amount: 'amount',
    },
  },
  contracts: [
    {
      id: 'compound-v3-usdc',
      name: 'Compound III cUSDCv3',
      kind: 'protocol',
      deployments: onBase('0xb125E6687d4313864e53df431d5425969c15Eb2F'),
      codes: [],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>
