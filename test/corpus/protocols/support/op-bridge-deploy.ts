import {
  type Abi,
  type Address,
  createTestClient,
  createWalletClient,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  type LocalAccount,
  pad,
  parseAbiParameters,
  parseEther,
  publicActions,
} from 'viem'
import { base } from 'viem/chains'
import { clients } from '../../../support/contracts.js'
import { protocolArtifact } from './protocol-artifact.js'

/** OP-stack L2 predeploys (src/libraries/Predeploys.sol in contracts-bedrock 0.17.3). */
export const PREDEPLOYS = {
  L2CrossDomainMessenger: '0x4200000000000000000000000000000000000007',
  L2StandardBridge: '0x4200000000000000000000000000000000000010',
  OptimismMintableERC20Factory: '0x4200000000000000000000000000000000000012',
  L1Block: '0x4200000000000000000000000000000000000015',
  L2ToL1MessagePasser: '0x4200000000000000000000000000000000000016',
  ProxyAdmin: '0x4200000000000000000000000000000000000018',
} as const satisfies Record<string, Address>
/** The L2 token address that stands for ETH in the legacy bridge API (`Predeploys.LEGACY_ERC20_ETH`). */
export const LEGACY_ERC20_ETH: Address = '0xDeadDeAddeAddEAddeadDEaDDEAdDeaDDeAD0000'
/** Base's L1 (Ethereum) counterparts: L1StandardBridge proxy (viem's `base.contracts`) and L1CrossDomainMessenger proxy. */
export const BASE_L1 = {
  L1StandardBridge: '0x3154Cf16ccdb4C6d922629664174b904d80F2C35',
  L1CrossDomainMessenger: '0x866E82a600A1414e583f7F13623F1aC5d58b0Afa',
} as const satisfies Record<string, Address>
/** EIP-1967 slots the bedrock Proxy reads (Constants.PROXY_IMPLEMENTATION_ADDRESS / PROXY_OWNER_ADDRESS). */
export const PROXY_IMPLEMENTATION_SLOT: Hex =
  '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'
export const PROXY_ADMIN_SLOT: Hex =
  '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103'

const ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n
/** AddressAliasHelper.applyL1ToL2Alias: the L2 `msg.sender` of an L1 contract's deposit. */
export const applyL1ToL2Alias = (l1: Address): Address =>
  getAddress(pad(`0x${((BigInt(l1) + ALIAS_OFFSET) % 2n ** 160n).toString(16)}`, { size: 20 }))

/** The implementation address genesis uses: Predeploys.predeployToCodeNamespace. */
export const codeNamespace = (predeploy: Address): Address =>
  getAddress(`0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3${predeploy.slice(-4)}`)

export const opArtifacts = {
  Proxy: protocolArtifact('op-bridge', 'Proxy'),
  L2StandardBridge: protocolArtifact('op-bridge', 'L2StandardBridge'),
  L2CrossDomainMessenger: protocolArtifact('op-bridge', 'L2CrossDomainMessenger'),
  L2ToL1MessagePasser: protocolArtifact('op-bridge', 'L2ToL1MessagePasser'),
  L1Block: protocolArtifact('op-bridge', 'L1Block'),
  OptimismMintableERC20Factory: protocolArtifact('op-bridge', 'OptimismMintableERC20Factory'),
  OptimismMintableERC20: protocolArtifact('op-bridge', 'OptimismMintableERC20'),
}

type Proxied = Exclude<keyof typeof PREDEPLOYS, 'ProxyAdmin'>

/**
 * Lays the predeploys out as OP-stack genesis (scripts/L2Genesis.s.sol) does: the bedrock
 * Proxy at each predeploy address, admin = ProxyAdmin 0x42..18 and implementation = the
 * code-namespace address 0xc0d3...<last 2 bytes> holding the implementation's runtime; then
 * `initialize` on the implementation (zero counterparts) and on the proxy (Base's L1
 * counterparts), by the deployer. Idempotent: a bridge already initialised is left alone.
 */
