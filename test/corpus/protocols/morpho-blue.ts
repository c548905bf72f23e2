import {
  type Abi,
  type Address,
  encodeFunctionData,
  type Hex,
  maxUint256,
  pad,
  parseUnits,
  toHex,
} from 'viem'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../src/adapters/devnet/prepare.js'
import { deploy } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup, CorpusTx } from '../corpus-case.js'
import {
  deployProtocol,
  loadProtocolArtifact,
  type MarketParams,
  MORPHO_ABI,
  MORPHO_BLUE,
  marketId,
  marketSlot,
  placeBundler,
  placeMorphoBlue,
  positionSlot,
  send,
  testClient,
} from './support/morpho-blue-deploy.js'

/**
 * Morpho Blue (`@morpho-org/morpho-blue@1.0.0`, solc 0.8.19 viaIR) at its Base address, one
 * market: loan token = devnet USDC (6 decimals) at the real Base USDC address, collateral = an
 * OpenZeppelin ERC-20 (18 decimals), Morpho's own OracleMock (1 COL = 2,000 USDC) and IrmMock
 * (APR = utilization), LLTV 86 %. The sender holds a supply position, collateral and a debt
 * before any case runs, so every benign action executes. Morpho keeps positions in storage:
 * supplying, borrowing and repaying move tokens one way and change `position(id, user)`.
 */

const LLTV = parseUnits('0.86', 18)
/** OracleMock price: 1e36 * loan units per collateral unit; 1 COL (1e18) = 2,000 USDC (2,000e6). */
const PRICE = 2000n * 10n ** 24n
const usdc = (amount: string) => parseUnits(amount, 6)
const col = (amount: string) => parseUnits(amount, 18)

