import { readFileSync } from 'node:fs'
import {
  type Abi,
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  type LocalAccount,
  maxUint256,
  pad,
  parseAbi,
  parseEther,
  stringToHex,
  toHex,
  zeroAddress,
} from 'viem'
import { clients } from '../../../support/contracts.js'

/**
 * A minimal real Aave v3 market on the devnet, on the bytecode `@aave/core-v3@1.19.3` and
 * `@aave/periphery-v3@2.5.2` ship (committed under contracts/protocols/aave-v3, rebuilt by
 * scripts/protocol-artifacts/aave-v3.ts): L2Pool behind its proxy at Base's Pool address, the
 * addresses provider, ACL manager, configurator, AaveOracle (MockAggregator prices), data
 * provider, WrappedTokenGatewayV3, and two reserves (USDC, WETH) with their aTokens and
 * variable debt tokens at their Base addresses.
 *
 * Every contract is deployed with CREATE (constructors run, immutables set), then its runtime
 * code is copied to the canonical Base address with anvil_setCode and the storage its
 * constructor wrote is re-created there (anvil_setStorageAt) or, for proxies, written by
 * calling `initialize` at the canonical address itself. The reserves' token proxies are created
 * by the configurator itself (initReserves), at Base's addresses because the configurator's
 * nonce is set to the one Base's had when it listed each asset.
 */

/** Aave v3 on Base mainnet (`@bgd-labs/aave-address-book@4.44.22`, src/AaveV3Base.sol). */
export const AAVE_V3_BASE = {
  poolAddressesProvider: '0xe20fCBdBfFC4Dd138cE8b2E6FBb6CB49777ad64D',
  pool: '0xA238Dd80C259a72e81d7e4664a9801593F98d1c5',
  poolConfigurator: '0x5731a04B1E775f0fdd454Bf70f3335886e9A96be',
  aclManager: '0x43955b0899Ab7232E3a454cf84AedD22Ad46FD33',
  oracle: '0x2Cc0Fc26eD4563A5ce5e8bdcfe1A2878676Ae156',
  dataProvider: '0x0F43731EB8d45A581f4a36DD74F5f358bc90C73A',
  wethGateway: '0xa0d9C1E9E48Ca30c8d8C3B5D69FF5dc1f6DFfC24',
  usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  aUsdc: '0x4e65fE4DbA92790696d040ac24Aa414708F5c0AB',
  variableDebtUsdc: '0x59dca05b6c26dbd64b5381374aAaC5CD05644C28',
  weth: '0x4200000000000000000000000000000000000006',
  aWeth: '0xD4a0e0b9149BCee3C920d2E00b5dE09138fd8bb7',
  variableDebtWeth: '0x24e6e0795b3c7c71D965fCc4f371803d1c1DcA1E',
} as const satisfies Record<string, Address>

interface ProtocolArtifact {
  contractName: string
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
  linkReferences?: Record<string, Record<string, { start: number; length: number }[]>>
}

