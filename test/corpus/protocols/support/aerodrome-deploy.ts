import {
  type Abi,
  type Address,
  createTestClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  type LocalAccount,
  maxUint256,
  parseEther,
  parseUnits,
  publicActions,
} from 'viem'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../../src/adapters/devnet/prepare.js'
import { clients, deploy, loadArtifact } from '../../../support/contracts.js'

/**
 * Aerodrome on Base, on contracts of our own (contracts/test/Aerodrome.sol) that implement its
 * published interface and behaviour: no Aerodrome bytecode ships on npm, and its source is not
 * ours to commit. The Router, the PoolFactory, the VotingEscrow and AERO hold no constructor
 * state, so their runtime code is placed at their Base addresses (the guard knows the Router and
 * the VotingEscrow by address, as on Base); pools are created by the factory, gauges deployed.
 */
export const AERODROME = {
  router: getAddress('0xcF77a3Ba9A5CA399B7c97c74d54e5b1Beb874E43'),
  poolFactory: getAddress('0x420DD381b31aEf6683db6B902084cB0FFECe40Da'),
  votingEscrow: getAddress('0xeBf418Fe2512e7E6bd9b87a8F0f294aCDC67e6B4'),
  aero: getAddress('0x940181a94A35A4569E4529A3CDfB74e38FD98631'),
} as const

/** Base's WETH9 predeploy (placed by the devnet). */
export const WETH: Address = '0x4200000000000000000000000000000000000006'
export const USDC: Address = USDC_ADDRESS

export const ABI = {
  router: loadArtifact('AerodromeRouter').abi,
  factory: loadArtifact('AerodromePoolFactory').abi,
  pool: loadArtifact('AerodromePool').abi,
  gauge: loadArtifact('AerodromeGauge').abi,
  escrow: loadArtifact('AerodromeVotingEscrow').abi,
  token: loadArtifact('AerodromeToken').abi,
  erc20: loadArtifact('TestERC20').abi,
  weth: [
    {
      type: 'function',
      name: 'deposit',
      stateMutability: 'payable',
      inputs: [],
      outputs: [],
    },
  ],
} satisfies Record<string, Abi>

export const call = (abi: Abi, functionName: string, args: readonly unknown[] = []): Hex =>
  encodeFunctionData({ abi, functionName, args } as never)

/** A deadline half an hour ahead of the wall clock (anvil's block time follows it). */
export const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 1800)

/** Sends a call from `account` with a fixed gas limit and waits for success. */
export async function send(
  rpcUrl: string,
  account: LocalAccount,
  to: Address,
  data: Hex,
  value = 0n,
): Promise<void> {
  const { walletClient, publicClient } = clients(rpcUrl, account)
  const hash = await walletClient.sendTransaction({ to, data, value, gas: 6_000_000n })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error(`transaction to ${to} reverted (${hash})`)
}

/** Reads a view of `address`. */
export async function read<T>(
  rpcUrl: string,
  address: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[] = [],
): Promise<T> {
  const { publicClient } = clients(rpcUrl)
  return (await publicClient.readContract({ address, abi, functionName, args } as never)) as T
}

/** A Router route `from` -> `to` on the stable or volatile curve, through the PoolFactory. */
export const route = (from: Address, to: Address, stable: boolean) => ({
  from,
  to,
  stable,
  factory: '0x0000000000000000000000000000000000000000' as const,
})

const placed = new Map<string, Promise<void>>()

/** Places the Router, PoolFactory, VotingEscrow and AERO at their Base addresses, once per devnet. */
export function ensureAerodrome(rpcUrl: string): Promise<void> {
  let promise = placed.get(rpcUrl)
  if (promise === undefined) {
    promise = place(rpcUrl)
    placed.set(rpcUrl, promise)
  }
  return promise
}

async function place(rpcUrl: string): Promise<void> {
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).extend(publicActions)
  const code: [Address, string][] = [
    [AERODROME.router, 'AerodromeRouter'],
    [AERODROME.poolFactory, 'AerodromePoolFactory'],
    [AERODROME.votingEscrow, 'AerodromeVotingEscrow'],
    [AERODROME.aero, 'AerodromeToken'],
  ]
  for (const [address, name] of code) {
    await test.setCode({ address, bytecode: loadArtifact(name).deployedBytecode })
  }
  // The implementation the factory clones pools from (an address of ours).
  const implementation = await read<Address>(
    rpcUrl,
    AERODROME.poolFactory,
    ABI.factory,
    'implementation',
  )
  await test.setCode({
    address: implementation,
    bytecode: loadArtifact('AerodromePool').deployedBytecode,
  })
}

/** The pools a world holds, by what they pair. */
export interface AerodromeWorld {
  /** Volatile WETH/USDC: 10 WETH against 30,000 USDC. */
  wethUsdc: Address
  /** Stable USDC/TDAI (an 18-decimal dollar token of ours): 100,000 each. */
  usdcDai: Address
  /** Volatile AERO/WETH: 100,000 AERO against 10 WETH. */
  aeroWeth: Address
  dai: Address
}

/**
 * Three pools seeded by `deployer` through the Router: a volatile WETH/USDC pool, a stable
 * USDC/TDAI pool (TDAI: TestERC20, 18 decimals) and a volatile AERO/WETH pool.
 */
export async function seedPools(rpcUrl: string, deployer: LocalAccount): Promise<AerodromeWorld> {
  await ensureAerodrome(rpcUrl)
  const me = deployer.address
  const dai = (await deploy(rpcUrl, 'TestERC20', ['Test Dai', 'TDAI'], deployer)).address
  await mintDevnetUsdc(rpcUrl, me, parseUnits('200000', 6))
  await send(rpcUrl, deployer, dai, call(ABI.erc20, 'mint', [me, parseEther('200000')]))
  await send(rpcUrl, deployer, AERODROME.aero, call(ABI.token, 'mint', [me, parseEther('200000')]))
  await send(rpcUrl, deployer, WETH, call(ABI.weth, 'deposit'), parseEther('30'))
  for (const token of [USDC, dai, AERODROME.aero, WETH]) {
    await send(rpcUrl, deployer, token, call(ABI.erc20, 'approve', [AERODROME.router, maxUint256]))
  }
  const add = (a: Address, b: Address, stable: boolean, amountA: bigint, amountB: bigint) =>
    send(
      rpcUrl,
      deployer,
      AERODROME.router,
      call(ABI.router, 'addLiquidity', [a, b, stable, amountA, amountB, 0n, 0n, me, deadline()]),
    )
  await add(WETH, USDC, false, parseEther('10'), parseUnits('30000', 6))
  await add(USDC, dai, true, parseUnits('100000', 6), parseEther('100000'))
  await add(AERODROME.aero, WETH, false, parseEther('100000'), parseEther('10'))
  const pool = (a: Address, b: Address, stable: boolean) =>
    read<Address>(rpcUrl, AERODROME.poolFactory, ABI.factory, 'getPool', [a, b, stable])
  return {
    wethUsdc: await pool(WETH, USDC, false),
    usdcDai: await pool(USDC, dai, true),
    aeroWeth: await pool(AERODROME.aero, WETH, false),
    dai,
  }
}
