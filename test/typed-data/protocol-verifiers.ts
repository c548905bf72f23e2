import { type Address, createTestClient, getAddress, http, publicActions } from 'viem'
import { COW_SETTLEMENT } from '../../src/domain/typed-data/protocols/cow-order.js'
import { ONE_INCH_ROUTER_V6 } from '../../src/domain/typed-data/protocols/one-inch-limit-order.js'
import { UNISWAPX_BASE_REACTORS } from '../../src/domain/typed-data/protocols/uniswapx-orders.js'
import { placeMorphoBlue } from '../corpus/protocols/support/morpho-blue-deploy.js'
import { deploy, testAccount } from '../support/contracts.js'

/** Compound III cUSDCv3 on Base. */
export const COMET_USDC: Address = '0xb125E6687d4313864e53df431d5425969c15Eb2F'
/** UniswapX's PriorityOrderReactor on Base. */
export const PRIORITY_REACTOR: Address = getAddress(UNISWAPX_BASE_REACTORS.priority[0] ?? '')

/** The verifying contracts the protocol kinds need on the devnet, and where they are. */
export interface ProtocolVerifiers {
  /** An ERC-20 with Aave's debt-token domain shape (its name, version `1`), 18 decimals. */
  aaveDebtToken: Address
  /** Where CoW's domain code was first deployed: a contract with CoW's domain name, not CoW's address. */
  cowCopy: Address
}

/**
 * Places code at the protocols' Base addresses, so the rules that read the verifying
 * contract see what they would on Base: our own TestEIP712Domain (OpenZeppelin EIP712, which
 * rebuilds its separator from `address(this)` and the chain id when its code is moved) under
 * CoW's, 1inch's and Comet's domain names at their addresses, the same code at UniswapX's
 * PriorityOrderReactor (only its having code matters), and real Morpho Blue (the repo's
 * artifact, its DOMAIN_SEPARATOR immutable filled in for its Base address).
 */
export async function placeProtocolVerifiers(rpcUrl: string): Promise<ProtocolVerifiers> {
  const deployer = testAccount(8)
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).extend(publicActions)
  const place = async (name: string, version: string, at: Address) => {
    const { address } = await deploy(rpcUrl, 'TestEIP712Domain', [name, version], deployer)
    const code = await test.getCode({ address })
    if (!code) throw new Error(`TestEIP712Domain for ${name} has no code`)
    await test.setCode({ address: at, bytecode: code })
    return getAddress(address)
  }
  const cowCopy = await place('Gnosis Protocol', 'v2', COW_SETTLEMENT)
  await place('1inch Aggregation Router', '6', ONE_INCH_ROUTER_V6)
  await place('Compound USDC', '0', COMET_USDC)
  await place('UniswapX PriorityOrderReactor', '1', PRIORITY_REACTOR)
  await placeMorphoBlue(rpcUrl, deployer.address)
  const debt = await deploy(
    rpcUrl,
    'TestERC20',
    ['Aave Base Variable Debt USDC', 'vdUSDC'],
    deployer,
  )
  return { aaveDebtToken: getAddress(debt.address), cowCopy }
}
