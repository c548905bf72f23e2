import {
  type Address,
  createTestClient,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  type LocalAccount,
  maxUint256,
  parseAbiParameters,
  parseEther,
  parseUnits,
  zeroAddress,
} from 'viem'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../src/adapters/devnet/prepare.js'
import { clients, deploy, loadArtifact } from '../../support/contracts.js'
import type { CorpusCase, CorpusSetup, CorpusTx } from '../corpus-case.js'

/**
 * Balancer v2's Vault at its address, on contracts of our own that implement its published
 * interface (contracts/test/BalancerVault.sol; `@balancer-labs/v2-deployments` ships the real
 * artifacts but pulls Hardhat and 224 other packages): a WETH/USDC pool the Vault keeps, swaps,
 * joins and exits paying a recipient or crediting its internal balance (a claim kept in the
 * Vault, which no token shows: `positionChanges` reads it), internal balance deposits and
 * withdrawals, relayer approvals. Each twin names a stranger as the recipient or the relayer.
 */
const VAULT = getAddress('0xBA12222222228d8Ba445958a75a0704d566BF2C8')
const WETH: Address = '0x4200000000000000000000000000000000000006'
const vaultAbi = loadArtifact('BalancerVaultStandIn').abi
const poolAbi = loadArtifact('BalancerPoolStandIn').abi
const erc20Abi = loadArtifact('TestERC20').abi
const wethAbi = [
  { type: 'function', name: 'deposit', stateMutability: 'payable', inputs: [], outputs: [] },
] as const

const call = (abi: typeof vaultAbi, functionName: string, args: readonly unknown[] = []): Hex =>
  encodeFunctionData({ abi, functionName, args } as never)

const joinData = (kind: bigint, amounts: bigint[], minBpt?: bigint): Hex =>
  minBpt === undefined
    ? encodeAbiParameters(parseAbiParameters('uint256, uint256[]'), [kind, amounts])
    : encodeAbiParameters(parseAbiParameters('uint256, uint256[], uint256'), [
        kind,
        amounts,
        minBpt,
      ])

