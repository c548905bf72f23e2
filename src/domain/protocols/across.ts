import { parseAbi } from 'viem'
import { onBase } from './network.js'
import type {
  BeneficiaryArg,
  CatalogueRow,
  FunctionKey,
  ProtocolModule,
} from './protocol-module.js'

/**
 * Across's SpokePool on Base: a deposit here is filled by a relayer on the destination chain,
 * who pays `recipient` there and is repaid from the deposit (only `exclusiveRelayer` may fill
 * until the exclusivity deadline); `depositor` gets the refund of an unfilled deposit and may
 * sign a speed-up that changes the recipient. The funds come from the caller. `deposit` names
 * accounts as 32-byte words (an EVM address left-padded, or another chain's account).
 */
const ABI = parseAbi([
  'function depositV3(address depositor, address recipient, address inputToken, address outputToken, uint256 inputAmount, uint256 outputAmount, uint256 destinationChainId, address exclusiveRelayer, uint32 quoteTimestamp, uint32 fillDeadline, uint32 exclusivityParameter, bytes message)',
  'function deposit(bytes32 depositor, bytes32 recipient, bytes32 inputToken, bytes32 outputToken, uint256 inputAmount, uint256 outputAmount, uint256 destinationChainId, bytes32 exclusiveRelayer, uint32 quoteTimestamp, uint32 fillDeadline, uint32 exclusivityParameter, bytes message)',
])

const SPOKE_POOL = 'Across SpokePool'

/** The recipient paid on the destination chain, and the depositor who may redirect or be refunded. */
const parties = (word: boolean): BeneficiaryArg[] => [
  { path: 'recipient', role: 'cross-chain-recipient', ...(word ? { word: true as const } : {}) },
  { path: 'depositor', role: 'operator', ...(word ? { word: true as const } : {}) },
]

/** Across's SpokePool deposits. */
export const ACROSS = {
  name: 'Across',
  abi: ABI,
  catalogue: {
    'depositV3(address,address,address,address,uint256,uint256,uint256,address,uint32,uint32,uint32,bytes)':
      {
        protocol: SPOKE_POOL,
        beneficiaries: parties(false),
        token: 'inputToken',
        amount: 'inputAmount',
        // The relayer that fills is repaid from the deposit: the price of the fill.
        counterparties: ['exclusiveRelayer'],
      } satisfies CatalogueRow,
    'deposit(bytes32,bytes32,bytes32,bytes32,uint256,uint256,uint256,bytes32,uint32,uint32,uint32,bytes)':
      { protocol: SPOKE_POOL, beneficiaries: parties(true), amount: 'inputAmount' },
  },
  contracts: [
    {
      id: 'across-spoke-pool',
      name: 'Across SpokePool',
      kind: 'protocol',
      deployments: onBase('0x09aea4b2242abC8bb4BB78D537A67a245A7bEC64'),
      codes: [],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>
