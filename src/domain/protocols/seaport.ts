import { parseAbi } from 'viem'
import { receiver } from './beneficiary-args.js'
import { onBase } from './network.js'
import type { FunctionKey, ProtocolModule } from './protocol-module.js'

/**
 * Seaport 1.5/1.6: the offer goes to the caller (or `recipient`); the consideration pays the
 * offerer and the recipients the offerer signed for (fees, royalties): the trade's
 * counterparties.
 */
const ABI = parseAbi([
  'struct AdditionalRecipient { uint256 amount; address recipient; }',
  'struct BasicOrderParameters { address considerationToken; uint256 considerationIdentifier; uint256 considerationAmount; address offerer; address zone; address offerToken; uint256 offerIdentifier; uint256 offerAmount; uint8 basicOrderType; uint256 startTime; uint256 endTime; bytes32 zoneHash; uint256 salt; bytes32 offererConduitKey; bytes32 fulfillerConduitKey; uint256 totalOriginalAdditionalRecipients; AdditionalRecipient[] additionalRecipients; bytes signature; }',
  'struct OfferItem { uint8 itemType; address token; uint256 identifierOrCriteria; uint256 startAmount; uint256 endAmount; }',
  'struct ConsiderationItem { uint8 itemType; address token; uint256 identifierOrCriteria; uint256 startAmount; uint256 endAmount; address recipient; }',
  'struct OrderParameters { address offerer; address zone; OfferItem[] offer; ConsiderationItem[] consideration; uint8 orderType; uint256 startTime; uint256 endTime; bytes32 zoneHash; uint256 salt; bytes32 conduitKey; uint256 totalOriginalConsiderationItems; }',
  'struct Order { OrderParameters parameters; bytes signature; }',
  'struct AdvancedOrder { OrderParameters parameters; uint120 numerator; uint120 denominator; bytes signature; bytes extraData; }',
  'struct CriteriaResolver { uint256 orderIndex; uint8 side; uint256 index; uint256 identifier; bytes32[] criteriaProof; }',
  'function fulfillBasicOrder(BasicOrderParameters parameters)',
  'function fulfillBasicOrder_efficient_6GL6yc(BasicOrderParameters parameters)',
  'function fulfillOrder(Order order, bytes32 fulfillerConduitKey)',
  'function fulfillAdvancedOrder(AdvancedOrder advancedOrder, CriteriaResolver[] criteriaResolvers, bytes32 fulfillerConduitKey, address recipient)',
])

const SEAPORT_NAME = 'Seaport'

const BASIC_ORDER = {
  protocol: SEAPORT_NAME,
  beneficiaries: [],
  counterparties: ['parameters.offerer'],
  basicOrder: true,
} as const

/** Seaport's fulfilments. */
export const SEAPORT = {
  name: SEAPORT_NAME,
  abi: ABI,
  catalogue: {
    'fulfillBasicOrder((address,uint256,uint256,address,address,address,uint256,uint256,uint8,uint256,uint256,bytes32,uint256,bytes32,bytes32,uint256,(uint256,address)[],bytes))':
      BASIC_ORDER,
    'fulfillBasicOrder_efficient_6GL6yc((address,uint256,uint256,address,address,address,uint256,uint256,uint8,uint256,uint256,bytes32,uint256,bytes32,bytes32,uint256,(uint256,address)[],bytes))':
      BASIC_ORDER,
    'fulfillOrder(((address,address,(uint8,address,uint256,uint256,uint256)[],(uint8,address,uint256,uint256,uint256,address)[],uint8,uint256,uint256,bytes32,uint256,bytes32,uint256),bytes),bytes32)':
      {
        protocol: SEAPORT_NAME,
        beneficiaries: [],
        counterparties: ['order.parameters.offerer', 'order.parameters.consideration.*.recipient'],
      },
    'fulfillAdvancedOrder(((address,address,(uint8,address,uint256,uint256,uint256)[],(uint8,address,uint256,uint256,uint256,address)[],uint8,uint256,uint256,bytes32,uint256,bytes32,uint256),uint120,uint120,bytes,bytes),(uint256,uint8,uint256,uint256,bytes32[])[],bytes32,address)':
      {
        protocol: SEAPORT_NAME,
        beneficiaries: [receiver('recipient', 'caller')],
        counterparties: [
          'advancedOrder.parameters.offerer',
          'advancedOrder.parameters.consideration.*.recipient',
        ],
      },
  },
  contracts: [
    {
      id: 'seaport',
      name: 'Seaport',
      kind: 'protocol',
      deployments: onBase(
        '0x0000000000000068F116a894984e2DB1123eB395', // 1.6
        '0x00000000000000ADc04C56Bf30aC9d3c0aAF14dC', // 1.5
      ),
      codes: [],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>
