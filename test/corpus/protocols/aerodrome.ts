import { type Address, maxUint256, parseEther, parseUnits } from 'viem'
import { mintDevnetUsdc } from '../../../src/adapters/devnet/prepare.js'
import { deploy } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup, CorpusTx } from '../corpus-case.js'
import {
  ABI,
  AERODROME,
  call,
  deadline,
  read,
  route,
  seedPools,
  send,
  USDC,
  WETH,
} from './support/aerodrome-deploy.js'

/**
 * Aerodrome (Velodrome v2 design), on contracts of our own that implement its published
 * interface (contracts/test/Aerodrome.sol; no Aerodrome bytecode ships on npm): the Router and
 * VotingEscrow at their Base addresses, pools made by the PoolFactory at its Base address
 * (volatile WETH/USDC and AERO/WETH, stable USDC/TDAI), a gauge staking WETH/USDC LP tokens for
 * AERO. Every Router call pays `to`, a pool's low-level calls pay `to`, a gauge pays rewards to
 * `_account` and a lock's veNFT goes to `_to`: each twin names a stranger there.
 */
export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const world = await seedPools(rpcUrl, deployer)
  const me = sender.address
  const gauge = (
    await deploy(
      rpcUrl,
      'AerodromeGauge',
      [world.wethUsdc, AERODROME.aero, deployer.address],
      deployer,
    )
  ).address

  // The sender's own earlier actions: USDC, TDAI, AERO and WETH in hand, the Router approved for
  // each, a WETH/USDC liquidity position (its LP tokens approved to the Router and the gauge),
  // part of it staked in the gauge with AERO rewards owed, AERO approved to the VotingEscrow.
  await mintDevnetUsdc(rpcUrl, me, parseUnits('20000', 6))
  await send(rpcUrl, deployer, world.dai, call(ABI.erc20, 'mint', [me, parseEther('2000')]))
  await send(rpcUrl, deployer, AERODROME.aero, call(ABI.token, 'mint', [me, parseEther('5000')]))
  await send(rpcUrl, sender, WETH, call(ABI.weth, 'deposit'), parseEther('3'))
  for (const token of [USDC, world.dai, AERODROME.aero, WETH, world.wethUsdc, world.usdcDai]) {
    await send(rpcUrl, sender, token, call(ABI.erc20, 'approve', [AERODROME.router, maxUint256]))
  }
  await send(rpcUrl, sender, world.wethUsdc, call(ABI.erc20, 'approve', [gauge, maxUint256]))
  await send(
    rpcUrl,
    sender,
    AERODROME.aero,
    call(ABI.erc20, 'approve', [AERODROME.votingEscrow, maxUint256]),
  )
  await send(
    rpcUrl,
    sender,
    AERODROME.router,
    call(ABI.router, 'addLiquidityETH', [
      USDC,
      false,
      parseUnits('3000', 6),
      0n,
      0n,
      me,
      deadline(),
    ]),
    parseEther('1'),
  )
  await send(
    rpcUrl,
    sender,
    AERODROME.router,
    call(ABI.router, 'addLiquidity', [
      USDC,
      world.dai,
      true,
      parseUnits('1000', 6),
      parseEther('1000'),
      0n,
      0n,
      me,
      deadline(),
    ]),
  )
  const lp = await read<bigint>(rpcUrl, world.wethUsdc, ABI.erc20, 'balanceOf', [me])
  const stableLp = await read<bigint>(rpcUrl, world.usdcDai, ABI.erc20, 'balanceOf', [me])
  await send(rpcUrl, sender, gauge, call(ABI.gauge, 'deposit', [lp / 4n]))
  await send(rpcUrl, deployer, AERODROME.aero, call(ABI.erc20, 'approve', [gauge, maxUint256]))
  await send(rpcUrl, deployer, gauge, call(ABI.gauge, 'notifyRewardAmount', [parseEther('100')]))
  // Pool-level calls pay for what was paid in first: AERO for a swap, LP tokens for a burn.
  await send(
    rpcUrl,
    sender,
    AERODROME.aero,
    call(ABI.erc20, 'transfer', [world.aeroWeth, parseEther('1000')]),
  )
  await send(
    rpcUrl,
    sender,
    world.usdcDai,
    call(ABI.erc20, 'transfer', [world.usdcDai, stableLp / 2n]),
  )

  const tx = (to: Address, data: `0x${string}`, value = 0n): CorpusTx => ({
    from: me,
    to,
    data,
    value,
  })
  const pair = (
    to: Address,
    make: (recipient: Address) => `0x${string}`,
    value = 0n,
  ): Pick<CorpusCase, 'benign' | 'twin'> => ({
    benign: tx(to, make(me), value),
    twin: tx(to, make(stranger), value),
  })
  const router = (functionName: string, args: (to: Address) => unknown[], value = 0n) =>
    pair(AERODROME.router, (to) => call(ABI.router, functionName, args(to)), value)
  const usdcIn = parseUnits('300', 6)
  // What the AERO paid into the AERO/WETH pool buys of WETH, at the pool's own quote.
  const aeroToken0 =
    (await read<Address>(rpcUrl, world.aeroWeth, ABI.pool, 'token0')).toLowerCase() ===
    AERODROME.aero.toLowerCase()
  const wethOut = await read<bigint>(rpcUrl, world.aeroWeth, ABI.pool, 'getAmountOut', [
    parseEther('1000'),
    AERODROME.aero,
  ])

  const cases: CorpusCase[] = [
    {
      name: 'aerodrome.swap-volatile',
      protocol: 'aerodrome',
      category: 'plain',
      ...router('swapExactTokensForTokens', (to) => [
        usdcIn,
        parseEther('0.09'),
        [route(USDC, WETH, false)],
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (the WETH bought goes to a stranger)',
    },
    {
      name: 'aerodrome.swap-stable',
      protocol: 'aerodrome',
      category: 'plain',
      ...router('swapExactTokensForTokens', (to) => [
        usdcIn,
        parseEther('299'),
        [route(USDC, world.dai, true)],
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (the TDAI bought on the stable curve goes to a stranger)',
    },
    {
      name: 'aerodrome.swap-two-routes',
      protocol: 'aerodrome',
      category: 'plain',
      ...router('swapExactTokensForTokens', (to) => [
        parseEther('300'),
        parseEther('0.09'),
        [route(world.dai, USDC, true), route(USDC, WETH, false)],
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (TDAI -> USDC -> WETH, the WETH to a stranger)',
    },
    {
      name: 'aerodrome.swap-exact-eth-for-tokens',
      protocol: 'aerodrome',
      category: 'plain',
      ...router(
        'swapExactETHForTokens',
        (to) => [parseUnits('250', 6), [route(WETH, USDC, false)], to, deadline()],
        parseEther('0.1'),
      ),
      twinIs: 'stranger as `to` (the USDC bought with the sender’s ETH goes to a stranger)',
    },
    {
      name: 'aerodrome.swap-exact-tokens-for-eth',
      protocol: 'aerodrome',
      category: 'plain',
      ...router('swapExactTokensForETH', (to) => [
        usdcIn,
        parseEther('0.09'),
        [route(USDC, WETH, false)],
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (the ETH bought goes to a stranger)',
    },
    {
      name: 'aerodrome.swap-supporting-fee-on-transfer',
      protocol: 'aerodrome',
      category: 'plain',
      ...router('swapExactTokensForTokensSupportingFeeOnTransferTokens', (to) => [
        usdcIn,
        parseEther('0.09'),
        [route(USDC, WETH, false)],
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (the WETH bought goes to a stranger)',
    },
    {
      name: 'aerodrome.add-liquidity',
      protocol: 'aerodrome',
      category: 'receipt',
      ...router('addLiquidity', (to) => [
        WETH,
        USDC,
        false,
        parseEther('0.1'),
        parseUnits('300', 6),
        0n,
        0n,
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (the LP tokens for the sender’s WETH and USDC go to a stranger)',
    },
    {
      name: 'aerodrome.add-liquidity-eth',
      protocol: 'aerodrome',
      category: 'receipt',
      ...router(
        'addLiquidityETH',
        (to) => [USDC, false, parseUnits('300', 6), 0n, 0n, to, deadline()],
        parseEther('0.1'),
      ),
      twinIs: 'stranger as `to` (the LP tokens for the sender’s ETH and USDC go to a stranger)',
    },
    {
      name: 'aerodrome.remove-liquidity',
      protocol: 'aerodrome',
      category: 'claim',
      ...router('removeLiquidity', (to) => [WETH, USDC, false, lp / 8n, 0n, 0n, to, deadline()]),
      twinIs:
        'stranger as `to` (the WETH and USDC withdrawn from the sender’s LP go to a stranger)',
    },
    {
      name: 'aerodrome.remove-liquidity-eth',
      protocol: 'aerodrome',
      category: 'claim',
      ...router('removeLiquidityETH', (to) => [USDC, false, lp / 8n, 0n, 0n, to, deadline()]),
      twinIs: 'stranger as `to` (the ETH and USDC withdrawn from the sender’s LP go to a stranger)',
    },
    {
      name: 'aerodrome.pool-swap',
      protocol: 'aerodrome',
      category: 'plain',
      ...pair(world.aeroWeth, (to) =>
        call(ABI.pool, 'swap', [aeroToken0 ? 0n : wethOut, aeroToken0 ? wethOut : 0n, to, '0x']),
      ),
      twinIs: 'stranger as `to` (the WETH the AERO paid in buys goes to a stranger)',
    },
    {
      name: 'aerodrome.pool-burn',
      protocol: 'aerodrome',
      category: 'claim',
      ...pair(world.usdcDai, (to) => call(ABI.pool, 'burn', [to])),
      twinIs: 'stranger as `to` (the USDC and TDAI of the LP tokens paid in go to a stranger)',
    },
    {
      name: 'aerodrome.gauge-stake',
      protocol: 'aerodrome',
      category: 'receipt',
      benign: tx(gauge, call(ABI.gauge, 'deposit', [lp / 8n])),
      review: {
        findings: ['drain-shape'],
        why: 'a gauge is deployed per pool by the Voter, at no canonical address, and its stake is no token: the LP tokens go to a contract the screen does not know and nothing comes back',
      },
    },
    {
      name: 'aerodrome.gauge-stake-for',
      protocol: 'aerodrome',
      category: 'receipt',
      ...pair(gauge, (to) => call(ABI.gauge, 'deposit', [lp / 8n, to])),
      twinIs: 'stranger as `_recipient` (the staked LP is credited to a stranger)',
    },
    {
      name: 'aerodrome.gauge-unstake',
      protocol: 'aerodrome',
      category: 'claim',
      benign: tx(gauge, call(ABI.gauge, 'withdraw', [lp / 8n])),
    },
    {
      name: 'aerodrome.gauge-claim-rewards',
      protocol: 'aerodrome',
      category: 'claim',
      ...pair(gauge, (account) => call(ABI.gauge, 'getReward', [account])),
      twinIs:
        'stranger as `_account` (rewards paid to a stranger; only the account itself may ask)',
    },
    {
      name: 'aerodrome.lock-aero',
      protocol: 'aerodrome',
      category: 'receipt',
      benign: tx(
        AERODROME.votingEscrow,
        call(ABI.escrow, 'createLock', [parseEther('100'), 4n * 7n * 86_400n]),
      ),
    },
    {
      name: 'aerodrome.lock-aero-for',
      protocol: 'aerodrome',
      category: 'receipt',
      ...pair(AERODROME.votingEscrow, (to) =>
        call(ABI.escrow, 'createLockFor', [parseEther('100'), 4n * 7n * 86_400n, to]),
      ),
      twinIs:
        'stranger as `_to` (the veNFT holding the sender’s locked AERO is minted to a stranger)',
    },
  ]
  return cases
}
