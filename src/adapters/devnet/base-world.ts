import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type Abi,
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  maxUint256,
  pad,
  parseAbi,
  parseEther,
  parseUnits,
  toHex,
  zeroAddress,
} from 'viem'
import { BASE_MAINNET, type NetworkProfile } from '../../domain/network/network-profile.js'
import { DEVNET_ACCOUNTS } from './accounts.js'
import {
  BUYER_INITIAL_USDC,
  GAS_PRICE_ORACLE_ADDRESS,
  MULTICALL3_ADDRESS,
  prepareDevnet,
  USDC_ADDRESS,
} from './prepare.js'
import { projectRoot } from './project-root.js'
import { type DevnetRpc, devnetRpc } from './rpc.js'
import { fundUsdc } from './usdc.js'

/**
 * Base's infrastructure as the devnet holds it, at Base mainnet's addresses, each from real
 * bytecode committed under contracts/protocols/ (built from the npm packages named in each
 * artifact's `source`; scripts/protocol-artifacts/ rebuilds them). Placed by
 * {@link buildBaseWorld}; start-up loads the result as an anvil state file (devnet-state.ts).
 */
export const BASE_CONTRACTS = {
  /** WETH9 predeploy (`canonical-weth@1.4.0`, Dapphub WETH9 as on Base). */
  weth9: BASE_MAINNET.weth,
  /** OP-stack predeploys (`@eth-optimism/contracts-bedrock@0.17.3`), each behind the bedrock Proxy. */
  l2CrossDomainMessenger: '0x4200000000000000000000000000000000000007',
  l2StandardBridge: '0x4200000000000000000000000000000000000010',
  optimismMintableErc20Factory: '0x4200000000000000000000000000000000000012',
  l1Block: '0x4200000000000000000000000000000000000015',
  l2ToL1MessagePasser: '0x4200000000000000000000000000000000000016',
  /** Permit2 (`@uniswap/v4-periphery@1.0.3`'s runtime, immutables as on Base). */
  permit2: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
  /** Uniswap, at the Base addresses of `@uniswap/sdk-core@7.19.4` (contracts/protocols/uniswap/addresses.json). */
  uniswapV2Factory: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
  uniswapV2Router02: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24',
  uniswapV3Factory: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
  nonfungiblePositionManager: '0x03a520b32C04BF3bEEf7BEb72E919cf822Ed34f1',
  swapRouter02: '0x2626664c2603336E57B271c5C0b26F421741e481',
  /**
   * Universal Router 2.1.0 (`@uniswap/universal-router@2.1.0`, the newest npm release) at Base's
   * v2.1.1 address, its nearest deployment.
   */
  universalRouter: '0xFdf682F51FE81Aa4898F0AE2163d8A55c127fbC7',
  /** The repo's own contracts where no npm package ships Base's bytecode. */
  usdc: USDC_ADDRESS,
  multicall3: MULTICALL3_ADDRESS,
  gasPriceOracle: GAS_PRICE_ORACLE_ADDRESS,
} as const satisfies Record<string, Address>

/** OP-stack genesis: every proxied predeploy's admin. */
const PROXY_ADMIN: Address = '0x4200000000000000000000000000000000000018'
const EIP1967_IMPLEMENTATION: Hex =
  '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'
const EIP1967_ADMIN: Hex = '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103'
/** Canonical init code hashes, as the Universal Router is constructed with on Base. */
const V2_PAIR_INIT_CODE_HASH: Hex =
  '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'
const V3_POOL_INIT_CODE_HASH: Hex =
  '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54'
const V4_POOL_MANAGER: Address = '0x498581fF718922c3f8e6A244956aF099B2652b2b'
const V4_POSITION_MANAGER: Address = '0x7C5f5A4bBd8fD63184577525326123B519429bDc'

/** The WETH/USDC pools: Base's main v3 pool is the 0.05 % tier (tick spacing 10). */
export const WETH_USDC_V3_FEE = 500
/** USDC per ETH the pools start at. */
export const DEVNET_ETH_PRICE_USDC = 3000n
/** What each pool (the v2 pair, the v3 pool) holds at start: 100 ETH and 300,000 USDC. */
const POOL_ETH = parseEther('100')
export const POOL_USDC = parseUnits('300000', 6)
const balanceOfAbi = parseAbi(['function balanceOf(address) view returns (uint256)'])
const MIN_TICK = -887270
const MAX_TICK = 887270

/**
 * The account that deploys and provides the pools' liquidity: no role account's nonce or
 * balance moves (the same throwaway address the EntryPoints are deployed from).
 */
