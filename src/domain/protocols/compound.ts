import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem'
import { operator, position, receiver } from './beneficiary-args.js'
import { addr } from './decoded-args.js'
import { onBase } from './network.js'
import type {
  CallReader,
  CatalogueRow,
  FunctionKey,
  PositionRead,
  ProtocolCall,
  ProtocolModule,
} from './protocol-module.js'

/**
 * Compound III (Comet): one base asset (USDC in cUSDCv3) supplied to earn or borrowed against
 * collateral. `*To` names who is paid or credited, `*From` moves another account's balance (by
 * its permission), and `allow(manager, true)` lets the manager supply, withdraw and transfer
 * everything of the caller's. Positions live in the Comet's storage (`userBasic`: the base
 * principal, positive supplied, negative borrowed; `userCollateral`): read before and after.
 */
const ABI = parseAbi([
  'function supply(address asset, uint256 amount)',
  'function supplyTo(address dst, address asset, uint256 amount)',
  'function supplyFrom(address from, address dst, address asset, uint256 amount)',
  'function withdraw(address asset, uint256 amount)',
  'function withdrawTo(address to, address asset, uint256 amount)',
  'function withdrawFrom(address src, address to, address asset, uint256 amount)',
  'function allow(address manager, bool isAllowed)',
])

const VIEWS = parseAbi([
  'function userBasic(address account) view returns (int104 principal, uint64 baseTrackingIndex, uint64 baseTrackingAccrued, uint16 assetsIn, uint8 _reserved)',
  'function userCollateral(address account, address asset) view returns (uint128 balance, uint128 _reserved)',
])

const COMET = 'Compound III Comet'

/**
 * A call on `asset` for `amount` crediting what `beneficiaries` name (none: the caller); the
 * Comet is its own receipt token (supplied base is its balance).
 */
const market = (...beneficiaries: CatalogueRow['beneficiaries']): CatalogueRow => ({
  protocol: COMET,
  beneficiaries,
  token: 'asset',
  amount: 'amount',
  ownToken: true,
})

/** The positions of the account at `path` (the caller when absent): its base and the asset's collateral. */
const positionsOf =
  (path?: string): CallReader<PositionRead[]> =>
  (call) => {
    const account = path === undefined ? call.site.caller : addr(call.args[path])
    const asset = addr(call.args.asset)
    if (account === undefined || asset === undefined) return []
    return [basePosition(call, account), collateralPosition(call, account, asset)]
  }

/** Compound III's Comet markets (cUSDCv3 on Base). */
export const COMPOUND = {
  name: 'Compound III',
  abi: ABI,
  catalogue: {
    'supplyTo(address,address,uint256)': market(position('dst')),
    'withdrawTo(address,address,uint256)': market(receiver('to')),
    'supply(address,uint256)': market(),
    'supplyFrom(address,address,address,uint256)': market(position('dst')),
    'withdraw(address,uint256)': market(),
    'withdrawFrom(address,address,address,uint256)': market(receiver('to')),
    // Comet records an allowance as an ERC-20 approval of its own token (unlimited or none).
    'allow(address,bool)': {
      protocol: COMET,
      beneficiaries: [operator('manager', 'isAllowed')],
      ownToken: true,
    },
  },
  positions: {
    'supply(address,uint256)': positionsOf(),
    'supplyTo(address,address,uint256)': positionsOf('dst'),
    'supplyFrom(address,address,address,uint256)': positionsOf('dst'),
    'withdraw(address,uint256)': positionsOf(),
    'withdrawTo(address,address,uint256)': positionsOf(),
    'withdrawFrom(address,address,address,uint256)': positionsOf('src'),
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

/** The account's base principal: supplied when positive, borrowed when negative. */
function basePosition({ site }: ProtocolCall, account: Address): PositionRead {
  return {
    protocol: COMET,
    contract: site.target,
    market: site.target,
    account,
    data: encodeFunctionData({ abi: VIEWS, functionName: 'userBasic', args: [account] }),
    fields: (returnData: Hex) => {
      const principal = decoded(() =>
        decodeFunctionResult({ abi: VIEWS, functionName: 'userBasic', data: returnData }),
      )?.[0]
      if (principal === undefined) return undefined
      return principal >= 0n
        ? { supplied: principal, borrowed: 0n }
        : { supplied: 0n, borrowed: -principal }
    },
  }
}

/** The account's collateral balance of `asset` (zero for the base asset). */
function collateralPosition(
  { site }: ProtocolCall,
  account: Address,
  asset: Address,
): PositionRead {
  return {
    protocol: COMET,
    contract: site.target,
    market: asset,
    account,
    data: encodeFunctionData({
      abi: VIEWS,
      functionName: 'userCollateral',
      args: [account, asset],
    }),
    fields: (returnData: Hex) => {
      const balance = decoded(() =>
        decodeFunctionResult({ abi: VIEWS, functionName: 'userCollateral', data: returnData }),
      )?.[0]
      return balance === undefined ? undefined : { collateral: balance }
    },
  }
}

/** The value `read` returns, or undefined when the return data does not decode. */
function decoded<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}