export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
  await test.setCode({
    address: VAULT,
    bytecode: loadArtifact('BalancerVaultStandIn').deployedBytecode,
  })
  const send = async (account: LocalAccount, to: Address, data: Hex, value = 0n) => {
    const { walletClient, publicClient } = clients(rpcUrl, account)
    const hash = await walletClient.sendTransaction({ to, data, value, gas: 3_000_000n })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`balancer: a setup call to ${to} reverted`)
  }
  // Pool tokens in the Vault's order (ascending addresses): WETH, then USDC.
  const pool = (
    await deploy(rpcUrl, 'BalancerPoolStandIn', [VAULT, [WETH, USDC_ADDRESS]], deployer)
  ).address
  const { publicClient } = clients(rpcUrl)
  const poolId = (await publicClient.readContract({
    address: pool,
    abi: poolAbi,
    functionName: 'poolId',
  })) as Hex
  const assets = [WETH, USDC_ADDRESS]
  const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 1800)

  // A lender seeds the pool: 10 WETH against 30,000 USDC.
  for (const account of [deployer, sender]) {
    await mintDevnetUsdc(rpcUrl, account.address, parseUnits('40000', 6))
    await send(account, WETH, call(wethAbi as never, 'deposit'), parseEther('12'))
    for (const token of [WETH, USDC_ADDRESS]) {
      await send(account, token, call(erc20Abi, 'approve', [VAULT, maxUint256]))
    }
  }
  const seed = [parseEther('10'), parseUnits('30000', 6)]
  await send(
    deployer,
    VAULT,
    call(vaultAbi, 'joinPool', [
      poolId,
      deployer.address,
      deployer.address,
      { assets, maxAmountsIn: seed, userData: joinData(0n, seed), fromInternalBalance: false },
    ]),
  )
  // The sender's own earlier actions: a liquidity position (BPT), 1,000 USDC of internal balance.
  const me = sender.address
  const mine = [parseEther('1'), parseUnits('3000', 6)]
  await send(
    sender,
    VAULT,
    call(vaultAbi, 'joinPool', [
      poolId,
      me,
      me,
      { assets, maxAmountsIn: mine, userData: joinData(1n, mine, 0n), fromInternalBalance: false },
    ]),
  )
  await send(
    sender,
    VAULT,
    call(vaultAbi, 'manageUserBalance', [
      [{ kind: 0, asset: USDC_ADDRESS, amount: parseUnits('1000', 6), sender: me, recipient: me }],
    ]),
  )
  const bpt = (await publicClient.readContract({
    address: pool,
    abi: poolAbi,
    functionName: 'balanceOf',
    args: [me],
  })) as bigint

  const tx = (data: Hex, value = 0n): CorpusTx => ({ from: me, to: VAULT, data, value })
  const pair = (make: (who: Address) => Hex, value = 0n) => ({
    benign: tx(make(me), value),
    twin: tx(make(stranger), value),
  })
  const funds = (recipient: Address, fromInternal = false, toInternal = false) => ({
    sender: me,
    fromInternalBalance: fromInternal,
    recipient,
    toInternalBalance: toInternal,
  })
  const single = (assetIn: Address, assetOut: Address, amount: bigint) => ({
    poolId,
    kind: 0,
    assetIn,
    assetOut,
    amount,
    userData: '0x',
  })
  const usdcForWeth = single(USDC_ADDRESS, WETH, parseUnits('300', 6))
  const swap = (s: ReturnType<typeof single>, f: ReturnType<typeof funds>) =>
    call(vaultAbi, 'swap', [s, f, 0n, deadline()])

  const cases: CorpusCase[] = [
    {
      name: 'balancer.swap',
      protocol: 'balancer',
      category: 'plain',
      ...pair((to) => swap(usdcForWeth, funds(to))),
      twinIs: 'stranger as `funds.recipient` (the WETH bought goes to a stranger)',
    },
    {
      name: 'balancer.swap-eth-in',
      protocol: 'balancer',
      category: 'plain',
      ...pair(
        (to) => swap(single(zeroAddress, USDC_ADDRESS, parseEther('0.1')), funds(to)),
        parseEther('0.1'),
      ),
      twinIs:
        'stranger as `funds.recipient` (the USDC bought with the sender’s ETH goes to a stranger)',
    },
    {
      name: 'balancer.swap-to-internal-balance',
      protocol: 'balancer',
      category: 'claim',
      ...pair((to) => swap(usdcForWeth, funds(to, false, true))),
      twinIs:
        'stranger as `funds.recipient` (the WETH bought is credited to a stranger’s internal balance)',
    },
    {
      name: 'balancer.swap-from-internal-balance',
      protocol: 'balancer',
      category: 'claim',
      ...pair((to) => swap(usdcForWeth, funds(to, true, false))),
      twinIs:
        'stranger as `funds.recipient` (the WETH the sender’s internal USDC buys goes to a stranger)',
    },
    {
      name: 'balancer.batch-swap',
      protocol: 'balancer',
      category: 'plain',
      ...pair((to) =>
        call(vaultAbi, 'batchSwap', [
          0,
          [
            {
              poolId,
              assetInIndex: 1n,
              assetOutIndex: 0n,
              amount: parseUnits('300', 6),
              userData: '0x',
            },
          ],
          assets,
          funds(to),
          [0n, parseUnits('300', 6)],
          deadline(),
        ]),
      ),
      twinIs: 'stranger as `funds.recipient` (the WETH bought goes to a stranger)',
    },
    {
      name: 'balancer.join-pool',
      protocol: 'balancer',
      category: 'receipt',
      ...pair((recipient) => {
        const amounts = [parseEther('0.1'), parseUnits('300', 6)]
        return call(vaultAbi, 'joinPool', [
          poolId,
          me,
          recipient,
          {
            assets,
            maxAmountsIn: amounts,
            userData: joinData(1n, amounts, 0n),
            fromInternalBalance: false,
          },
        ])
      }),
      twinIs: 'stranger as `recipient` (the BPT for the sender’s WETH and USDC goes to a stranger)',
    },
    {
      name: 'balancer.exit-pool',
      protocol: 'balancer',
      category: 'claim',
      ...pair((recipient) =>
        call(vaultAbi, 'exitPool', [
          poolId,
          me,
          recipient,
          {
            assets,
            minAmountsOut: [0n, 0n],
            userData: encodeAbiParameters(parseAbiParameters('uint256, uint256'), [1n, bpt / 4n]),
            toInternalBalance: false,
          },
        ]),
      ),
      twinIs: 'stranger as `recipient` (the WETH and USDC of the sender’s BPT go to a stranger)',
    },
    {
      name: 'balancer.deposit-internal-balance',
      protocol: 'balancer',
      category: 'claim',
      ...pair((recipient) =>
        call(vaultAbi, 'manageUserBalance', [
          [{ kind: 0, asset: USDC_ADDRESS, amount: parseUnits('100', 6), sender: me, recipient }],
        ]),
      ),
      twinIs:
        'stranger as the op’s `recipient` (the sender’s USDC becomes a stranger’s internal balance)',
    },
    {
      name: 'balancer.withdraw-internal-balance',
      protocol: 'balancer',
      category: 'claim',
      ...pair((recipient) =>
        call(vaultAbi, 'manageUserBalance', [
          [{ kind: 1, asset: USDC_ADDRESS, amount: parseUnits('100', 6), sender: me, recipient }],
        ]),
      ),
      twinIs: 'stranger as the op’s `recipient` (the sender’s internal USDC is paid to a stranger)',
    },
    {
      name: 'balancer.relayer-approval',
      protocol: 'balancer',
      category: 'infrastructure',
      benign: tx(call(vaultAbi, 'setRelayerApproval', [me, stranger, false])),
      twin: tx(call(vaultAbi, 'setRelayerApproval', [me, stranger, true])),
      twinIs:
        'a stranger key approved as the sender’s relayer (it may swap, join, exit and move balances for the sender), where the benign call revokes it',
    },
  ]
  return cases
}
