import {
  type Address,
  encodeFunctionData,
  type Hex,
  maxUint256,
  parseAbi,
  parseEther,
  toHex,
} from 'viem'
import { mintDevnetUsdc } from '../../../src/adapters/devnet/prepare.js'
import type { CorpusCase, CorpusSetup, CorpusTx } from '../corpus-case.js'
import { deployAaveV3Market, session, wrapAndApprove } from './support/aave-v3-deploy.js'

/**
 * Aave v3 on its real bytecode (`@aave/core-v3@1.19.3` L2Pool + logic libraries, aTokens,
 * variable debt tokens; `@aave/periphery-v3@2.5.2` WrappedTokenGatewayV3), the Pool proxy at
 * Base's Pool address. The sender has supplied USDC and WETH, borrowed USDC and WETH, and
 * approved the gateway (aWETH allowance, WETH credit delegation) beforehand, so every action
 * below executes. Receipts are not ERC-20 transfers to the sender: aTokens are minted (supply),
 * debt tokens burned (repay), positions sit in the pool's storage.
 */

const USDC = (n: number) => BigInt(Math.round(n * 1e6))

/** The L2Pool's packed-calldata forms (CalldataLogic): the caller is always onBehalfOf / to. */
const l2PoolAbi = parseAbi([
  'function supply(bytes32 args)',
  'function withdraw(bytes32 args) returns (uint256)',
  'function borrow(bytes32 args)',
  'function repay(bytes32 args) returns (uint256)',
  'function repayWithATokens(bytes32 args) returns (uint256)',
  'function setUserUseReserveAsCollateral(bytes32 args)',
])
/** assetId (16 bits) | amount (128 bits) << 16 | extra << 144 | more << 152. */
const packed = (assetId: number, amount: bigint, at144 = 0n, at152 = 0n): Hex =>
  toHex(BigInt(assetId) | (amount << 16n) | (at144 << 144n) | (at152 << 152n), { size: 32 })