export async function ensureOpBridge(rpcUrl: string, deployer: LocalAccount): Promise<void> {
  const test = createTestClient({ chain: base, mode: 'anvil', transport: http(rpcUrl) }).extend(
    publicActions,
  )
  const bridgeCode = await test.getCode({ address: PREDEPLOYS.L2StandardBridge })
  if (bridgeCode === opArtifacts.Proxy.deployedBytecode) {
    const messenger = await test.readContract({
      address: PREDEPLOYS.L2StandardBridge,
      abi: opArtifacts.L2StandardBridge.abi,
      functionName: 'messenger',
    })
    if (BigInt(messenger as Address) !== 0n) return
  }
  const proxied: Proxied[] = [
    'L2CrossDomainMessenger',
    'L2StandardBridge',
    'OptimismMintableERC20Factory',
    'L1Block',
    'L2ToL1MessagePasser',
  ]
  for (const name of proxied) {
    const address = PREDEPLOYS[name]
    const implementation = codeNamespace(address)
    await test.setCode({ address, bytecode: opArtifacts.Proxy.deployedBytecode })
    await test.setStorageAt({ address, index: PROXY_ADMIN_SLOT, value: pad(PREDEPLOYS.ProxyAdmin) })
    await test.setStorageAt({
      address,
      index: PROXY_IMPLEMENTATION_SLOT,
      value: pad(implementation),
    })
    await test.setCode({ address: implementation, bytecode: opArtifacts[name].deployedBytecode })
  }
  const { walletClient, publicClient } = clients(rpcUrl, deployer)
  const initialize = async (name: Proxied, counterpart: Address) => {
    const { abi } = opArtifacts[name]
    for (const [address, arg] of [
      [codeNamespace(PREDEPLOYS[name]), '0x0000000000000000000000000000000000000000'],
      [PREDEPLOYS[name], counterpart],
    ] as const) {
      const hash = await walletClient.sendTransaction({
        to: address,
        data: encodeFunctionData({ abi, functionName: 'initialize', args: [arg] } as never),
      })
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
      if (receipt.status !== 'success') throw new Error(`op-bridge: ${name}.initialize reverted`)
    }
  }
  await initialize('L2CrossDomainMessenger', BASE_L1.L1CrossDomainMessenger)
  await initialize('L2StandardBridge', BASE_L1.L1StandardBridge)
  await initialize('OptimismMintableERC20Factory', PREDEPLOYS.L2StandardBridge)
}

/** An L2 token created by the OptimismMintableERC20Factory predeploy, as bridged tokens are. */
export async function createBridgedToken(
  rpcUrl: string,
  deployer: LocalAccount,
  remoteToken: Address,
  name: string,
  symbol: string,
): Promise<{ address: Address; abi: Abi }> {
  const { walletClient, publicClient } = clients(rpcUrl, deployer)
  const token = opArtifacts.OptimismMintableERC20
  // The factory deploys by CREATE2 (salt = keccak256(abi.encode(remote, name, symbol, 18))): an
  // earlier setup on the same devnet may already have created it.
  const address = getContractAddress({
    opcode: 'CREATE2',
    from: PREDEPLOYS.OptimismMintableERC20Factory,
    salt: keccak256(
      encodeAbiParameters(parseAbiParameters('address, string, string, uint8'), [
        remoteToken,
        name,
        symbol,
        18,
      ]),
    ),
    bytecode: encodeDeployData({
      abi: token.abi,
      bytecode: token.bytecode,
      args: [PREDEPLOYS.L2StandardBridge, remoteToken, name, symbol, 18],
    }),
  })
  if (!(await publicClient.getCode({ address }))) {
    const hash = await walletClient.writeContract({
      address: PREDEPLOYS.OptimismMintableERC20Factory,
      abi: opArtifacts.OptimismMintableERC20Factory.abi,
      functionName: 'createOptimismMintableERC20',
      args: [remoteToken, name, symbol],
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success' || !(await publicClient.getCode({ address })))
      throw new Error('op-bridge: creating the L2 token failed')
  }
  return { address, abi: token.abi }
}

let depositNonce = 0n

/**
 * Finalises an L1 -> L2 ERC-20 deposit the way the chain does: the aliased
 * L1CrossDomainMessenger calls `L2CrossDomainMessenger.relayMessage`, which calls
 * `L2StandardBridge.finalizeBridgeERC20` as the L1StandardBridge, which mints the L2 token.
 * (anvil impersonates the aliased messenger; on Base this is a deposit transaction.)
 */
export async function finalizeErc20Deposit(
  rpcUrl: string,
  args: { l2Token: Address; l1Token: Address; from: Address; to: Address; amount: bigint },
): Promise<void> {
  const test = createTestClient({ chain: base, mode: 'anvil', transport: http(rpcUrl) }).extend(
    publicActions,
  )
  const aliased = applyL1ToL2Alias(BASE_L1.L1CrossDomainMessenger)
  await test.impersonateAccount({ address: aliased })
  await test.setBalance({ address: aliased, value: parseEther('1') })
  const message = encodeFunctionData({
    abi: opArtifacts.L2StandardBridge.abi,
    functionName: 'finalizeBridgeERC20',
    args: [args.l2Token, args.l1Token, args.from, args.to, args.amount, '0x'],
  })
  // A version-1 message nonce: version in the top two bytes.
  const nonce = (1n << 240n) | (1_000_000n + depositNonce++)
  const wallet = createWalletClient({ chain: base, transport: http(rpcUrl), account: aliased })
  const hash = await wallet.sendTransaction({
    to: PREDEPLOYS.L2CrossDomainMessenger,
    data: encodeFunctionData({
      abi: opArtifacts.L2CrossDomainMessenger.abi,
      functionName: 'relayMessage',
      args: [nonce, BASE_L1.L1StandardBridge, PREDEPLOYS.L2StandardBridge, 0n, 200_000n, message],
    }),
    gas: 1_000_000n,
  })
  const receipt = await test.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  await test.stopImpersonatingAccount({ address: aliased })
  if (receipt.status !== 'success')
    throw new Error('op-bridge: relaying the ERC-20 deposit reverted')
}
