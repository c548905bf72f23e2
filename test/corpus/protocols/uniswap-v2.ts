import { type Address, maxUint256, parseEther, parseUnits } from 'viem'
import { clients } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup } from '../corpus-case.js'
import {
  ABI,
  call,
  deadline,
  ensureUniswap,
  fundUsdc,
  pools,
  send,
  USDC,
  V2_ROUTER02,
  WETH,
} from './support/uniswap-deploy.js'

/**
 * Uniswap v2 Router02 (`@uniswap/v2-periphery@1.1.0-beta.0`) over the real v2 factory and pair
 * (`@uniswap/v2-core@1.0.1`), at their Base addresses, on the WETH/USDC pair. The recipient of
 * every Router02 function is its `to` argument; the twin names a stranger there.
 */
export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  await ensureUniswap(rpcUrl, deployer)
  const { pair } = await pools(rpcUrl)
  const me = sender.address

  // The sender's own prior actions: USDC in hand, the router approved, WETH wrapped, and a
  // liquidity position (LP tokens) opened beforehand, approved to the router for removal.
  await fundUsdc(rpcUrl, me, parseUnits('20000', 6))
  await send(rpcUrl, sender, USDC, call(ABI.weth, 'approve', [V2_ROUTER02, maxUint256]))
  await send(rpcUrl, sender, WETH, call(ABI.weth, 'deposit'), parseEther('2'))
  await send(rpcUrl, sender, WETH, call(ABI.weth, 'approve', [V2_ROUTER02, maxUint256]))
  await send(
    rpcUrl,
    sender,
    V2_ROUTER02,
    call(ABI.router02, 'addLiquidityETH', [USDC, parseUnits('3000', 6), 0n, 0n, me, deadline()]),
    parseEther('1'),
  )
  await send(rpcUrl, sender, pair, call(ABI.v2Pair, 'approve', [V2_ROUTER02, maxUint256]))

  const router = (functionName: string, args: (to: Address) => unknown[], value = 0n) => ({
    benign: { from: me, to: V2_ROUTER02, data: call(ABI.router02, functionName, args(me)), value },
    twin: {
      from: me,
      to: V2_ROUTER02,
      data: call(ABI.router02, functionName, args(stranger)),
      value,
    },
  })
  const oneEth = parseEther('0.1')
  const usdcIn = parseUnits('300', 6)
  // A fifth of the sender's LP tokens (1 ETH + 3,000 USDC: about 5.5e13 wei of liquidity).
  const { publicClient } = clients(rpcUrl, sender)
  const lpBalance = (await publicClient.readContract({
    address: pair,
    abi: ABI.v2Pair,
    functionName: 'balanceOf',
    args: [me],
  })) as bigint
  const lp = lpBalance / 5n

  const cases: CorpusCase[] = [
    {
      name: 'uniswap-v2.swap-exact-eth-for-tokens',
      protocol: 'uniswap-v2',
      category: 'plain',
      ...router(
        'swapExactETHForTokens',
        (to) => [parseUnits('200', 6), [WETH, USDC], to, deadline()],
        oneEth,
      ),
      twinIs: 'stranger as `to` (the USDC bought goes to a stranger)',
    },
    {
      name: 'uniswap-v2.swap-eth-for-exact-tokens',
      protocol: 'uniswap-v2',
      category: 'plain',
      ...router(
        'swapETHForExactTokens',
        (to) => [parseUnits('250', 6), [WETH, USDC], to, deadline()],
        oneEth,
      ),
      twinIs: 'stranger as `to` (the USDC bought goes to a stranger; unspent ETH still refunded)',
    },
    {
      name: 'uniswap-v2.swap-exact-tokens-for-eth',
      protocol: 'uniswap-v2',
      category: 'plain',
      ...router('swapExactTokensForETH', (to) => [
        usdcIn,
        parseEther('0.09'),
        [USDC, WETH],
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (the ETH bought goes to a stranger)',
    },
    {
      name: 'uniswap-v2.swap-exact-tokens-for-tokens',
      protocol: 'uniswap-v2',
      category: 'plain',
      ...router('swapExactTokensForTokens', (to) => [
        usdcIn,
        parseEther('0.09'),
        [USDC, WETH],
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (the WETH bought goes to a stranger)',
    },
    {
      name: 'uniswap-v2.add-liquidity-eth',
      protocol: 'uniswap-v2',
      category: 'receipt',
      ...router(
        'addLiquidityETH',
        (to) => [
          USDC,
          parseUnits('300', 6),
          parseUnits('290', 6),
          parseEther('0.09'),
          to,
          deadline(),
        ],
        oneEth,
      ),
      twinIs: 'stranger as `to` (the LP tokens for the sender’s ETH and USDC go to a stranger)',
    },
    {
      name: 'uniswap-v2.add-liquidity',
      protocol: 'uniswap-v2',
      category: 'receipt',
      ...router('addLiquidity', (to) => [
        WETH,
        USDC,
        oneEth,
        parseUnits('300', 6),
        parseEther('0.09'),
        parseUnits('290', 6),
        to,
        deadline(),
      ]),
      twinIs: 'stranger as `to` (the LP tokens for the sender’s WETH and USDC go to a stranger)',
    },
    {
      name: 'uniswap-v2.remove-liquidity-eth',
      protocol: 'uniswap-v2',
      category: 'claim',
      ...router('removeLiquidityETH', (to) => [USDC, lp, 0n, 0n, to, deadline()]),
      twinIs: 'stranger as `to` (the ETH and USDC withdrawn from the sender’s LP go to a stranger)',
    },
    {
      name: 'uniswap-v2.remove-liquidity',
      protocol: 'uniswap-v2',
      category: 'claim',
      ...router('removeLiquidity', (to) => [WETH, USDC, lp, 0n, 0n, to, deadline()]),
      twinIs:
        'stranger as `to` (the WETH and USDC withdrawn from the sender’s LP go to a stranger)',
    },
  ]
  return cases
}
