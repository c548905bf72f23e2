import { parseAbi } from 'viem'
import { operator, position, receiver } from './beneficiary-args.js'
import { onBase } from './network.js'
import type { CatalogueRow, FunctionKey, ProtocolModule } from './protocol-module.js'

/**
 * Aave v3: the Pool (and L2Pool's compact `bytes32` forms, which always act for the caller),
 * the WrappedTokenGatewayV3 (ETH in and out of the Pool; its first argument is ignored), and a
 * debt token's credit delegation. Its claims and debts are aTokens and debt tokens, which the
 * logs show.
 */
const ABI = parseAbi([
  'function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)',
  'function deposit(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)',
  'function supplyWithPermit(address asset, uint256 amount, address onBehalfOf, uint16 referralCode, uint256 deadline, uint8 permitV, bytes32 permitR, bytes32 permitS)',
  'function withdraw(address asset, uint256 amount, address to)',
  'function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)',
  'function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf)',
  'function repayWithPermit(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf, uint256 deadline, uint8 permitV, bytes32 permitR, bytes32 permitS)',
  'function repayWithATokens(address asset, uint256 amount, uint256 interestRateMode)',
  'function setUserUseReserveAsCollateral(address asset, bool useAsCollateral)',
  'function approveDelegation(address delegatee, uint256 amount)',
  'function depositETH(address pool, address onBehalfOf, uint16 referralCode)',
  'function withdrawETH(address pool, uint256 amount, address to)',
  'function repayETH(address pool, uint256 amount, uint256 rateMode, address onBehalfOf)',
  'function borrowETH(address pool, uint256 amount, uint256 interestRateMode, uint16 referralCode)',
  'function supply(bytes32 args)',
  'function withdraw(bytes32 args)',
  'function borrow(bytes32 args)',
  'function repay(bytes32 args)',
  'function repayWithATokens(bytes32 args)',
  'function setUserUseReserveAsCollateral(bytes32 args)',
])

const POOL = 'Aave v3 Pool'
const GATEWAY = 'Aave v3 WrappedTokenGatewayV3'

/** A Pool call on `asset` for `amount`, crediting the arguments `beneficiaries` name. */
const pool = (...beneficiaries: CatalogueRow['beneficiaries']): CatalogueRow => ({
  protocol: POOL,
  beneficiaries,
  token: 'asset',
  amount: 'amount',
})

/** An L2Pool compact call: the caller is always the one credited. */
const compact: CatalogueRow = { protocol: POOL, beneficiaries: [] }

/** Aave v3's Pool, its WETH gateway and its debt tokens' credit delegation. */
export const AAVE = {
  name: 'Aave v3',
  abi: ABI,
  catalogue: {
    'supply(address,uint256,address,uint16)': pool(position('onBehalfOf')),
    'deposit(address,uint256,address,uint16)': pool(position('onBehalfOf')),
    'supplyWithPermit(address,uint256,address,uint16,uint256,uint8,bytes32,bytes32)': pool(
      position('onBehalfOf'),
    ),
    'withdraw(address,uint256,address)': pool(receiver('to')),
    // The borrowed tokens go to the caller; `onBehalfOf` carries the debt (credit delegation).
    'borrow(address,uint256,uint256,uint16,address)': pool(),
    'repay(address,uint256,uint256,address)': pool(position('onBehalfOf')),
    'repayWithPermit(address,uint256,uint256,address,uint256,uint8,bytes32,bytes32)': pool(
      position('onBehalfOf'),
    ),
    'repayWithATokens(address,uint256,uint256)': pool(),
    'setUserUseReserveAsCollateral(address,bool)': { protocol: POOL, beneficiaries: [] },
    // A debt token's credit delegation: the delegatee may borrow against the caller's collateral.
    'approveDelegation(address,uint256)': {
      protocol: 'Aave v3 debt token',
      beneficiaries: [operator('delegatee', 'amount')],
    },
    'depositETH(address,address,uint16)': {
      protocol: GATEWAY,
      beneficiaries: [position('onBehalfOf')],
    },
    'withdrawETH(address,uint256,address)': {
      protocol: GATEWAY,
      beneficiaries: [receiver('to')],
      amount: 'amount',
    },
    'repayETH(address,uint256,uint256,address)': {
      protocol: GATEWAY,
      beneficiaries: [position('onBehalfOf')],
      amount: 'amount',
    },
    'borrowETH(address,uint256,uint256,uint16)': {
      protocol: GATEWAY,
      beneficiaries: [],
      amount: 'amount',
    },
    'supply(bytes32)': compact,
    'withdraw(bytes32)': compact,
    'borrow(bytes32)': compact,
    'repay(bytes32)': compact,
    'repayWithATokens(bytes32)': compact,
    'setUserUseReserveAsCollateral(bytes32)': compact,
  },
  contracts: [
    {
      id: 'aave-v3-pool',
      name: 'Aave v3 Pool',
      kind: 'protocol',
      deployments: onBase('0xA238Dd80C259a72e81d7e4664a9801593F98d1c5'),
      codes: [],
    },
    {
      id: 'aave-v3-weth-gateway',
      name: 'Aave v3 WrappedTokenGatewayV3',
      kind: 'protocol',
      deployments: onBase('0xa0d9C1E9E48Ca30c8d8C3B5D69FF5dc1f6DFfC24'),
      codes: [],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>