const BUILDER: Address = '0x00000000000000000000000000000000000D3910'

interface Artifact {
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
}

function artifact(protocol: string, name: string): Artifact {
  const file = join(projectRoot(), 'contracts', 'protocols', protocol, `${name}.json`)
  return JSON.parse(readFileSync(file, 'utf8')) as Artifact
}

/** Options for {@link buildBaseWorld}. */
export interface BuildBaseWorldOptions {
  /**
   * Keep whatever code is already at an address (a fork of Base already holds the real
   * contracts): only what is missing is placed, and pools that exist get no liquidity.
   */
  keepExisting?: boolean
  /**
   * The network the devnet is shaped like (Base mainnet when absent). Base Sepolia gets what
   * exists there at the same addresses (its USDC at Sepolia's address, WETH9, Permit2, the
   * OP-stack predeploys initialised with Sepolia's L1 counterparts, Multicall3, the EntryPoints)
   * and no Uniswap or pools: Uniswap's Sepolia deployments are at other addresses, which the
   * guard does not know (`protocols/uniswap.ts` names mainnet's only).
   */
  network?: NetworkProfile
}

/**
 * Makes an anvil node hold Base's infrastructure (see {@link BASE_CONTRACTS}): what
 * {@link prepareDevnet} places (USDC, Multicall3, GasPriceOracle, EntryPoints, funded roles),
 * then WETH9, Permit2, the OP-stack predeploys, Uniswap v2/v3 with SwapRouter02 and the
 * Universal Router, and WETH/USDC pools with liquidity at {@link DEVNET_ETH_PRICE_USDC}.
 * Contracts whose constructor sets immutables are deployed with CREATE (constructor run as on
 * Base) and their runtime code and constructor-written storage copied to the Base address.
 */
export async function buildBaseWorld(
  rpcUrl: string,
  options: BuildBaseWorldOptions = {},
): Promise<void> {
  const rpc = devnetRpc(rpcUrl)
  const keep = options.keepExisting ?? false
  const network = options.network ?? BASE_MAINNET
  const usdc = network.usdc.address
  const missing = async (address: Address) => !keep || !(await rpc.hasCode(address))
  await prepareDevnet(rpcUrl, { keepExisting: keep, network })
  if (keep) {
    // A kept USDC (Circle's, on a fork of Base) got no buyer balance from prepareDevnet.
    const buyer = DEVNET_ACCOUNTS.buyer.address
    const [balance] = await rpc.read<[bigint]>(usdc, balanceOfAbi, 'balanceOf', [buyer])
    if (balance < BUYER_INITIAL_USDC) {
      await fundUsdc(rpcUrl, buyer, BUYER_INITIAL_USDC - balance, usdc)
    }
  }
  await rpc.call('anvil_setBalance', [BUILDER, toHex(parseEther('1000000'))])
  await rpc.call('anvil_impersonateAccount', [BUILDER])
  try {
    const weth9 = artifact('weth9', 'WETH9')
    if (await missing(BASE_CONTRACTS.weth9)) await placeWeth9(rpc, weth9)
    if (await missing(BASE_CONTRACTS.permit2)) {
      await rpc.setCode(BASE_CONTRACTS.permit2, artifact('permit2', 'Permit2').deployedBytecode)
    }
    if (await missing(BASE_CONTRACTS.l2StandardBridge)) await placeOpPredeploys(rpc, network.l1)
    if (network.id === BASE_MAINNET.id) {
      await placeUniswap(rpc, missing)
      await seedPools(rpc, rpcUrl, weth9.abi)
    }
  } finally {
    await rpc.call('anvil_stopImpersonatingAccount', [BUILDER])
  }
}

/** A Solidity short string (< 32 bytes) as its storage word. */
function shortString(value: string): Hex {
  const bytes = toHex(value)
  const length = (bytes.length - 2) / 2
  return `${pad(bytes, { dir: 'right', size: 31 })}${(length * 2).toString(16).padStart(2, '0')}`
}

/** WETH9 has no constructor: its name, symbol and decimals are storage initialisers (slots 0-2). */
async function placeWeth9(rpc: DevnetRpc, weth9: Artifact): Promise<void> {
  const slot = (n: number) => pad(toHex(n), { size: 32 })
  await rpc.setCode(BASE_CONTRACTS.weth9, weth9.deployedBytecode)
  await rpc.setStorage(BASE_CONTRACTS.weth9, slot(0), shortString('Wrapped Ether'))
  await rpc.setStorage(BASE_CONTRACTS.weth9, slot(1), shortString('WETH'))
  await rpc.setStorage(BASE_CONTRACTS.weth9, slot(2), pad(toHex(18), { size: 32 }))
}

