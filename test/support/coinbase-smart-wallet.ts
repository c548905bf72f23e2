import {
  type Abi,
  type Address,
  concat,
  createTestClient,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  http,
  parseAbi,
} from 'viem'
import type { LocalAccount } from 'viem/accounts'
import wallet from '../../contracts/protocols/coinbase-smart-wallet/CoinbaseSmartWallet.json' with {
  type: 'json',
}
import factory from '../../contracts/protocols/coinbase-smart-wallet/CoinbaseSmartWalletFactory.json' with {
  type: 'json',
}
import { clients } from './contracts.js'

/** Coinbase Smart Wallet v1 at its Base addresses (viem's `toCoinbaseSmartAccount` version '1'). */
export const COINBASE_SMART_WALLET = {
  implementation: wallet.deployment.address as Address,
  factory: factory.deployment.address as Address,
  abi: wallet.abi as Abi,
  factoryAbi: factory.abi as Abi,
}

/** anvil's genesis CREATE2 deployer, whose runtime code the Safe Singleton Factory shares. */
const DETERMINISTIC_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'

/**
 * Deploys Coinbase Smart Wallet v1 on the devnet by the route it reached Base: its init code
 * (compiled from source, see scripts/protocol-artifacts/coinbase-smart-wallet.ts) through the
 * Safe Singleton Factory with Coinbase's salts, so the implementation and the factory land at
 * their canonical addresses. anvil has no Safe Singleton Factory (it arrives on a chain by a
 * pre-signed transaction); its runtime code is the deterministic deployer's, copied from anvil's.
 * Idempotent.
 */
export async function deployCoinbaseSmartWallet(rpcUrl: string): Promise<void> {
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
  const { publicClient, walletClient } = clients(rpcUrl)
  const singleton = factory.deployment.deployer as Address
  if (!(await publicClient.getCode({ address: singleton }))) {
    const code = await publicClient.getCode({ address: DETERMINISTIC_DEPLOYER })
    if (!code) throw new Error('the devnet has no deterministic deployer to copy')
    await test.setCode({ address: singleton, bytecode: code })
  }
  for (const a of [wallet, factory]) {
    const address = a.deployment.address as Address
    if (await publicClient.getCode({ address })) continue
    const hash = await walletClient.sendTransaction({
      to: singleton,
      data: concat([
        a.deployment.salt as Hex,
        a.bytecode as Hex,
        a.deployment.constructorArgs as Hex,
      ]),
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success' || !(await publicClient.getCode({ address }))) {
      throw new Error(`deploying ${a.contractName} at ${address} failed (${hash})`)
    }
  }
}

const factoryAbi = parseAbi([
  'function createAccount(bytes[] owners, uint256 nonce) payable returns (address)',
  'function getAddress(bytes[] owners, uint256 nonce) view returns (address)',
])

/** A v1 account owned by `owner` (an EOA, encoded as the factory takes it: a 32-byte word). */
export async function coinbaseSmartAccount(rpcUrl: string, owner: Address, nonce = 0n) {
  const owners = [encodeAbiParameters([{ type: 'address' }], [owner])]
  const sender = await clients(rpcUrl).publicClient.readContract({
    address: COINBASE_SMART_WALLET.factory,
    abi: factoryAbi,
    functionName: 'getAddress',
    args: [owners, nonce],
  })
  const initCode = concat([
    COINBASE_SMART_WALLET.factory,
    encodeFunctionData({ abi: factoryAbi, functionName: 'createAccount', args: [owners, nonce] }),
  ])
  return { sender, initCode }
}

/** The signature a v1 account checks: `SignatureWrapper(ownerIndex, r‖s‖v over the raw hash)`. */
export async function coinbaseSignature(
  owner: LocalAccount,
  userOpHash: Hex,
  ownerIndex = 0n,
): Promise<Hex> {
  if (!owner.sign) throw new Error('the owner cannot sign a raw hash')
  return encodeAbiParameters(
    [
      {
        type: 'tuple',
        components: [
          { name: 'ownerIndex', type: 'uint256' },
          { name: 'signatureData', type: 'bytes' },
        ],
      },
    ],
    [{ ownerIndex, signatureData: await owner.sign({ hash: userOpHash }) }],
  )
}
