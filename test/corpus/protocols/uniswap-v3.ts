import { type Address, type Hex, maxUint128, maxUint256, parseEther, parseUnits } from 'viem'
import { clients } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup } from '../corpus-case.js'
import {
  ABI,
  call,
  deadline,
  ensureUniswap,
  fundUsdc,
  POSITION_MANAGER,
  pools,
  SWAP_ROUTER02,
  send,
  TICK_SPACING,
  USDC,
  V3_FEE,
  WETH,
} from './support/uniswap-deploy.js'

/** SwapRouter02's recipient placeholders (`Constants.MSG_SENDER`, `Constants.ADDRESS_THIS`). */
const MSG_SENDER: Address = '0x0000000000000000000000000000000000000001'
const ADDRESS_THIS: Address = '0x0000000000000000000000000000000000000002'

/**
 * Uniswap v3 on real bytecode at the Base addresses: SwapRouter02
 * (`@uniswap/swap-router-contracts@1.3.1`) and the NonfungiblePositionManager
 * (`@uniswap/v3-periphery@1.4.4`) over the v3 factory and the WETH/USDC 0.05 % pool
 * (`@uniswap/v3-core@1.0.0`). Swaps name their recipient in the params struct (`recipient`);
 * `unwrapWETH9`/`sweepToken` take it as their last argument; a position NFT goes to `mint`'s
 * `recipient`; `collect` pays `recipient`; `increaseLiquidity` names only a `tokenId` (anyone may
 * add to anyone's position: the twin adds to a stranger's, whose owner the preflight reads).
 */
