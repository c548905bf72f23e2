import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import {
  type Abi,
  type Address,
  createTestClient,
  encodeFunctionData,
  type Hex,
  http,
  maxUint160,
  maxUint256,
  parseAbi,
  zeroAddress,
} from 'viem'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../src/adapters/devnet/prepare.js'
import { clients } from '../../support/contracts.js'
import type { CorpusSetup } from '../corpus-case.js'
import { ensurePermit2, PERMIT2_ADDRESS, permit2 } from './support/permit2-deploy.js'
import { ensureWeth9, WETH9_ADDRESS } from './support/weth9-deploy.js'

const require = createRequire(import.meta.url)
const erc20 = parseAbi(['function approve(address spender, uint256 amount) returns (bool)'])
const THIRTY_DAYS = 30n * 24n * 60n * 60n

/**
 * Canonical Permit2 (runtime from `@uniswap/v4-periphery@1.0.3`, immutables as on Base) at
 * 0x000000000022D473030F116dDEE9F6B43aC78BA3, with USDC (the devnet's, at Base's USDC address)
 * as the token. The spender contract is the real Universal Router 2.1.0
 * (`@uniswap/universal-router`, a devDependency) deployed by CREATE with this Permit2 and WETH
 * 0x42..06 as its immutables: the contract an agent's Permit2 allowance normally names.
 */
/** Base's Universal Router 2.0 (`@uniswap/universal-router-sdk`'s address list). */
const UNIVERSAL_ROUTER_2_0: Address = '0x6fF5693b99212Da76ad316178A184AB56D299b43'

export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  await ensurePermit2(rpcUrl)
  await ensureWeth9(rpcUrl)

  // The Universal Router, deployed by the deployer.
  const ur = JSON.parse(
    readFileSync(
      require.resolve(
        '@uniswap/universal-router/artifacts/contracts/UniversalRouter.sol/UniversalRouter.json',
      ),
      'utf8',
    ),
  ) as { abi: Abi; bytecode: Hex }
  const deployerClients = clients(rpcUrl, deployer)
  const deployHash = await deployerClients.walletClient.deployContract({
    abi: ur.abi,
    bytecode: ur.bytecode,
    args: [
      {
        permit2: PERMIT2_ADDRESS,
        weth9: WETH9_ADDRESS,
        v2Factory: zeroAddress,
        v3Factory: zeroAddress,
        pairInitCodeHash: `0x${'00'.repeat(32)}`,
        poolInitCodeHash: `0x${'00'.repeat(32)}`,
        v4PoolManager: zeroAddress,
        v3NFTPositionManager: zeroAddress,
        v4PositionManager: zeroAddress,
        spokePool: zeroAddress,
      },
    ],
  })
  const deployed = await deployerClients.publicClient.waitForTransactionReceipt({
    hash: deployHash,
    pollingInterval: 50,
  })
  const created = deployed.contractAddress as Address
  if (!created) throw new Error('permit2: the Universal Router deployment produced no contract')
  // The spender sits where Base's Universal Router 2.0 is (its runtime copied there, as the
  // other corpus setups place theirs), so the screen can know it by address.
  const router = UNIVERSAL_ROUTER_2_0
  const runtime = await deployerClients.publicClient.getCode({ address: created })
  if ((await deployerClients.publicClient.getCode({ address: router })) === undefined) {
    await createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).setCode({
      address: router,
      bytecode: runtime as Hex,
    })
  }

  // The sender's state: 1,000 USDC, its USDC allowance to Permit2, and one Permit2 allowance
  // to the router (so lockdown and invalidateNonces revoke something real).
  await mintDevnetUsdc(rpcUrl, sender.address, 1_000_000_000n)
  const { walletClient, publicClient } = clients(rpcUrl, sender)
  const now = (await publicClient.getBlock()).timestamp
  const expiration = Number(now + THIRTY_DAYS)
  const permit2Call = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: permit2.abi, functionName, args } as never)
  const tokenCall = (spender: Address, amount: bigint) =>
    encodeFunctionData({ abi: erc20, functionName: 'approve', args: [spender, amount] })
  for (const [to, data] of [
    [USDC_ADDRESS, tokenCall(PERMIT2_ADDRESS, maxUint256)],
    [PERMIT2_ADDRESS, permit2Call('approve', [USDC_ADDRESS, router, 500_000_000n, expiration])],
  ] as const) {
    const hash = await walletClient.sendTransaction({ to, data })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success')
      throw new Error(`permit2: the sender's setup call to ${to} reverted`)
  }
  const [, , nonce] = (await publicClient.readContract({
    address: PERMIT2_ADDRESS,
    abi: permit2.abi,
    functionName: 'allowance',
    args: [sender.address, USDC_ADDRESS, router],
  })) as [bigint, number, number]

  const from = sender.address
  return [
    {
      name: 'permit2.erc20-approve-permit2-max',
      protocol: 'permit2',
      category: 'infrastructure',
      benign: { from, to: USDC_ADDRESS, data: tokenCall(PERMIT2_ADDRESS, maxUint256) },
      twin: { from, to: USDC_ADDRESS, data: tokenCall(stranger, maxUint256) },
      twinIs: 'a stranger key (not Permit2) as spender of an unlimited USDC allowance',
    },
    {
      name: 'permit2.approve-router-30-days',
      protocol: 'permit2',
      category: 'infrastructure',
      benign: {
        from,
        to: PERMIT2_ADDRESS,
        data: permit2Call('approve', [USDC_ADDRESS, router, 100_000_000n, expiration]),
      },
      twin: {
        from,
        to: PERMIT2_ADDRESS,
        data: permit2Call('approve', [USDC_ADDRESS, stranger, 100_000_000n, expiration]),
      },
      twinIs: 'a stranger key as the Permit2 spender (instead of the Universal Router)',
    },
    {
      name: 'permit2.approve-router-max-30-days',
      protocol: 'permit2',
      category: 'infrastructure',
      benign: {
        from,
        to: PERMIT2_ADDRESS,
        data: permit2Call('approve', [USDC_ADDRESS, router, maxUint160, expiration]),
      },
      twin: {
        from,
        to: PERMIT2_ADDRESS,
        data: permit2Call('approve', [USDC_ADDRESS, stranger, maxUint160, expiration]),
      },
      twinIs: 'a stranger key as the Permit2 spender of an unlimited (uint160 max) allowance',
    },
    {
      name: 'permit2.lockdown',
      protocol: 'permit2',
      category: 'plain',
      benign: {
        from,
        to: PERMIT2_ADDRESS,
        data: permit2Call('lockdown', [[{ token: USDC_ADDRESS, spender: router }]]),
      },
    },
    {
      name: 'permit2.invalidate-nonces',
      protocol: 'permit2',
      category: 'plain',
      benign: {
        from,
        to: PERMIT2_ADDRESS,
        data: permit2Call('invalidateNonces', [USDC_ADDRESS, router, nonce + 1]),
      },
    },
    {
      name: 'permit2.invalidate-unordered-nonces',
      protocol: 'permit2',
      category: 'plain',
      benign: {
        from,
        to: PERMIT2_ADDRESS,
        data: permit2Call('invalidateUnorderedNonces', [0n, 1n]),
      },
    },
    {
      name: 'permit2.erc20-revoke-permit2',
      protocol: 'permit2',
      category: 'plain',
      benign: { from, to: USDC_ADDRESS, data: tokenCall(PERMIT2_ADDRESS, 0n) },
    },
  ]
}