const ERC20_ABI = [
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const satisfies Abi

export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const test = testClient(rpcUrl)
  const me = sender.address

  // The protocol: Morpho at its canonical address, owned by the deployer; the mocks it ships.
  await placeMorphoBlue(rpcUrl, deployer.address)
  const bundlers = await placeBundler(rpcUrl, deployer)
  const oracleArtifact = loadProtocolArtifact('morpho-blue', 'OracleMock')
  const oracle = await deployProtocol(rpcUrl, oracleArtifact, [], deployer)
  const irm = await deployProtocol(
    rpcUrl,
    loadProtocolArtifact('morpho-blue', 'IrmMock'),
    [],
    deployer,
  )
  const collateral = await deploy(rpcUrl, 'TestERC20', ['Collateral Token', 'COL'], deployer)
  await send(rpcUrl, deployer, oracle, oracleArtifact.abi, 'setPrice', [PRICE])
  const market: MarketParams = {
    loanToken: USDC_ADDRESS,
    collateralToken: collateral.address,
    oracle,
    irm,
    lltv: LLTV,
  }
  const id = marketId(market)
  const morpho = (functionName: string, args: readonly unknown[]) =>
    send(rpcUrl, deployer, MORPHO_BLUE, MORPHO_ABI, functionName, args)
  await morpho('enableIrm', [irm])
  await morpho('enableLltv', [LLTV])
  await morpho('createMarket', [market])

  // Liquidity: the deployer lends 50,000 USDC.
  await mintDevnetUsdc(rpcUrl, deployer.address, usdc('50000'))
  await send(rpcUrl, deployer, USDC_ADDRESS, ERC20_ABI, 'approve', [MORPHO_BLUE, maxUint256])
  await morpho('supply', [market, usdc('50000'), 0n, deployer.address, '0x'])

  // The sender's own prior actions: tokens, approvals, a supply, collateral, a debt, and an
  // authorization of an older bundler instance it may revoke.
  await mintDevnetUsdc(rpcUrl, me, usdc('10000'))
  await send(rpcUrl, deployer, collateral.address, collateral.abi, 'mint', [me, col('100')])
  const asSender = (address: Address, abi: Abi, functionName: string, args: readonly unknown[]) =>
    send(rpcUrl, sender, address, abi, functionName, args)
  await asSender(USDC_ADDRESS, ERC20_ABI, 'approve', [MORPHO_BLUE, maxUint256])
  await asSender(collateral.address, ERC20_ABI, 'approve', [MORPHO_BLUE, maxUint256])
  await asSender(MORPHO_BLUE, MORPHO_ABI, 'supply', [market, usdc('1000'), 0n, me, '0x'])
  await asSender(MORPHO_BLUE, MORPHO_ABI, 'supplyCollateral', [market, col('10'), me, '0x'])
  await asSender(MORPHO_BLUE, MORPHO_ABI, 'borrow', [market, usdc('1000'), 0n, me, me])
  await asSender(MORPHO_BLUE, MORPHO_ABI, 'setAuthorization', [bundlers.created, true])

  // A stranger's debt, for the "repay someone else's loan" twin. Collateral for the stranger is
  // a real supplyCollateral(onBehalf = stranger) by the deployer; the 100 USDC debt is written
  // into storage (a stranger's borrow needs the stranger's own transaction or signature), with
  // the market's borrow totals raised by the same assets and shares.
  await mintDevnetUsdc(rpcUrl, deployer.address, usdc('1'))
  await send(rpcUrl, deployer, collateral.address, collateral.abi, 'mint', [
    deployer.address,
    col('1'),
  ])
  await send(rpcUrl, deployer, collateral.address, ERC20_ABI, 'approve', [MORPHO_BLUE, maxUint256])
  await morpho('supplyCollateral', [market, col('1'), stranger, '0x'])
  await morpho('accrueInterest', [market])
  const word = async (slot: Hex) =>
    BigInt((await test.getStorageAt({ address: MORPHO_BLUE, slot })) ?? 0)
  const mask = (1n << 128n) - 1n
  const borrowWord = await word(marketSlot(id, 1n))
  const totalBorrowAssets = borrowWord & mask
  const totalBorrowShares = borrowWord >> 128n
  const debt = usdc('100')
  // SharesMathLib.toSharesUp(assets, totalAssets, totalShares) with VIRTUAL_SHARES 1e6, VIRTUAL_ASSETS 1.
  const debtShares =
    (debt * (totalBorrowShares + 10n ** 6n) + (totalBorrowAssets + 1n) - 1n) /
    (totalBorrowAssets + 1n)
  const strangerWord = await word(positionSlot(id, stranger, 1n))
  await test.setStorageAt({
    address: MORPHO_BLUE,
    index: positionSlot(id, stranger, 1n),
    value: pad(toHex((strangerWord & ~mask) | ((strangerWord & mask) + debtShares))),
  })
  await test.setStorageAt({
    address: MORPHO_BLUE,
    index: marketSlot(id, 1n),
    value: pad(toHex(((totalBorrowShares + debtShares) << 128n) | (totalBorrowAssets + debt))),
  })

  const position = (await test.readContract({
    address: MORPHO_BLUE,
    abi: MORPHO_ABI,
    functionName: 'position',
    args: [id, me],
  })) as readonly [bigint, bigint, bigint]
  const [supplyShares, borrowShares] = position
  const strangerPosition = (await test.readContract({
    address: MORPHO_BLUE,
    abi: MORPHO_ABI,
    functionName: 'position',
    args: [id, stranger],
  })) as readonly [bigint, bigint, bigint]
  if (strangerPosition[1] !== debtShares || strangerPosition[2] !== col('1'))
    throw new Error('stranger position not prepared')

  const tx = (functionName: string, args: readonly unknown[]): CorpusTx => ({
    from: me,
    to: MORPHO_BLUE,
    data: encodeFunctionData({ abi: MORPHO_ABI, functionName, args }),
  })
  const cases: CorpusCase[] = [
    {
      name: 'morpho.supply',
      protocol: 'morpho-blue',
      category: 'receipt',
      benign: tx('supply', [market, usdc('100'), 0n, me, '0x']),
      twin: tx('supply', [market, usdc('100'), 0n, stranger, '0x']),
      twinIs: 'stranger as onBehalf (the supply position is credited to the stranger)',
    },
    {
      name: 'morpho.supply-collateral',
      protocol: 'morpho-blue',
      category: 'receipt',
      benign: tx('supplyCollateral', [market, col('5'), me, '0x']),
      twin: tx('supplyCollateral', [market, col('5'), stranger, '0x']),
      twinIs: 'stranger as onBehalf (the collateral is credited to the stranger)',
    },
    {
      name: 'morpho.borrow',
      protocol: 'morpho-blue',
      category: 'claim',
      benign: tx('borrow', [market, usdc('500'), 0n, me, me]),
      twin: tx('borrow', [market, usdc('500'), 0n, me, stranger]),
      twinIs: 'stranger as receiver (the sender takes the debt, the stranger gets the USDC)',
    },
    {
      name: 'morpho.repay',
      protocol: 'morpho-blue',
      category: 'receipt',
      benign: tx('repay', [market, usdc('50'), 0n, me, '0x']),
      twin: tx('repay', [market, usdc('50'), 0n, stranger, '0x']),
      twinIs: "repays a stranger's debt (stranger as onBehalf)",
    },
    {
      name: 'morpho.repay-all-by-shares',
      protocol: 'morpho-blue',
      category: 'receipt',
      benign: tx('repay', [market, 0n, borrowShares, me, '0x']),
    },
    {
      name: 'morpho.withdraw',
      protocol: 'morpho-blue',
      category: 'claim',
      benign: tx('withdraw', [market, usdc('100'), 0n, me, me]),
      twin: tx('withdraw', [market, usdc('100'), 0n, me, stranger]),
      twinIs: "stranger as receiver (the sender's supply is withdrawn to the stranger)",
    },
    {
      name: 'morpho.withdraw-all-by-shares',
      protocol: 'morpho-blue',
      category: 'claim',
      benign: tx('withdraw', [market, 0n, supplyShares, me, me]),
      twin: tx('withdraw', [market, 0n, supplyShares, me, stranger]),
      twinIs: "stranger as receiver (the sender's whole supply is withdrawn to the stranger)",
    },
    {
      name: 'morpho.withdraw-collateral',
      protocol: 'morpho-blue',
      category: 'claim',
      benign: tx('withdrawCollateral', [market, col('1'), me, me]),
      twin: tx('withdrawCollateral', [market, col('1'), me, stranger]),
      twinIs: "stranger as receiver (the sender's collateral is sent to the stranger)",
    },
    {
      name: 'morpho.authorize-bundler',
      protocol: 'morpho-blue',
      category: 'plain',
      benign: tx('setAuthorization', [bundlers.canonical, true]),
      twin: tx('setAuthorization', [stranger, true]),
      twinIs:
        'a stranger EOA as authorized (it may then withdraw, borrow and withdraw collateral for the sender to itself)',
    },
    {
      name: 'morpho.revoke-authorization',
      protocol: 'morpho-blue',
      category: 'plain',
      benign: tx('setAuthorization', [bundlers.created, false]),
    },
  ]
  return cases
}
