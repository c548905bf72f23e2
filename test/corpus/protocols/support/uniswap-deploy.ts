import { readFileSync } from 'node:fs'
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
  zeroAddress,
} from 'viem'
import { sqrt } from '../../../../src/adapters/devnet/base-world.js'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../../src/adapters/devnet/prepare.js'
import { clients } from '../../../support/contracts.js'

/**
 * Uniswap on its real bytecode (the builds Uniswap published on npm, committed under
 * contracts/protocols/uniswap by scripts/protocol-artifacts/uniswap.ts), placed at the Base
 * mainnet addresses: WETH9, Permit2, v2 factory + Router02, v3 factory, NonfungiblePositionManager,
 * SwapRouter02 and Universal Router 2.1.0, with a WETH/USDC v2 pair and a WETH/USDC 0.05 % v3
 * pool holding real liquidity at 3,000 USDC per ETH.
 *
 * Each contract is deployed with CREATE from the deployer (so its constructor runs and bakes its
 * immutables), then its runtime code and every storage slot the constructor wrote are copied to
 * the canonical address (anvil_setCode / anvil_setStorageAt). The slots come from the deployment's
 * own prestate trace in diff mode, so nothing is typed by hand. Immutables that hold the
 * contract's own address (v3 factory's NoDelegateCall guard, OZ EIP712's cached `this`) are
 * rewritten to the canonical address in the copied runtime code.
 */

export interface UniswapArtifact {
  contractName: string
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
}

