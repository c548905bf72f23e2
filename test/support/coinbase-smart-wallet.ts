import {
  type Abi,
  type Address,
  concat,
  createTestClient,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  parseAbi,
} from 'viem'
import type { LocalAccount } from 'viem/accounts'
import { clients, loadArtifact } from './contracts.js'

const wallet = loadArtifact('CoinbaseSmartWalletStandIn')
const factory = loadArtifact('CoinbaseSmartWalletFactoryStandIn')

/**
 * Coinbase Smart Wallet v1 at its Base addresses (viem's `toCoinbaseSmartAccount` version '1'
 * reads accounts from, and deploys through, the factory there), on contracts of our own
 * (contracts/test/CoinbaseSmartWallet.sol) that implement its published interface and
 * behaviour: no package ships the wallet, and its source is not ours to commit.
 */
export const COINBASE_SMART_WALLET = {
  implementation: getAddress('0x000100abaad02f1cfC8Bbe32bD5a564817339E72'),
  factory: getAddress('0x0BA5ED0c6AA8c49038F819E587E2633c4A9F428a'),
  abi: wallet.abi,
  factoryAbi: factory.abi,
} satisfies Record<string, Address | Abi>

/**
 * Places the wallet's implementation and factory at their Base addresses on the devnet. Neither
 * holds constructor state, so their runtime code is set (`anvil_setCode`); accounts are the
 * factory's CREATE2 proxies of the implementation, as on Base. Idempotent.
 */
export async function deployCoinbaseSmartWallet(rpcUrl: string): Promise<void> {
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
  await test.setCode({
    address: COINBASE_SMART_WALLET.implementation,
    bytecode: wallet.deployedBytecode,
  })
  await test.setCode({ address: COINBASE_SMART_WALLET.factory, bytecode: factory.deployedBytecode })
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