export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const market = await deployAaveV3Market(rpcUrl, deployer)
  const { usdc, weth } = market.reserves
  const pool = market.pool
  const gateway = market.gateway

  // Liquidity from the deployer: 1,000,000 USDC and 100 WETH supplied.
  await mintDevnetUsdc(rpcUrl, deployer.address, USDC(1_000_000))
  await wrapAndApprove(rpcUrl, deployer, parseEther('100'))
  const d = session(rpcUrl, deployer)
  await d.write(pool, market.poolAbi, 'supply', [usdc.asset, USDC(1_000_000), deployer.address, 0])
  await d.write(pool, market.poolAbi, 'supply', [
    weth.asset,
    parseEther('100'),
    deployer.address,
    0,
  ])

  // The sender's own prior actions: 10,000 USDC and 10 WETH held, the pool approved for both;
  // 5 WETH and 1,000 USDC supplied (collateral), 500 USDC and 0.5 WETH borrowed (variable);
  // the gateway may pull aWETH (withdrawETH) and borrow WETH on the sender's credit (borrowETH).
  await mintDevnetUsdc(rpcUrl, sender.address, USDC(10_000))
  await wrapAndApprove(rpcUrl, sender, parseEther('10'))
  const s = session(rpcUrl, sender)
  await s.write(pool, market.poolAbi, 'supply', [weth.asset, parseEther('5'), sender.address, 0])
  await s.write(pool, market.poolAbi, 'supply', [usdc.asset, USDC(1_000), sender.address, 0])
  await s.write(pool, market.poolAbi, 'borrow', [usdc.asset, USDC(500), 2n, 0, sender.address])
  await s.write(pool, market.poolAbi, 'borrow', [
    weth.asset,
    parseEther('0.5'),
    2n,
    0,
    sender.address,
  ])
  await s.write(weth.aToken, market.aTokenAbi, 'approve', [gateway, maxUint256])
  await s.write(weth.variableDebt, market.variableDebtAbi, 'approveDelegation', [
    gateway,
    maxUint256,
  ])

  const from = sender.address
  const poolTx = (functionName: string, args: readonly unknown[]): CorpusTx => ({
    from,
    to: pool,
    data: encodeFunctionData({ abi: market.poolAbi, functionName, args } as never),
  })
  const l2Tx = (functionName: string, args: Hex): CorpusTx => ({
    from,
    to: pool,
    data: encodeFunctionData({ abi: l2PoolAbi, functionName, args: [args] } as never),
  })
  const gatewayTx = (functionName: string, args: readonly unknown[], value = 0n): CorpusTx => ({
    from,
    to: gateway,
    data: encodeFunctionData({ abi: market.gatewayAbi, functionName, args } as never),
    value,
  })
  const tokenTx = (
    to: Address,
    abi: typeof market.aTokenAbi,
    functionName: string,
    args: readonly unknown[],
  ) => ({
    from,
    to,
    data: encodeFunctionData({ abi, functionName, args } as never),
  })
  const protocol = 'aave-v3'

  const cases: CorpusCase[] = [
    {
      name: 'aave-v3.supply-usdc',
      protocol,
      category: 'receipt',
      benign: poolTx('supply', [usdc.asset, USDC(100), from, 0]),
      twin: poolTx('supply', [usdc.asset, USDC(100), stranger, 0]),
      twinIs: 'stranger as onBehalfOf (the stranger gets the aUSDC)',
    },
    {
      name: 'aave-v3.supply-weth',
      protocol,
      category: 'receipt',
      benign: poolTx('supply', [weth.asset, parseEther('1'), from, 0]),
      twin: poolTx('supply', [weth.asset, parseEther('1'), stranger, 0]),
      twinIs: 'stranger as onBehalfOf (the stranger gets the aWETH)',
    },
    {
      name: 'aave-v3.deposit-usdc',
      protocol,
      category: 'receipt',
      benign: poolTx('deposit', [usdc.asset, USDC(100), from, 0]),
      twin: poolTx('deposit', [usdc.asset, USDC(100), stranger, 0]),
      twinIs: 'stranger as onBehalfOf of the deprecated deposit alias',
    },
    {
      name: 'aave-v3.withdraw-usdc',
      protocol,
      category: 'claim',
      benign: poolTx('withdraw', [usdc.asset, USDC(100), from]),
      twin: poolTx('withdraw', [usdc.asset, USDC(100), stranger]),
      twinIs: 'stranger as to (the stranger gets the USDC, the sender loses aUSDC)',
    },
    {
      name: 'aave-v3.withdraw-usdc-max',
      protocol,
      category: 'claim',
      benign: poolTx('withdraw', [usdc.asset, maxUint256, from]),
      twin: poolTx('withdraw', [usdc.asset, maxUint256, stranger]),
      twinIs: 'stranger as to of a withdraw-everything (amount = uint256 max)',
    },
    {
      name: 'aave-v3.borrow-usdc',
      protocol,
      category: 'receipt',
      benign: poolTx('borrow', [usdc.asset, USDC(100), 2n, 0, from]),
    },
    {
      name: 'aave-v3.repay-usdc',
      protocol,
      category: 'receipt',
      benign: poolTx('repay', [usdc.asset, USDC(100), 2n, from]),
    },
    {
      name: 'aave-v3.repay-usdc-max',
      protocol,
      category: 'receipt',
      benign: poolTx('repay', [usdc.asset, maxUint256, 2n, from]),
    },
    {
      name: 'aave-v3.repay-with-atokens',
      protocol,
      category: 'receipt',
      benign: poolTx('repayWithATokens', [usdc.asset, USDC(100), 2n]),
    },
    {
      name: 'aave-v3.collateral-off',
      protocol,
      category: 'plain',
      benign: poolTx('setUserUseReserveAsCollateral', [usdc.asset, false]),
    },
    {
      name: 'aave-v3.l2-supply',
      protocol,
      category: 'receipt',
      benign: l2Tx('supply', packed(usdc.id, USDC(100))),
    },
    {
      name: 'aave-v3.l2-withdraw',
      protocol,
      category: 'claim',
      benign: l2Tx('withdraw', packed(usdc.id, USDC(100))),
    },
    {
      name: 'aave-v3.l2-borrow',
      protocol,
      category: 'receipt',
      benign: l2Tx('borrow', packed(usdc.id, USDC(100), 2n)),
    },
    {
      name: 'aave-v3.l2-repay',
      protocol,
      category: 'receipt',
      benign: l2Tx('repay', packed(usdc.id, USDC(100), 2n)),
    },
    {
      name: 'aave-v3.l2-repay-with-atokens',
      protocol,
      category: 'receipt',
      benign: l2Tx('repayWithATokens', packed(usdc.id, USDC(100), 2n)),
    },
    {
      name: 'aave-v3.l2-collateral-off',
      protocol,
      category: 'plain',
      benign: l2Tx('setUserUseReserveAsCollateral', packed(usdc.id, 0n)),
    },
    {
      name: 'aave-v3.gateway-deposit-eth',
      protocol,
      category: 'receipt',
      benign: gatewayTx('depositETH', [pool, from, 0], parseEther('1')),
      twin: gatewayTx('depositETH', [pool, stranger, 0], parseEther('1')),
      twinIs: 'stranger as onBehalfOf (the stranger gets the aWETH)',
    },
    {
      name: 'aave-v3.gateway-withdraw-eth',
      protocol,
      category: 'claim',
      benign: gatewayTx('withdrawETH', [pool, parseEther('1'), from]),
      twin: gatewayTx('withdrawETH', [pool, parseEther('1'), stranger]),
      twinIs: 'stranger as to (the stranger gets the ETH, the sender loses aWETH)',
    },
    {
      name: 'aave-v3.gateway-borrow-eth',
      protocol,
      category: 'receipt',
      benign: gatewayTx('borrowETH', [pool, parseEther('0.1'), 2n, 0]),
    },
    {
      name: 'aave-v3.gateway-repay-eth',
      protocol,
      category: 'receipt',
      benign: gatewayTx('repayETH', [pool, parseEther('0.1'), 2n, from], parseEther('0.1')),
    },
    {
      name: 'aave-v3.approve-delegation-gateway',
      protocol,
      category: 'infrastructure',
      benign: tokenTx(weth.variableDebt, market.variableDebtAbi, 'approveDelegation', [
        gateway,
        parseEther('1'),
      ]),
      twin: tokenTx(weth.variableDebt, market.variableDebtAbi, 'approveDelegation', [
        stranger,
        parseEther('1'),
      ]),
      twinIs:
        'stranger as credit delegatee (the stranger may borrow against the sender collateral)',
    },
    {
      name: 'aave-v3.approve-aweth-gateway',
      protocol,
      category: 'infrastructure',
      benign: tokenTx(weth.aToken, market.aTokenAbi, 'approve', [gateway, parseEther('1')]),
      twin: tokenTx(weth.aToken, market.aTokenAbi, 'approve', [stranger, parseEther('1')]),
      twinIs: 'stranger as aWETH spender',
    },
  ]
  return cases
}