export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  await ensureUniswap(rpcUrl, deployer)
  const { pool } = await pools(rpcUrl)
  const { publicClient } = clients(rpcUrl, sender)
  const me = sender.address
  const read = (address: Address, abi: typeof ABI.v3Pool, functionName: string, args: unknown[]) =>
    publicClient.readContract({ address, abi, functionName, args } as never) as Promise<unknown>

  // A range of +-1,000 ticks around the current price (about +-10 %), on the tick spacing.
  const slot0 = (await read(pool, ABI.v3Pool, 'slot0', [])) as readonly [bigint, number]
  const tick = Math.floor(slot0[1] / TICK_SPACING) * TICK_SPACING
  const tickLower = tick - 1000
  const tickUpper = tick + 1000
  const mintParams = (recipient: Address, amount0: bigint, amount1: bigint) => ({
    token0: WETH,
    token1: USDC,
    fee: V3_FEE,
    tickLower,
    tickUpper,
    amount0Desired: amount0,
    amount1Desired: amount1,
    amount0Min: 0n,
    amount1Min: 0n,
    recipient,
    deadline: deadline(),
  })
  const npm = (functionName: string, args: unknown[]) =>
    call(ABI.positionManager, functionName, args)
  const sr02 = (functionName: string, args: unknown[]) => call(ABI.swapRouter02, functionName, args)

  // The sender's own prior actions: USDC and WETH in hand, both routers approved.
  await fundUsdc(rpcUrl, me, parseUnits('50000', 6))
  await send(rpcUrl, sender, WETH, call(ABI.weth, 'deposit'), parseEther('10'))
  for (const spender of [SWAP_ROUTER02, POSITION_MANAGER])
    for (const token of [USDC, WETH])
      await send(rpcUrl, sender, token, call(ABI.weth, 'approve', [spender, maxUint256]))
  // Position A: open, to add to, take from and collect fees from.
  await send(
    rpcUrl,
    sender,
    POSITION_MANAGER,
    npm('mint', [mintParams(me, parseEther('1'), parseUnits('3000', 6))]),
  )
  // Position B: opened, emptied and collected, so all that is left is to burn the NFT.
  await send(
    rpcUrl,
    sender,
    POSITION_MANAGER,
    npm('mint', [mintParams(me, parseEther('0.1'), parseUnits('300', 6))]),
  )
  const tokenOf = async (owner: Address, index: bigint) =>
    (await read(POSITION_MANAGER, ABI.positionManager, 'tokenOfOwnerByIndex', [
      owner,
      index,
    ])) as bigint
  const positionA = await tokenOf(me, 0n)
  const positionB = await tokenOf(me, 1n)
  const liquidityOf = async (tokenId: bigint) =>
    ((await read(POSITION_MANAGER, ABI.positionManager, 'positions', [tokenId])) as bigint[])[7] ??
    0n
  await send(
    rpcUrl,
    sender,
    POSITION_MANAGER,
    npm('decreaseLiquidity', [
      {
        tokenId: positionB,
        liquidity: await liquidityOf(positionB),
        amount0Min: 0n,
        amount1Min: 0n,
        deadline: deadline(),
      },
    ]),
  )
  await send(
    rpcUrl,
    sender,
    POSITION_MANAGER,
    npm('collect', [
      { tokenId: positionB, recipient: me, amount0Max: maxUint128, amount1Max: maxUint128 },
    ]),
  )

  // The deployer swaps both ways through the pool so position A accrues fees to collect.
  await fundUsdc(rpcUrl, deployer.address, parseUnits('50000', 6))
  await send(rpcUrl, deployer, WETH, call(ABI.weth, 'deposit'), parseEther('1'))
  for (const spender of [SWAP_ROUTER02, POSITION_MANAGER])
    for (const token of [USDC, WETH])
      await send(rpcUrl, deployer, token, call(ABI.weth, 'approve', [spender, maxUint256]))
  const swap = (tokenIn: Address, tokenOut: Address, recipient: Address, amountIn: bigint) =>
    sr02('exactInputSingle', [
      {
        tokenIn,
        tokenOut,
        fee: V3_FEE,
        recipient,
        amountIn,
        amountOutMinimum: 0n,
        sqrtPriceLimitX96: 0n,
      },
    ])
  const deployerAddress = deployer.address
  await send(
    rpcUrl,
    deployer,
    SWAP_ROUTER02,
    swap(WETH, USDC, deployerAddress, parseEther('5')),
    parseEther('5'),
  )
  await send(
    rpcUrl,
    deployer,
    SWAP_ROUTER02,
    swap(USDC, WETH, deployerAddress, parseUnits('15000', 6)),
  )
  await send(
    rpcUrl,
    deployer,
    SWAP_ROUTER02,
    swap(WETH, USDC, deployerAddress, parseEther('3')),
    parseEther('3'),
  )

  // A stranger's position (the deployer opens it for them): adding to it is a gift.
  await send(
    rpcUrl,
    deployer,
    POSITION_MANAGER,
    npm('mint', [mintParams(stranger, parseEther('0.1'), parseUnits('300', 6))]),
  )
  const strangersPosition = await tokenOf(stranger, 0n)

  const owedA = (await read(POSITION_MANAGER, ABI.positionManager, 'positions', [
    positionA,
  ])) as bigint[]
  const liquidityA = owedA[7] ?? 0n
  if (liquidityA === 0n) throw new Error('position A has no liquidity')

  // The swaps above must have left fees in both tokens for `collect` to claim.
  const { result: fees } = await publicClient.simulateContract({
    account: me,
    address: POSITION_MANAGER,
    abi: ABI.positionManager,
    functionName: 'collect',
    args: [{ tokenId: positionA, recipient: me, amount0Max: maxUint128, amount1Max: maxUint128 }],
  })
  const [fee0, fee1] = fees as readonly [bigint, bigint]
  if (fee0 === 0n || fee1 === 0n) throw new Error(`position A accrued no fees (${fee0}, ${fee1})`)

  const tx = (to: Address, data: Hex, value = 0n) => ({ from: me, to, data, value })
  const pair = (to: Address, build: (recipient: Address) => Hex, value = 0n) => ({
    benign: tx(to, build(me), value),
    twin: tx(to, build(stranger), value),
  })
  const ethIn = parseEther('0.1')
  const usdcIn = parseUnits('300', 6)
  const decrease = (liquidity: bigint) =>
    npm('decreaseLiquidity', [
      { tokenId: positionA, liquidity, amount0Min: 0n, amount1Min: 0n, deadline: deadline() },
    ])
  const increase = (tokenId: bigint) =>
    npm('increaseLiquidity', [
      {
        tokenId,
        amount0Desired: ethIn,
        amount1Desired: usdcIn,
        amount0Min: 0n,
        amount1Min: 0n,
        deadline: deadline(),
      },
    ])
  const collect = (recipient: Address) =>
    npm('collect', [
      { tokenId: positionA, recipient, amount0Max: maxUint128, amount1Max: maxUint128 },
    ])

  const cases: CorpusCase[] = [
    {
      name: 'swaprouter02.exact-input-single-eth',
      protocol: 'uniswap-v3',
      category: 'plain',
      ...pair(SWAP_ROUTER02, (recipient) => swap(WETH, USDC, recipient, ethIn), ethIn),
      twinIs: 'stranger as `recipient` (the USDC bought goes to a stranger)',
    },
    {
      name: 'swaprouter02.exact-input-single-eth-msg-sender',
      protocol: 'uniswap-v3',
      category: 'plain',
      benign: tx(SWAP_ROUTER02, swap(WETH, USDC, MSG_SENDER, ethIn), ethIn),
      twin: tx(SWAP_ROUTER02, swap(WETH, USDC, stranger, ethIn), ethIn),
      twinIs: 'stranger as `recipient` instead of the MSG_SENDER placeholder address(1)',
    },
    {
      name: 'swaprouter02.exact-input-single-usdc',
      protocol: 'uniswap-v3',
      category: 'plain',
      ...pair(SWAP_ROUTER02, (recipient) => swap(USDC, WETH, recipient, usdcIn)),
      twinIs: 'stranger as `recipient` (the WETH bought goes to a stranger)',
    },
    {
      name: 'swaprouter02.exact-output-single',
      protocol: 'uniswap-v3',
      category: 'plain',
      ...pair(SWAP_ROUTER02, (recipient) =>
        sr02('exactOutputSingle', [
          {
            tokenIn: USDC,
            tokenOut: WETH,
            fee: V3_FEE,
            recipient,
            amountOut: ethIn,
            amountInMaximum: parseUnits('330', 6),
            sqrtPriceLimitX96: 0n,
          },
        ]),
      ),
      twinIs: 'stranger as `recipient` (the exact WETH bought goes to a stranger)',
    },
    {
      name: 'swaprouter02.multicall-swap-unwrap-weth9',
      protocol: 'uniswap-v3',
      category: 'plain',
      ...pair(SWAP_ROUTER02, (recipient) =>
        call(ABI.swapRouter02, 'multicall', [
          deadline(),
          [
            swap(USDC, WETH, ADDRESS_THIS, usdcIn),
            sr02('unwrapWETH9', [parseEther('0.09'), recipient]),
          ],
        ]),
      ),
      twinIs:
        'stranger as unwrapWETH9 `recipient` (the swap keeps the WETH in the router via ADDRESS_THIS; the unwrapped ETH goes to a stranger)',
    },
    {
      name: 'swaprouter02.multicall-exact-output-eth-refund',
      protocol: 'uniswap-v3',
      category: 'plain',
      ...pair(
        SWAP_ROUTER02,
        (recipient) =>
          call(ABI.swapRouter02, 'multicall', [
            deadline(),
            [
              sr02('exactOutputSingle', [
                {
                  tokenIn: WETH,
                  tokenOut: USDC,
                  fee: V3_FEE,
                  recipient,
                  amountOut: parseUnits('250', 6),
                  amountInMaximum: ethIn,
                  sqrtPriceLimitX96: 0n,
                },
              ]),
              sr02('refundETH', []),
            ],
          ]),
        ethIn,
      ),
      twinIs: 'stranger as exactOutputSingle `recipient` (refundETH still returns unspent ETH)',
    },
    {
      name: 'swaprouter02.v2-swap-exact-tokens-for-tokens',
      protocol: 'uniswap-v3',
      category: 'plain',
      ...pair(SWAP_ROUTER02, (to) =>
        sr02('swapExactTokensForTokens', [usdcIn, parseEther('0.09'), [USDC, WETH], to]),
      ),
      twinIs: 'stranger as `to` (SwapRouter02’s v2 path; the WETH goes to a stranger)',
    },
    {
      name: 'position-manager.mint',
      protocol: 'uniswap-v3',
      category: 'receipt',
      ...pair(POSITION_MANAGER, (recipient) => npm('mint', [mintParams(recipient, ethIn, usdcIn)])),
      twinIs:
        'stranger as `recipient` (the position NFT for the sender’s WETH and USDC goes to a stranger)',
    },
    {
      name: 'position-manager.mint-eth-refund',
      protocol: 'uniswap-v3',
      category: 'receipt',
      ...pair(
        POSITION_MANAGER,
        (recipient) =>
          npm('multicall', [
            [npm('mint', [mintParams(recipient, ethIn, usdcIn)]), npm('refundETH', [])],
          ]),
        ethIn,
      ),
      twinIs:
        'stranger as mint `recipient` (the position NFT for the sender’s ETH and USDC goes to a stranger)',
    },
    {
      name: 'position-manager.increase-liquidity',
      protocol: 'uniswap-v3',
      category: 'receipt',
      benign: tx(POSITION_MANAGER, increase(positionA)),
      twin: tx(POSITION_MANAGER, increase(strangersPosition)),
      twinIs:
        'a stranger’s position as `tokenId` (anyone may add to any position: the sender’s WETH and USDC become the stranger’s; its owner is read with `ownerOf` in the same wave)',
    },
    {
      name: 'position-manager.decrease-liquidity',
      protocol: 'uniswap-v3',
      category: 'claim',
      benign: tx(POSITION_MANAGER, decrease(liquidityA / 2n)),
    },
    {
      name: 'position-manager.collect',
      protocol: 'uniswap-v3',
      category: 'claim',
      ...pair(POSITION_MANAGER, collect),
      twinIs: 'stranger as `recipient` (the sender’s accrued fees go to a stranger)',
    },
    {
      name: 'position-manager.remove-liquidity-eth',
      protocol: 'uniswap-v3',
      category: 'claim',
      ...pair(POSITION_MANAGER, (recipient) =>
        npm('multicall', [
          [
            decrease(liquidityA / 2n),
            collect('0x0000000000000000000000000000000000000000'),
            npm('unwrapWETH9', [0n, recipient]),
            npm('sweepToken', [USDC, 0n, recipient]),
          ],
        ]),
      ),
      twinIs:
        'stranger as unwrapWETH9 and sweepToken `recipient` (collect(recipient 0) parks the tokens in the manager; the ETH and USDC withdrawn go to a stranger)',
    },
    {
      name: 'position-manager.burn',
      protocol: 'uniswap-v3',
      category: 'receipt',
      benign: tx(POSITION_MANAGER, npm('burn', [positionB])),
    },
  ]
  return cases
}
