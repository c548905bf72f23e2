import { NETWORKS, type NetworkFacts, type NetworkName } from '@pre-send-guard/client/types'
import type { Address, Chain } from 'viem'
import { base, baseSepolia } from 'viem/chains'

/**
 * One network the guard serves, as data: the facts a buyer shares (`NetworkFacts`: CAIP-2 id,
 * chain id, USDC and its EIP-712 name/version) and what only the service needs: viem's chain
 * definition, the OP-stack predeploys it reads, WETH, the tokens every preflight reads, the
 * payment tokens a copy of which is critical, and the receipt's EIP-712 domain. Protocol
 * contracts are not here: each protocol module carries its addresses per network
 * (`protocols/<family>.ts`, keyed by CAIP-2 id).
 */
export interface NetworkProfile extends NetworkFacts {
  name: NetworkName
  id: (typeof NETWORKS)[NetworkName]['id']
  /** viem's chain definition (where the OP-stack predeploys come from). */
  chain: Chain
  /**
   * Seconds from one block to the next (2 on every Base network): the block a transaction sent
   * now lands in is judged at the pinned block's timestamp plus this.
   */
  blockSeconds: number
  /** The OP-stack predeploys the preflight and the devnet use (viem's `chain.contracts`). */
  predeploys: { gasPriceOracle: Address; l1Block: Address }
  /**
   * The tokens everyday actions move most often without naming them in calldata (USDC, WETH):
   * the preflight reads their metadata in its first wave always.
   */
  everydayTokens: readonly Address[]
  /** The tokens agents pay with, by address: a copy of one of these is critical. */
  paymentTokens: readonly Address[]
  /** EIP-712 domain every receipt on this network is signed under (no verifyingContract). */
  receiptDomain: { name: 'Pre-Send Guard'; version: '1'; chainId: number }
  /**
   * The L1 counterparts the OP-stack bridge predeploys are initialised with (on Ethereum for
   * Base mainnet, on Ethereum Sepolia for Base Sepolia): the devnet initialises its
   * L2StandardBridge and L2CrossDomainMessenger with them, as the chain's genesis did.
   */
  l1: { standardBridge: Address; crossDomainMessenger: Address }
}

/** An OP-stack predeploy's address from viem's chain definition (every Base chain has them). */
function predeploy(chain: Chain, name: 'gasPriceOracle' | 'l1Block'): Address {
  const contract = chain.contracts?.[name]
  if (!contract || !('address' in contract)) throw new Error(`${chain.name} has no ${name}`)
  return contract.address
}

/** The L1StandardBridge viem's chain definition names (on its source chain). */
function l1StandardBridge(chain: Chain): Address {
  const byChain = chain.contracts?.l1StandardBridge as Record<number, { address: Address }>
  const found = chain.sourceId === undefined ? undefined : byChain?.[chain.sourceId]
  if (!found) throw new Error(`${chain.name} has no l1StandardBridge`)
  return found.address
}

/** The profile of `facts` on `chain`, with the payment tokens beyond USDC and WETH. */
function profile(
  facts: (typeof NETWORKS)[NetworkName],
  chain: Chain,
  otherPaymentTokens: readonly Address[],
  l1CrossDomainMessenger: Address,
): NetworkProfile {
  if (chain.id !== facts.chainId) throw new Error(`${facts.name}: viem's chain is ${chain.id}`)
  const { weth } = facts
  return {
    ...facts,
    chain,
    // OP-stack chains' block time; viem's chain definitions do not carry it.
    blockSeconds: 2,
    predeploys: {
      gasPriceOracle: predeploy(chain, 'gasPriceOracle'),
      l1Block: predeploy(chain, 'l1Block'),
    },
    everydayTokens: [facts.usdc.address, weth],
    paymentTokens: [facts.usdc.address, ...otherPaymentTokens, weth],
    receiptDomain: { name: 'Pre-Send Guard', version: '1', chainId: facts.chainId },
    l1: { standardBridge: l1StandardBridge(chain), crossDomainMessenger: l1CrossDomainMessenger },
  }
}

/** Every network's profile, by the name `NETWORK` takes. */
export const NETWORK_PROFILES: Readonly<Record<NetworkName, NetworkProfile>> = {
  base: profile(
    NETWORKS.base,
    base,
    [
      '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA', // USDbC
      '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', // EURC
      '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf', // cbBTC
      '0x2Ae3F1Ec7F1F5012CFEab0185bfc7aa3cf0DEc22', // cbETH
      '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb', // DAI
      '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', // USDT (bridged)
    ],
    // L1CrossDomainMessenger proxy on Ethereum (Base's superchain-registry entry).
    '0x866E82a600A1414e583f7F13623F1aC5d58b0Afa',
  ),
  'base-sepolia': profile(
    NETWORKS['base-sepolia'],
    baseSepolia,
    [],
    // L1CrossDomainMessenger proxy on Ethereum Sepolia (Base Sepolia's registry entry).
    '0xC34855F4De64F1840e5686e64278da901e261f20',
  ),
}

/** Base mainnet: the default network, and the one the rule catalogue's examples speak of. */
export const BASE_MAINNET: NetworkProfile = NETWORK_PROFILES.base

/** The profile of a CAIP-2 id the guard serves. */
export function profileById(id: NetworkProfile['id']): NetworkProfile {
  const found = Object.values(NETWORK_PROFILES).find((p) => p.id === id)
  if (!found) throw new Error(`no network profile for ${id}`)
  return found
}