/**
 * The predeploys as OP-stack genesis lays them out: the bedrock Proxy at each address (admin
 * 0x42..18), its implementation at the code-namespace address 0xc0d3...<last 2 bytes>, then
 * `initialize` on the implementation (zero counterpart) and on the proxy (the network's L1
 * one: on Ethereum for Base, on Ethereum Sepolia for Base Sepolia).
 */
async function placeOpPredeploys(rpc: DevnetRpc, l1: NetworkProfile['l1']): Promise<void> {
  const proxy = artifact('op-bridge', 'Proxy')
  const proxied = {
    L2CrossDomainMessenger: [BASE_CONTRACTS.l2CrossDomainMessenger, l1.crossDomainMessenger],
    L2StandardBridge: [BASE_CONTRACTS.l2StandardBridge, l1.standardBridge],
    OptimismMintableERC20Factory: [
      BASE_CONTRACTS.optimismMintableErc20Factory,
      BASE_CONTRACTS.l2StandardBridge,
    ],
    L1Block: [BASE_CONTRACTS.l1Block, undefined],
    L2ToL1MessagePasser: [BASE_CONTRACTS.l2ToL1MessagePasser, undefined],
  } as const
  for (const [name, [address, counterpart]] of Object.entries(proxied)) {
    const implementation = getAddress(`0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3${address.slice(-4)}`)
    const built = artifact('op-bridge', name)
    await rpc.setCode(address, proxy.deployedBytecode)
    await rpc.setStorage(address, EIP1967_ADMIN, pad(PROXY_ADMIN))
    await rpc.setStorage(address, EIP1967_IMPLEMENTATION, pad(implementation))
    await rpc.setCode(implementation, built.deployedBytecode)
    if (!counterpart) continue
    for (const [target, arg] of [
      [implementation, zeroAddress],
      [address, counterpart],
    ] as const) {
      const data = encodeFunctionData({ abi: built.abi, functionName: 'initialize', args: [arg] })
      await rpc.send({ from: BUILDER, to: target, data }, `${name}.initialize`)
    }
  }
}

/**
 * Deploys `name` with CREATE from the builder (constructor and immutables as on Base), then
 * copies its runtime code and the storage its constructor wrote (from the deployment's own
 * prestate trace) to `target`. An immutable holding `address(this)` (v3 factory's
 * NoDelegateCall, OZ EIP712's cached self) is rewritten to `target`.
 */
async function placeAt(
  rpc: DevnetRpc,
  name: string,
  args: readonly unknown[],
  target: Address,
): Promise<void> {
  const built = artifact('uniswap', name)
  const { hash, contractAddress } = await rpc.send(
    {
      from: BUILDER,
      data: encodeDeployData({ abi: built.abi, bytecode: built.bytecode, args } as never),
    },
    `deploying ${name}`,
  )
  if (!contractAddress) throw new Error(`devnet: deploying ${name} created no contract`)
  const diff = await rpc.call<{ post: Record<string, { storage?: Record<Hex, Hex> }> }>(
    'debug_traceTransaction',
    [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }],
  )
  const post = Object.entries(diff.post).find(
    ([address]) => address.toLowerCase() === contractAddress.toLowerCase(),
  )?.[1]
  const code = await rpc.call<Hex>('eth_getCode', [contractAddress, 'latest'])
  const self = contractAddress.slice(2).toLowerCase()
  await rpc.setCode(
    target,
    // cast: hex digits (its own address) replaced by hex digits (the target's) is still hex.
    code.toLowerCase().replaceAll(self, target.slice(2).toLowerCase()) as Hex,
  )
  for (const [index, value] of Object.entries(post?.storage ?? {})) {
    // cast: a key of the tracer's `storage`, a record keyed by slot.
    await rpc.setStorage(target, index as Hex, value)
  }
}

