import type { JsonValue } from '@pre-send-guard/client/schemas'
import {
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  keccak256,
  parseAbi,
  parseAbiParameters,
} from 'viem'
import { operator, position, receiver } from './beneficiary-args.js'
import { addr, big, obj } from './decoded-args.js'
import { onBase } from './network.js'
import type {
  CallReader,
  CatalogueRow,
  FunctionKey,
  PositionRead,
  ProtocolModule,
} from './protocol-module.js'

/** Morpho Blue: `onBehalf` is whose position changes, `receiver` who is paid. */
const ABI = parseAbi([
  'struct MarketParams { address loanToken; address collateralToken; address oracle; address irm; uint256 lltv; }',
  'function supply(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, bytes data)',
  'function supplyCollateral(MarketParams marketParams, uint256 assets, address onBehalf, bytes data)',
  'function repay(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, bytes data)',
  'function withdraw(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, address receiver)',
  'function borrow(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, address receiver)',
  'function withdrawCollateral(MarketParams marketParams, uint256 assets, address onBehalf, address receiver)',
  'function setAuthorization(address authorized, bool newIsAuthorized)',
])

const POSITION_ABI = parseAbi([
  'function position(bytes32 id, address user) view returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral)',
])
const MARKET_PARAMS = parseAbiParameters('address, address, address, address, uint256')

const MORPHO = 'Morpho Blue'

/** A market call crediting `beneficiary`, in the market's loan or collateral token. */
const market = (
  beneficiary: CatalogueRow['beneficiaries'][number],
  token: 'loanToken' | 'collateralToken',
): CatalogueRow => ({
  protocol: MORPHO,
  beneficiaries: [beneficiary],
  token: `marketParams.${token}`,
  amount: 'assets',
})

/** `onBehalf`'s position in the call's market, read with `position(id, user)`. */
const onBehalfPosition: CallReader<PositionRead[]> = ({ site, args }) => {
  const account = addr(args.onBehalf)
  const id = marketId(args.marketParams)
  if (account === undefined || id === undefined) return []
  const read: PositionRead = {
    protocol: MORPHO,
    contract: site.target,
    market: id,
    account,
    data: encodeFunctionData({ abi: POSITION_ABI, functionName: 'position', args: [id, account] }),
    fields: (returnData) => {
      try {
        const [supplyShares, borrowShares, collateral] = decodeFunctionResult({
          abi: POSITION_ABI,
          functionName: 'position',
          data: returnData,
        })
        return { supplyShares, borrowShares, collateral }
      } catch {
        return undefined
      }
    },
  }
  return [read]
}

/** Morpho Blue's markets, with positions kept in its storage. */
export const MORPHO_BLUE = {
  name: MORPHO,
  abi: ABI,
  catalogue: {
    'supply((address,address,address,address,uint256),uint256,uint256,address,bytes)': market(
      position('onBehalf'),
      'loanToken',
    ),
    'supplyCollateral((address,address,address,address,uint256),uint256,address,bytes)': market(
      position('onBehalf'),
      'collateralToken',
    ),
    'repay((address,address,address,address,uint256),uint256,uint256,address,bytes)': market(
      position('onBehalf'),
      'loanToken',
    ),
    'withdraw((address,address,address,address,uint256),uint256,uint256,address,address)': market(
      receiver('receiver'),
      'loanToken',
    ),
    'borrow((address,address,address,address,uint256),uint256,uint256,address,address)': market(
      receiver('receiver'),
      'loanToken',
    ),
    'withdrawCollateral((address,address,address,address,uint256),uint256,address,address)': market(
      receiver('receiver'),
      'collateralToken',
    ),
    'setAuthorization(address,bool)': {
      protocol: MORPHO,
      beneficiaries: [operator('authorized', 'newIsAuthorized')],
    },
  },
  positions: {
    'supply((address,address,address,address,uint256),uint256,uint256,address,bytes)':
      onBehalfPosition,
    'supplyCollateral((address,address,address,address,uint256),uint256,address,bytes)':
      onBehalfPosition,
    'repay((address,address,address,address,uint256),uint256,uint256,address,bytes)':
      onBehalfPosition,
    'withdraw((address,address,address,address,uint256),uint256,uint256,address,address)':
      onBehalfPosition,
    'borrow((address,address,address,address,uint256),uint256,uint256,address,address)':
      onBehalfPosition,
    'withdrawCollateral((address,address,address,address,uint256),uint256,address,address)':
      onBehalfPosition,
  },
  contracts: [
    {
      id: 'morpho-blue',
      name: 'Morpho Blue',
      kind: 'protocol',
      deployments: onBase('0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb'),
      codes: [
        {
          hash: '0xf5d5c8341ec99b87f3e615bec5924a0d8fa7d3f073470a386e9c36822af3151c',
          immutables: [
            [6282, 32], // DOMAIN_SEPARATOR
            [9401, 32],
          ],
          source: '@morpho-org/morpho-blue 1.0.0 (solc 0.8.19, viaIR, 999999 runs)',
        },
      ],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>

/** Morpho's market id: keccak256 of the ABI-encoded MarketParams. */
function marketId(value: JsonValue | undefined): Hex | undefined {
  const p = obj(value)
  const loan = addr(p.loanToken)
  const collateral = addr(p.collateralToken)
  const oracle = addr(p.oracle)
  const irm = addr(p.irm)
  const lltv = big(p.lltv)
  if (!loan || !collateral || !oracle || !irm || lltv === undefined) return undefined
  return keccak256(encodeAbiParameters(MARKET_PARAMS, [loan, collateral, oracle, irm, lltv]))
}
