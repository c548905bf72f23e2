import { expectBytes } from '@pre-send-guard/client/types'
import {
  type Address,
  createTestClient,
  type Hex,
  http,
  keccak256,
  pad,
  parseAbi,
  parseEther,
  publicActions,
  stringToBytes,
} from 'viem'
import sepoliaUsdcArtifact from '../../../contracts/artifacts/DevnetSepoliaUSDC.json' with {
  type: 'json',
}
import usdcArtifact from '../../../contracts/artifacts/DevnetUSDC.json' with { type: 'json' }
import gasPriceOracleArtifact from '../../../contracts/artifacts/GasPriceOracle.json' with {
  type: 'json',
}
import multicall3Artifact from '../../../contracts/artifacts/Multicall3.json' with { type: 'json' }
import { BASE_MAINNET, type NetworkProfile } from '../../domain/network/network-profile.js'
import { deployCanonicalAccountAbstraction } from './account-abstraction.js'
import { DEVNET_ACCOUNTS } from './accounts.js'

import { mintDevnetUsdc, USDC_ADDRESS } from './usdc.js'

export { mintDevnetUsdc, USDC_ADDRESS }
/** Canonical Multicall3 address (same on Base mainnet). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
/** OP-stack GasPriceOracle predeploy. */
export const GAS_PRICE_ORACLE_ADDRESS: Address = BASE_MAINNET.predeploys.gasPriceOracle
/** Storage slot of DevnetUSDC's minter; must equal `MINTER_SLOT` in contracts/DevnetUSDC.sol. */
export const DEVNET_USDC_MINTER_SLOT: Hex = keccak256(
  stringToBytes('pre-send-guard.devnet-usdc.minter'),
)
/** USDC (atomic units, 6 decimals) the demo buyer holds after preparation: 1,000 USDC. */
export const BUYER_INITIAL_USDC = 1_000_000_000n
/** ETH each role account holds after preparation (anvil's default dev balance). */
export const ROLE_INITIAL_ETH = parseEther('10000')

export { DEVNET_ACCOUNTS, type DevnetAccount, type DevnetRole } from './accounts.js'

const mintAbi = parseAbi([
  'function mint(address to, uint256 amount) returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
])

function clients(rpcUrl: string) {
  // Anvil mines each transaction on submission; poll fast instead of viem's multi-second default.
  const transport = http(rpcUrl, { retryCount: 0 })
  const test = createTestClient({ mode: 'anvil', transport, pollingInterval: 50 }).extend(
    publicActions,
  )
  return { test }
}

/** Options for {@link prepareDevnet}. */
export interface PrepareDevnetOptions {
  /**
   * Leave code already at USDC, Multicall3 and the GasPriceOracle (a fork of Base holds the
   * real ones): then a kept USDC gets no minter and the buyer no USDC here (see usdc.ts).
   */
  keepExisting?: boolean
  /**
   * The network the devnet is shaped like: its USDC (address and EIP-712 name) is placed.
   * Base mainnet when absent.
   */
  network?: NetworkProfile
}

/**
 * Makes an anvil node Base-mainnet-shaped: DevnetUSDC at the USDC address, Multicall3 and the
 * GasPriceOracle at their canonical addresses, the USDC minter set, role accounts funded, the
 * ERC-4337 EntryPoints v0.6/v0.7/v0.8 and Simple7702Account deployed where Base has them.
 * Idempotent: re-running tops the buyer up to {@link BUYER_INITIAL_USDC} (never burns) and
 * resets role ETH balances to {@link ROLE_INITIAL_ETH}. The devnet the service and
 * `startDevnet` run holds more (base-world.ts), loaded from a state file built once.
 */
export async function prepareDevnet(
  rpcUrl: string,
  options: PrepareDevnetOptions = {},
): Promise<void> {
  const { test } = clients(rpcUrl)
  const network = options.network ?? BASE_MAINNET
  const usdc = network.usdc.address
  // DevnetUSDC signs under mainnet's EIP-712 name ("USD Coin"); its Sepolia twin under "USDC".
  const usdcCode =
    network.usdc.name === BASE_MAINNET.usdc.name
      ? expectBytes(usdcArtifact.deployedBytecode, 'DevnetUSDC.json')
      : expectBytes(sepoliaUsdcArtifact.deployedBytecode, 'DevnetSepoliaUSDC.json')
  const place = async (address: Address, bytecode: Hex): Promise<boolean> => {
    if (options.keepExisting) {
      const code = await test.getCode({ address })
      if (code !== undefined && code !== '0x') return false
    }
    await test.setCode({ address, bytecode })
    return true
  }
  const [usdcPlaced] = await Promise.all([
    place(usdc, usdcCode),
    place(MULTICALL3_ADDRESS, expectBytes(multicall3Artifact.deployedBytecode, 'Multicall3.json')),
    place(
      GAS_PRICE_ORACLE_ADDRESS,
      expectBytes(gasPriceOracleArtifact.deployedBytecode, 'GasPriceOracle.json'),
    ),
    ...Object.values(DEVNET_ACCOUNTS).map((account) =>
      test.setBalance({ address: account.address, value: ROLE_INITIAL_ETH }),
    ),
  ])
  await deployCanonicalAccountAbstraction(test)
  if (!usdcPlaced) return
  await test.setStorageAt({
    address: usdc,
    index: DEVNET_USDC_MINTER_SLOT,
    value: pad(DEVNET_ACCOUNTS.usdcMinter.address),
  })
  const balance = await test.readContract({
    address: usdc,
    abi: mintAbi,
    functionName: 'balanceOf',
    args: [DEVNET_ACCOUNTS.buyer.address],
  })
  if (balance < BUYER_INITIAL_USDC) {
    await mintDevnetUsdc(rpcUrl, DEVNET_ACCOUNTS.buyer.address, BUYER_INITIAL_USDC - balance, usdc)
  }
}