async function placeUniswap(
  rpc: DevnetRpc,
  missing: (address: Address) => Promise<boolean>,
): Promise<void> {
  const c = BASE_CONTRACTS
  const steps: [string, readonly unknown[], Address][] = [
    ['UniswapV2Factory', [BUILDER], c.uniswapV2Factory],
    ['UniswapV2Router02', [c.uniswapV2Factory, c.weth9], c.uniswapV2Router02],
    ['UniswapV3Factory', [], c.uniswapV3Factory],
    // No token descriptor (it only renders tokenURI).
    [
      'NonfungiblePositionManager',
      [c.uniswapV3Factory, c.weth9, zeroAddress],
      c.nonfungiblePositionManager,
    ],
    [
      'SwapRouter02',
      [c.uniswapV2Factory, c.uniswapV3Factory, c.nonfungiblePositionManager, c.weth9],
      c.swapRouter02,
    ],
    [
      'UniversalRouter',
      [
        {
          permit2: c.permit2,
          weth9: c.weth9,
          v2Factory: c.uniswapV2Factory,
          v3Factory: c.uniswapV3Factory,
          pairInitCodeHash: V2_PAIR_INIT_CODE_HASH,
          poolInitCodeHash: V3_POOL_INIT_CODE_HASH,
          v4PoolManager: V4_POOL_MANAGER,
          v3NFTPositionManager: c.nonfungiblePositionManager,
          v4PositionManager: V4_POSITION_MANAGER,
          spokePool: zeroAddress,
        },
      ],
      c.universalRouter,
    ],
  ]
  for (const [name, args, target] of steps) {
    if (await missing(target)) await placeAt(rpc, name, args, target)
  }
}

/** Integer square root (Newton): a Uniswap v3 pool's `sqrtPriceX96` from its price. */
export function sqrt(value: bigint): bigint {
  if (value < 2n) return value
  let x = value
  let y = (x + 1n) / 2n
  while (y < x) {
    x = y
    y = (x + value / x) / 2n
  }
  return x
}

/**
 * A WETH/USDC v2 pair and v3 0.05 % pool, each with {@link POOL_ETH} and {@link POOL_USDC}
 * from the builder, unless the v3 pool exists already (a fork of Base).
 */
async function seedPools(rpc: DevnetRpc, rpcUrl: string, erc20: Abi): Promise<void> {
  const c = BASE_CONTRACTS
  const v3Factory = artifact('uniswap', 'UniswapV3Factory').abi
  const [pool] = await rpc.read<[Address]>(c.uniswapV3Factory, v3Factory, 'getPool', [
    c.weth9,
    c.usdc,
    WETH_USDC_V3_FEE,
  ])
  if (BigInt(pool) !== 0n) return
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600)
  const positions = artifact('uniswap', 'NonfungiblePositionManager').abi
  const router02 = artifact('uniswap', 'UniswapV2Router02').abi
  const call = (abi: Abi, functionName: string, args: readonly unknown[] = []) =>
    encodeFunctionData({ abi, functionName, args } as never)
  await fundUsdc(rpcUrl, BUILDER, POOL_USDC * 2n)
  const send = (to: Address, data: Hex, what: string, value = 0n) =>
    rpc.send({ from: BUILDER, to, data, value }, what)
  await send(c.usdc, call(erc20, 'approve', [c.uniswapV2Router02, maxUint256]), 'approve')
  await send(c.usdc, call(erc20, 'approve', [c.nonfungiblePositionManager, maxUint256]), 'approve')
  await send(c.weth9, call(erc20, 'approve', [c.nonfungiblePositionManager, maxUint256]), 'approve')
  await send(c.weth9, call(erc20, 'deposit'), 'wrapping ETH', POOL_ETH)
  await send(
    c.uniswapV2Router02,
    call(router02, 'addLiquidityETH', [c.usdc, POOL_USDC, 0n, 0n, BUILDER, deadline]),
    'v2 addLiquidityETH',
    POOL_ETH,
  )
  // token0 WETH (18 decimals), token1 USDC (6): price in USDC units per wei, as Q64.96.
  const sqrtPriceX96 = sqrt((DEVNET_ETH_PRICE_USDC * 10n ** 6n * 2n ** 192n) / 10n ** 18n)
  await send(
    c.nonfungiblePositionManager,
    call(positions, 'createAndInitializePoolIfNecessary', [
      c.weth9,
      c.usdc,
      WETH_USDC_V3_FEE,
      sqrtPriceX96,
    ]),
    'v3 createAndInitializePool',
  )
  await send(
    c.nonfungiblePositionManager,
    call(positions, 'mint', [
      {
        token0: c.weth9,
        token1: c.usdc,
        fee: WETH_USDC_V3_FEE,
        tickLower: MIN_TICK,
        tickUpper: MAX_TICK,
        amount0Desired: POOL_ETH,
        amount1Desired: POOL_USDC,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: BUILDER,
        deadline,
      },
    ]),
    'v3 mint',
  )
  // The pool's one oracle observation now holds this block's timestamp, and Oracle.write skips
  // a block of the same timestamp. A swap estimated within this second would skip that write
  // while the block it lands in (a later second) makes it: out of gas at the estimate. The next
  // block on Base is at least a second later: so is the devnet's clock from here on.
  await rpc.call('evm_increaseTime', ['0x1'])
}