export function aaveArtifact(name: string): ProtocolArtifact {
  const url = new URL(`../../../../contracts/protocols/aave-v3/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as ProtocolArtifact
}

/** Writes library addresses over the `__$…$__` placeholders the compiler left. */
function link(artifact: ProtocolArtifact, libraries: Record<string, Address>): Hex {
  let code = artifact.bytecode.slice(2)
  for (const refs of Object.values(artifact.linkReferences ?? {})) {
    for (const [name, places] of Object.entries(refs)) {
      const address = libraries[name]
      if (!address) throw new Error(`${artifact.contractName} needs library ${name}`)
      for (const { start, length } of places) {
        code =
          code.slice(0, start * 2) +
          address.slice(2).toLowerCase() +
          code.slice((start + length) * 2)
      }
    }
  }
  return `0x${code}`
}

/** Solidity's storage form of a string shorter than 32 bytes. */
function shortString(value: string): Hex {
  const bytes = stringToHex(value)
  const length = (bytes.length - 2) / 2
  if (length > 31) throw new Error('short strings only')
  return `0x${bytes.slice(2).padEnd(62, '0')}${(length * 2).toString(16).padStart(2, '0')}`
}

/** The storage slot of `mapping(key => ...)` at `slot` (key an address or bytes32). */
export const mappingSlot = (key: Hex, slot: bigint): Hex =>
  keccak256(`0x${pad(key).slice(2)}${toHex(slot, { size: 32 }).slice(2)}`)

export interface AaveV3Market {
  pool: Address
  gateway: Address
  poolAbi: Abi
  gatewayAbi: Abi
  aTokenAbi: Abi
  variableDebtAbi: Abi
  reserves: {
    usdc: {
      asset: Address
      aToken: Address
      variableDebt: Address
      stableDebt: Address
      id: number
    }
    weth: {
      asset: Address
      aToken: Address
      variableDebt: Address
      stableDebt: Address
      id: number
    }
  }
  /** Non-canonical helper addresses (CREATE), for the report. */
  implementations: Record<string, Address>
}

const erc20Abi = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
  'function deposit() payable',
])

/** An RPC session that sends one account's transactions and fails loudly on a revert. */
export function session(rpcUrl: string, account: LocalAccount) {
  const { publicClient, walletClient } = clients(rpcUrl, account)
  const rpc = (method: string, params: unknown[]) =>
    publicClient.request({ method, params } as never) as Promise<unknown>
  const wait = async (hash: Hex, what: string) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    if (receipt.status !== 'success') throw new Error(`${what} reverted (${hash})`)
    return receipt
  }
  return {
    publicClient,
    rpc,
    async deploy(
      name: string,
      args: readonly unknown[] = [],
      libraries: Record<string, Address> = {},
    ) {
      const artifact = aaveArtifact(name)
      const hash = await walletClient.deployContract({
        abi: artifact.abi,
        bytecode: link(artifact, libraries),
        args: args as unknown[],
      })
      const receipt = await wait(hash, `deploying ${name}`)
      if (!receipt.contractAddress) throw new Error(`deploying ${name} produced no contract`)
      return receipt.contractAddress
    },
    async write(
      to: Address,
      abi: Abi,
      functionName: string,
      args: readonly unknown[] = [],
      value = 0n,
    ) {
      const data = encodeFunctionData({ abi, functionName, args } as never)
      // A fixed limit, not the node's estimate: anvil estimates at the latest block's timestamp,
      // and a reserve's interest update runs only when the mined block is later than its last one.
      const hash = await walletClient.sendTransaction({ to, data, value, gas: 6_000_000n })
      return wait(hash, `${functionName} on ${to}`)
    },
    /** Places `from`'s runtime code at `to` (and copies the given slots), then clears `from`. */
    async relocate(from: Address, to: Address, slots: Hex[] = []) {
      const code = await publicClient.getCode({ address: from })
      if (!code) throw new Error(`no code at ${from}`)
      await rpc('anvil_setCode', [to, code])
      for (const slot of slots) {
        const value = await publicClient.getStorageAt({ address: from, slot })
        await rpc('anvil_setStorageAt', [to, slot, value ?? pad('0x0')])
      }
      await rpc('anvil_setCode', [from, '0x'])
    },
    setStorage: (address: Address, slot: Hex, value: Hex) =>
      rpc('anvil_setStorageAt', [address, slot, pad(value)]),
  }
}

/**
 * WETH9 (`canonical-weth@1.4.0`) at Base's WETH predeploy address, unless code is already there.
 * setCode skips the constructor, so name/symbol/decimals (slots 0-2) are written here.
 */
export async function placeWeth9(rpcUrl: string, account: LocalAccount): Promise<void> {
  const s = session(rpcUrl, account)
  const existing = await s.publicClient.getCode({ address: AAVE_V3_BASE.weth })
  if (existing && existing !== '0x') return
  await s.rpc('anvil_setCode', [AAVE_V3_BASE.weth, aaveArtifact('WETH9').deployedBytecode])
  await s.setStorage(AAVE_V3_BASE.weth, pad('0x0'), shortString('Wrapped Ether'))
  await s.setStorage(AAVE_V3_BASE.weth, pad('0x1'), shortString('WETH'))
  await s.setStorage(AAVE_V3_BASE.weth, pad('0x2'), toHex(18))
}

const RAY = 10n ** 27n

/** Deploys the market; the deployer is owner, ACL admin, pool admin and treasury. */
export async function deployAaveV3Market(
  rpcUrl: string,
  deployer: LocalAccount,
): Promise<AaveV3Market> {
  const s = session(rpcUrl, deployer)
  const A = AAVE_V3_BASE
  const admin = deployer.address
  const abi = (name: string) => aaveArtifact(name).abi
  const providerAbi = abi('PoolAddressesProvider')
  const aclAbi = abi('ACLManager')
  const proxyAbi = abi('InitializableImmutableAdminUpgradeabilityProxy')
  const poolAbi = abi('L2Pool')
  const configuratorAbi = abi('PoolConfigurator')
  const aTokenAbi = abi('AToken')
  const variableDebtAbi = abi('VariableDebtToken')
  const implementations: Record<string, Address> = {}

  await placeWeth9(rpcUrl, deployer)

  // PoolAddressesProvider(marketId, owner): storage _owner (0), _marketId (1), _addresses (2).
  const providerTmp = await s.deploy('PoolAddressesProvider', ['Aave Base Market', admin])
  await s.relocate(providerTmp, A.poolAddressesProvider, [pad('0x0'), pad('0x1')])
  const provider = A.poolAddressesProvider
  await s.write(provider, providerAbi, 'setACLAdmin', [admin])

  // ACLManager(provider): the constructor grants DEFAULT_ADMIN_ROLE (0x00) to the ACL admin.
  const aclTmp = await s.deploy('ACLManager', [provider])
  const adminRoleSlot = mappingSlot(admin, BigInt(mappingSlot(pad('0x0'), 0n)))
  await s.relocate(aclTmp, A.aclManager, [adminRoleSlot])
  await s.write(provider, providerAbi, 'setACLManager', [A.aclManager])
  await s.write(A.aclManager, aclAbi, 'addPoolAdmin', [admin])

  // The logic libraries L2Pool links (FlashLoanLogic links BorrowLogic).
  const libraries: Record<string, Address> = {}
  for (const name of [
    'SupplyLogic',
    'BorrowLogic',
    'LiquidationLogic',
    'EModeLogic',
    'BridgeLogic',
    'PoolLogic',
  ]) {
    libraries[name] = await s.deploy(name)
  }
  libraries.FlashLoanLogic = await s.deploy('FlashLoanLogic', [], libraries)
  libraries.ConfiguratorLogic = await s.deploy('ConfiguratorLogic')
  Object.assign(implementations, libraries)

  // L2Pool implementation, initialised in place (as Aave's deployment does), and its proxy
  // (admin: the provider) at Base's Pool address, initialised there.
  const poolImpl = await s.deploy('L2Pool', [provider], libraries)
  await s.write(poolImpl, poolAbi, 'initialize', [provider])
  implementations.L2PoolImpl = poolImpl
  const proxyAt = async (target: Address, proxyAdmin: Address, impl: Address, init: Hex) => {
    const tmp = await s.deploy('InitializableImmutableAdminUpgradeabilityProxy', [proxyAdmin])
    await s.relocate(tmp, target)
    await s.write(target, proxyAbi, 'initialize', [impl, init])
  }
  await proxyAt(
    A.pool,
    provider,
    poolImpl,
    encodeFunctionData({ abi: poolAbi, functionName: 'initialize', args: [provider] }),
  )
  await s.write(provider, providerAbi, 'setAddress', [stringToHex('POOL', { size: 32 }), A.pool])

  const configuratorImpl = await s.deploy('PoolConfigurator', [], libraries)
  implementations.PoolConfiguratorImpl = configuratorImpl
  await proxyAt(
    A.poolConfigurator,
    provider,
    configuratorImpl,
    encodeFunctionData({ abi: configuratorAbi, functionName: 'initialize', args: [provider] }),
  )
  await s.write(provider, providerAbi, 'setAddress', [
    stringToHex('POOL_CONFIGURATOR', { size: 32 }),
    A.poolConfigurator,
  ])

  // Prices: AaveOracle (USD, 8 decimals) over MockAggregator feeds; assetsSources is slot 0.
  const usdcFeed = await s.deploy('MockAggregator', [100_000_000n])
  const wethFeed = await s.deploy('MockAggregator', [300_000_000_000n])
  implementations.usdcPriceFeed = usdcFeed
  implementations.wethPriceFeed = wethFeed
  const oracleTmp = await s.deploy('AaveOracle', [
    provider,
    [A.usdc, A.weth],
    [usdcFeed, wethFeed],
    zeroAddress,
    zeroAddress,
    100_000_000n,
  ])
  await s.relocate(oracleTmp, A.oracle, [mappingSlot(A.usdc, 0n), mappingSlot(A.weth, 0n)])
  await s.write(provider, providerAbi, 'setPriceOracle', [A.oracle])

  const dataProviderTmp = await s.deploy('AaveProtocolDataProvider', [provider])
  await s.relocate(dataProviderTmp, A.dataProvider)
  await s.write(provider, providerAbi, 'setPoolDataProvider', [A.dataProvider])

  // Token implementations (their constructors read pool.ADDRESSES_PROVIDER()).
  const aTokenImpl = await s.deploy('AToken', [A.pool])
  const stableDebtImpl = await s.deploy('StableDebtToken', [A.pool])
  const variableDebtImpl = await s.deploy('VariableDebtToken', [A.pool])
  Object.assign(implementations, { aTokenImpl, stableDebtImpl, variableDebtImpl })
  const strategy = async (optimal: bigint, slope1: bigint, slope2: bigint) =>
    s.deploy('DefaultReserveInterestRateStrategy', [
      provider,
      optimal,
      0n,
      slope1,
      slope2,
      0n,
      0n,
      0n,
      0n,
      RAY / 5n,
    ])
  const usdcStrategy = await strategy((RAY * 9n) / 10n, (RAY * 5n) / 100n, (RAY * 60n) / 100n)
  const wethStrategy = await strategy((RAY * 9n) / 10n, (RAY * 27n) / 1000n, (RAY * 80n) / 100n)
  Object.assign(implementations, { usdcStrategy, wethStrategy })

  const reserveInput = (
    asset: Address,
    decimals: number,
    symbol: string,
    interestRateStrategyAddress: Address,
  ) => ({
    aTokenImpl,
    stableDebtTokenImpl: stableDebtImpl,
    variableDebtTokenImpl: variableDebtImpl,
    underlyingAssetDecimals: decimals,
    interestRateStrategyAddress,
    underlyingAsset: asset,
    treasury: admin,
    incentivesController: zeroAddress,
    aTokenName: `Aave Base ${symbol}`,
    aTokenSymbol: `aBas${symbol}`,
    variableDebtTokenName: `Aave Base Variable Debt ${symbol}`,
    variableDebtTokenSymbol: `variableDebtBas${symbol}`,
    stableDebtTokenName: `Aave Base Stable Debt ${symbol}`,
    stableDebtTokenSymbol: `stableDebtBas${symbol}`,
    params: '0x',
  })
  // initReserves creates each reserve's aToken, stable and variable debt token proxies with
  // CREATE from the configurator. Base listed WETH first (configurator nonces 1-3: aWETH,
  // stableDebtWETH, variableDebtWETH) and USDC later (nonces 13-15), so setting the
  // configurator's nonce reproduces Base's token addresses exactly.
  const readReserve = async (asset: Address) => {
    const data = (await s.publicClient.readContract({
      address: A.pool,
      abi: poolAbi,
      functionName: 'getReserveData',
      args: [asset],
    })) as {
      aTokenAddress: Address
      variableDebtTokenAddress: Address
      stableDebtTokenAddress: Address
      id: number
    }
    return {
      asset,
      aToken: data.aTokenAddress,
      variableDebt: data.variableDebtTokenAddress,
      stableDebt: data.stableDebtTokenAddress,
      id: Number(data.id),
    }
  }
  const listReserve = async (
    asset: Address,
    decimals: number,
    symbol: string,
    strategyAddress: Address,
    configuratorNonce: number,
    aToken: Address,
    variableDebt: Address,
  ) => {
    await s.rpc('anvil_setNonce', [A.poolConfigurator, toHex(configuratorNonce)])
    await s.write(A.poolConfigurator, configuratorAbi, 'initReserves', [
      [reserveInput(asset, decimals, symbol, strategyAddress)],
    ])
    const reserve = await readReserve(asset)
    if (getAddress(reserve.aToken) !== getAddress(aToken))
      throw new Error(`a${symbol} at ${reserve.aToken}, not at Base's ${aToken}`)
    if (getAddress(reserve.variableDebt) !== getAddress(variableDebt))
      throw new Error(
        `variableDebt${symbol} at ${reserve.variableDebt}, not at Base's ${variableDebt}`,
      )
    return reserve
  }
  const weth = await listReserve(A.weth, 18, 'WETH', wethStrategy, 1, A.aWeth, A.variableDebtWeth)
  const usdc = await listReserve(A.usdc, 6, 'USDC', usdcStrategy, 13, A.aUsdc, A.variableDebtUsdc)

  // Collateral and borrowing on (LTV / liquidation threshold / bonus in bps), 10 % reserve factor.
  for (const [asset, ltv, threshold] of [
    [A.usdc, 7500n, 7800n],
    [A.weth, 8000n, 8300n],
  ] as const) {
    await s.write(A.poolConfigurator, configuratorAbi, 'configureReserveAsCollateral', [
      asset,
      ltv,
      threshold,
      10500n,
    ])
    await s.write(A.poolConfigurator, configuratorAbi, 'setReserveBorrowing', [asset, true])
    await s.write(A.poolConfigurator, configuratorAbi, 'setReserveFactor', [asset, 1000n])
  }

  // WrappedTokenGatewayV3(weth, owner, pool): Ownable `_owner` is slot 0; its constructor's
  // WETH approval to the pool is re-made for the Base address (WETH9 allowance is slot 4).
  const gatewayAbi = aaveArtifact('WrappedTokenGatewayV3').abi
  const gatewayTmp = await s.deploy('WrappedTokenGatewayV3', [A.weth, admin, A.pool])
  await s.relocate(gatewayTmp, A.wethGateway, [pad('0x0')])
  await s.setStorage(
    A.weth,
    mappingSlot(A.pool, BigInt(mappingSlot(A.wethGateway, 4n))),
    toHex(maxUint256),
  )

  return {
    pool: A.pool,
    gateway: A.wethGateway,
    poolAbi,
    gatewayAbi,
    aTokenAbi,
    variableDebtAbi,
    reserves: { usdc, weth },
    implementations,
  }
}

/** Wraps ETH into WETH9 and approves the pool for `asset` (max). */
export async function wrapAndApprove(
  rpcUrl: string,
  account: LocalAccount,
  wethAmount: bigint,
): Promise<void> {
  const s = session(rpcUrl, account)
  if (wethAmount > 0n) await s.write(AAVE_V3_BASE.weth, erc20Abi, 'deposit', [], wethAmount)
  await s.write(AAVE_V3_BASE.weth, erc20Abi, 'approve', [AAVE_V3_BASE.pool, maxUint256])
  await s.write(AAVE_V3_BASE.usdc, erc20Abi, 'approve', [AAVE_V3_BASE.pool, maxUint256])
}

export const ONE_ETH = parseEther('1')