export function uniswapArtifact(name: string): UniswapArtifact {
  const url = new URL(`../../../../contracts/protocols/uniswap/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as UniswapArtifact
}

const ADDRESSES = JSON.parse(
  readFileSync(
    new URL('../../../../contracts/protocols/uniswap/addresses.json', import.meta.url),
    'utf8',
  ),
) as Record<string, string>
const at = (key: string): Address => {
  const value = ADDRESSES[key]
  if (!value) throw new Error(`contracts/protocols/uniswap/addresses.json has no ${key}`)
  return getAddress(value)
}

/** Base's WETH9 predeploy (OP-stack). */
export const WETH: Address = '0x4200000000000000000000000000000000000006'
export const USDC: Address = USDC_ADDRESS
/** Canonical Permit2 (same address on every chain): a Universal Router immutable. */
export const PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
/** Base mainnet addresses from `@uniswap/sdk-core@7.19.4` (addresses.json). */
export const V2_FACTORY = at('v2Factory')
export const V2_ROUTER02 = at('v2Router02')
export const V3_FACTORY = at('v3Factory')
export const POSITION_MANAGER = at('nonfungiblePositionManager')
export const SWAP_ROUTER02 = at('swapRouter02')
export const V4_POOL_MANAGER = at('v4PoolManager')
export const V4_POSITION_MANAGER = at('v4PositionManager')
/**
 * Universal Router on Base: `@uniswap/universal-router-sdk@5.13.0` lists v2.0
 * 0x6fF5693b99212Da76ad316178A184AB56D299b43, v2.1.1 0xfdf682f51fe81aa4898f0ae2163d8a55c127fbc7
 * and v2.1.2 0xd6145b2D3F379919E8CdEda7B97e37c4b2Ca9c40. The npm contracts package's newest
 * release is 2.1.0 (executeSigned, Across): placed at the v2.1.1 address, its nearest deployment.
 */
export const UNIVERSAL_ROUTER: Address = getAddress('0xfdf682f51fe81aa4898f0ae2163d8a55c127fbc7')

/** Canonical init code hashes (also what the periphery contracts hard-code). */
export const V2_PAIR_INIT_CODE_HASH: Hex =
  '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'
export const V3_POOL_INIT_CODE_HASH: Hex =
  '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54'

/** The WETH/USDC v3 pool's fee tier (0.05 %, tick spacing 10), Base's main WETH/USDC pool. */
export const V3_FEE = 500
export const TICK_SPACING = 10
export const MIN_TICK = -887270
export const MAX_TICK = 887270
/** USDC (6 decimals) per ETH in both pools. */
export const PRICE = 3000n

/** A deadline half an hour ahead of the wall clock (anvil's block time follows it). */
export const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 1800)

export const ABI = {
  weth: uniswapArtifact('WETH9').abi,
  v2Factory: uniswapArtifact('UniswapV2Factory').abi,
  v2Pair: uniswapArtifact('UniswapV2Pair').abi,
  router02: uniswapArtifact('UniswapV2Router02').abi,
  v3Factory: uniswapArtifact('UniswapV3Factory').abi,
  v3Pool: uniswapArtifact('UniswapV3Pool').abi,
  positionManager: uniswapArtifact('NonfungiblePositionManager').abi,
  swapRouter02: uniswapArtifact('SwapRouter02').abi,
  universalRouter: uniswapArtifact('UniversalRouter').abi,
  permit2: uniswapArtifact('Permit2').abi,
}

export const call = (abi: Abi, functionName: string, args: readonly unknown[] = []): Hex =>
  encodeFunctionData({ abi, functionName, args } as never)

function testClient(rpcUrl: string) {
  return createTestClient({ mode: 'anvil', transport: http(rpcUrl), pollingInterval: 50 }).extend(
    publicActions,
  )
}

/** Sends a call from `account` with a fixed gas limit and waits for success. */
export async function send(
  rpcUrl: string,
  account: LocalAccount,
  to: Address,
  data: Hex,
  value = 0n,
): Promise<void> {
  const { walletClient, publicClient } = clients(rpcUrl, account)
  // A fixed limit, not the node's estimate: a v3 mint's oracle reads depend on block.timestamp.
  const hash = await walletClient.sendTransaction({ to, data, value, gas: 6_000_000n })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error(`transaction to ${to} reverted (${hash})`)
}

async function rpc<T>(rpcUrl: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: T; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result as T
}

/**
 * Deploys `name` with CREATE (constructor and immutables as on mainnet), then copies its runtime
 * code and the storage its constructor wrote to `target`. Skips when `target` already has code.
 */
export async function placeAt(
  rpcUrl: string,
  deployer: LocalAccount,
  name: string,
  args: readonly unknown[],
  target: Address,
): Promise<void> {
  const test = testClient(rpcUrl)
  const existing = await test.getCode({ address: target })
  if (existing && existing !== '0x') return
  const artifact = uniswapArtifact(name)
  const { walletClient, publicClient } = clients(rpcUrl, deployer)
  const hash = await walletClient.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: args as unknown[],
    gas: 12_000_000n,
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  const created = receipt.contractAddress
  if (receipt.status !== 'success' || !created) throw new Error(`deploying ${name} failed`)
  const diff = await rpc<{ post: Record<string, { storage?: Record<Hex, Hex> }> }>(
    rpcUrl,
    'debug_traceTransaction',
    [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }],
  )
  const post = Object.entries(diff.post).find(
    ([address]) => address.toLowerCase() === created.toLowerCase(),
  )?.[1]
  const code = await test.getCode({ address: created })
  if (!code) throw new Error(`${name} has no runtime code`)
  // An immutable holding address(this) (v3 factory's NoDelegateCall `original`, OZ EIP712's
  // `_cachedThis`) must name the canonical address, as a constructor run there would have it.
  const self = created.slice(2).toLowerCase()
  const bytecode = code.toLowerCase().replaceAll(self, target.slice(2).toLowerCase()) as Hex
  await test.setCode({ address: target, bytecode })
  for (const [index, value] of Object.entries(post?.storage ?? {}))
    await test.setStorageAt({ address: target, index: index as Hex, value })
}

/** sqrtPriceX96 of the WETH/USDC pool (token0 WETH, 18 decimals; token1 USDC, 6). */
export const SQRT_PRICE_X96 = sqrt((PRICE * 10n ** 6n * 2n ** 192n) / 10n ** 18n)

const ready = new Map<string, Promise<void>>()

/**
 * Places every Uniswap contract and seeds both WETH/USDC pools, once per devnet (the three
 * Uniswap corpus files share it; whichever runs first pays).
 */
export function ensureUniswap(rpcUrl: string, deployer: LocalAccount): Promise<void> {
  let promise = ready.get(rpcUrl)
  if (!promise) {
    promise = deployUniswap(rpcUrl, deployer)
    ready.set(rpcUrl, promise)
  }
  return promise
}

async function deployUniswap(rpcUrl: string, deployer: LocalAccount): Promise<void> {
  const me = deployer.address
  await placeAt(rpcUrl, deployer, 'WETH9', [], WETH)
  await placeAt(rpcUrl, deployer, 'Permit2', [], PERMIT2)
  await placeAt(rpcUrl, deployer, 'UniswapV2Factory', [me], V2_FACTORY)
  await placeAt(rpcUrl, deployer, 'UniswapV2Router02', [V2_FACTORY, WETH], V2_ROUTER02)
  await placeAt(rpcUrl, deployer, 'UniswapV3Factory', [], V3_FACTORY)
  // Token descriptor (tokenURI only): none on the devnet.
  await placeAt(
    rpcUrl,
    deployer,
    'NonfungiblePositionManager',
    [V3_FACTORY, WETH, zeroAddress],
    POSITION_MANAGER,
  )
  await placeAt(
    rpcUrl,
    deployer,
    'SwapRouter02',
    [V2_FACTORY, V3_FACTORY, POSITION_MANAGER, WETH],
    SWAP_ROUTER02,
  )
  await placeAt(
    rpcUrl,
    deployer,
    'UniversalRouter',
    [
      {
        permit2: PERMIT2,
        weth9: WETH,
        v2Factory: V2_FACTORY,
        v3Factory: V3_FACTORY,
        pairInitCodeHash: V2_PAIR_INIT_CODE_HASH,
        poolInitCodeHash: V3_POOL_INIT_CODE_HASH,
        v4PoolManager: V4_POOL_MANAGER,
        v3NFTPositionManager: POSITION_MANAGER,
        v4PositionManager: V4_POSITION_MANAGER,
        spokePool: zeroAddress,
      },
    ],
    UNIVERSAL_ROUTER,
  )

  // Liquidity: 100 ETH + 300,000 USDC in each pool, from the deployer.
  const ethSide = parseEther('100')
  const usdcSide = parseUnits('300000', 6)
  await mintDevnetUsdc(rpcUrl, me, usdcSide * 2n)
  await send(rpcUrl, deployer, USDC, call(ABI.weth, 'approve', [V2_ROUTER02, maxUint256]))
  await send(rpcUrl, deployer, USDC, call(ABI.weth, 'approve', [POSITION_MANAGER, maxUint256]))
  await send(rpcUrl, deployer, WETH, call(ABI.weth, 'approve', [POSITION_MANAGER, maxUint256]))
  await send(rpcUrl, deployer, WETH, call(ABI.weth, 'deposit'), ethSide)
  await send(
    rpcUrl,
    deployer,
    V2_ROUTER02,
    call(ABI.router02, 'addLiquidityETH', [USDC, usdcSide, 0n, 0n, me, deadline()]),
    ethSide,
  )
  await send(
    rpcUrl,
    deployer,
    POSITION_MANAGER,
    call(ABI.positionManager, 'createAndInitializePoolIfNecessary', [
      WETH,
      USDC,
      V3_FEE,
      SQRT_PRICE_X96,
    ]),
  )
  await send(
    rpcUrl,
    deployer,
    POSITION_MANAGER,
    call(ABI.positionManager, 'mint', [
      {
        token0: WETH,
        token1: USDC,
        fee: V3_FEE,
        tickLower: MIN_TICK,
        tickUpper: MAX_TICK,
        amount0Desired: ethSide,
        amount1Desired: usdcSide,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: me,
        deadline: deadline(),
      },
    ]),
  )
}

/** The v2 WETH/USDC pair and the v3 WETH/USDC 0.05 % pool. */
export async function pools(rpcUrl: string): Promise<{ pair: Address; pool: Address }> {
  const test = testClient(rpcUrl)
  const pair = (await test.readContract({
    address: V2_FACTORY,
    abi: ABI.v2Factory,
    functionName: 'getPair',
    args: [WETH, USDC],
  })) as Address
  const pool = (await test.readContract({
    address: V3_FACTORY,
    abi: ABI.v3Factory,
    functionName: 'getPool',
    args: [WETH, USDC, V3_FEE],
  })) as Address
  return { pair, pool }
}

/** Mints devnet USDC to `to` (the devnet's USDC minter signs). */
export const fundUsdc = (rpcUrl: string, to: Address, amount: bigint) =>
  mintDevnetUsdc(rpcUrl, to, amount).then(() => undefined)
