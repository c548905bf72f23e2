import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import {
  type Abi,
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  type Hex,
  keccak256,
  numberToHex,
  pad,
  parseAbiParameters,
  parseEther,
  size,
  toHex,
  zeroAddress,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { clients, deploy, loadArtifact, testAccount } from '../support/contracts.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * The Safe and Universal Router rules on the bytecode their users actually run: the compiled
 * artifacts shipped in `@safe-global/safe-contracts@1.4.1`, `@uniswap/universal-router@2.1.0`
 * and its dependencies `@uniswap/v2-core@1.0.1` and `@uniswap/v3-core@1.0.0` (devDependencies),
 * deployed on a real anvil. Every
 * firing case and twin executes (`call.success`), so the findings describe calls that would go
 * through, and the effects show who really receives the output.
 */

const require = createRequire(import.meta.url)

interface PackageArtifact {
  abi: Abi
  bytecode: Hex
}

/** The devDependencies whose compiled artifacts these tests deploy. */
const PACKAGES = [
  '@safe-global/safe-contracts@1.4.1',
  '@uniswap/universal-router@2.1.0',
  '@uniswap/v2-core@1.0.1',
  '@uniswap/v3-core@1.0.0',
]

function resolvePackaged(specifier: string): string {
  try {
    return require.resolve(specifier)
  } catch {
    throw new Error(
      `${specifier} is not installed: these tests need the devDependencies ${PACKAGES.join(', ')}`,
    )
  }
}

/** A compiled artifact from an installed package (Hardhat or Waffle layout). */
function packageArtifact(specifier: string): PackageArtifact {
  const json = JSON.parse(readFileSync(resolvePackaged(specifier), 'utf8')) as {
    abi: Abi
    bytecode?: string
    evm?: { bytecode: { object: string } }
  }
  const code = json.bytecode ?? json.evm?.bytecode.object ?? ''
  return { abi: json.abi, bytecode: (code.startsWith('0x') ? code : `0x${code}`) as Hex }
}

const SAFE_ARTIFACTS = '@safe-global/safe-contracts/build/artifacts/contracts'
const safeArtifact = (path: string) => packageArtifact(`${SAFE_ARTIFACTS}/${path}`)

const PATH = '/payanagent/v1/base-transaction-preflight'
const owner = testAccount(7)
const OWNER = owner.address
/** The Safe's second owner. */
const COSIGNER = testAccount(6).address
/** A funded account with no code that the sender does not control. */
const STRANGER = testAccount(8).address
/** Universal Router recipient placeholders (`Constants.MSG_SENDER`, `Constants.ADDRESS_THIS`). */
const MSG_SENDER: Address = '0x0000000000000000000000000000000000000001'
const ADDRESS_THIS: Address = '0x0000000000000000000000000000000000000002'
const ETH: Address = zeroAddress
const SWAP_IN = parseEther('0.01')

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
let safe: Address
let safeAbi: Abi
let multiSend: Address
let multiSendAbi: Abi
let guard: Address
let handler: Address
let token: { address: Address; abi: Abi }
let weth: { address: Address; abi: Abi }
let router: Address
let routerAbi: Abi

interface Finding {
  id: string
  severity: string
  detail: string
  path?: string
}

interface Answer {
  verdict: string
  findings: Finding[]
  call: { success: boolean; message?: string }
  effects:
    | {
        available: true
        assetChanges: { account: string; changes: { direction: string; amount: string }[] }[]
      }
    | { available: false }
}

async function preflight(to: Address, data: Hex, value = 0n): Promise<Answer> {
  const res = await postJson(app, PATH, { from: OWNER, to, data, value: toHex(value) })
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

function ids(answer: Answer): string[] {
  return answer.findings.map((f) => f.id).sort()
}

/** Accounts the simulated execution credits (assets in). */
function credited(answer: Answer): string[] {
  if (!answer.effects.available) return []
  return answer.effects.assetChanges
    .filter((a) => a.changes.some((c) => c.direction === 'in'))
    .map((a) => a.account.toLowerCase())
}

/**
 * `execTransaction` signed by the one owner who also sends it: Safe's pre-validated signature
 * (v = 1, r = the owner), accepted because `msg.sender` is that owner.
 */
function execTransaction(to: Address, data: Hex, operation: 0 | 1): Hex {
  const signature = concat([pad(OWNER), pad('0x00'), '0x01'])
  return encodeFunctionData({
    abi: safeAbi,
    functionName: 'execTransaction',
    args: [to, 0n, data, operation, 0n, 0n, 0n, zeroAddress, zeroAddress, signature],
  })
}

function safeCall(functionName: string, args: readonly unknown[]): Hex {
  return encodeFunctionData({ abi: safeAbi, functionName, args } as never)
}

/** MultiSend's packed batch: operation, to, value, data length, data per transaction. */
function multiSendBatch(calls: readonly { to: Address; data: Hex }[]): Hex {
  const packed = concat(
    calls.map((c) =>
      encodePacked(
        ['uint8', 'address', 'uint256', 'uint256', 'bytes'],
        [0, c.to, 0n, BigInt(size(c.data)), c.data],
      ),
    ),
  )
  return encodeFunctionData({ abi: multiSendAbi, functionName: 'multiSend', args: [packed] })
}

type Command = [code: number, input: Hex]

function routerExecute(commands: readonly Command[]): Hex {
  return encodeFunctionData({
    abi: routerAbi,
    functionName: 'execute',
    args: [
      concat(commands.map(([code]) => numberToHex(code, { size: 1 }))),
      commands.map(([, input]) => input),
      2n ** 40n,
    ],
  } as never)
}

const wrapEth = (amount: bigint): Command => [
  0x0b,
  encodeAbiParameters(parseAbiParameters('address, uint256'), [ADDRESS_THIS, amount]),
]
const v2SwapExactIn = (recipient: Address): Command => [
  0x08,
  encodeAbiParameters(parseAbiParameters('address, uint256, uint256, address[], bool'), [
    recipient,
    SWAP_IN,
    1n,
    [weth.address, token.address],
    false,
  ]),
]
const v3SwapExactIn = (recipient: Address): Command => [
  0x00,
  encodeAbiParameters(parseAbiParameters('address, uint256, uint256, bytes, bool'), [
    recipient,
    SWAP_IN,
    1n,
    encodePacked(['address', 'uint24', 'address'], [weth.address, 3000, token.address]),
    false,
  ]),
]
const sweep = (asset: Address, recipient: Address): Command => [
  0x04,
  encodeAbiParameters(parseAbiParameters('address, address, uint160'), [asset, recipient, 0n]),
]
const transfer = (asset: Address, recipient: Address, value: bigint): Command => [
  0x05,
  encodeAbiParameters(parseAbiParameters('address, address, uint256'), [asset, recipient, value]),
]
const payPortion = (asset: Address, recipient: Address, bips: bigint): Command => [
  0x06,
  encodeAbiParameters(parseAbiParameters('address, address, uint256'), [asset, recipient, bips]),
]

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  const { publicClient, walletClient } = clients(devnet.rpcUrl, owner)
  const mined = async (hash: Hex) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(receipt.status).toBe('success')
    return receipt
  }
  const deployPackaged = async (artifact: PackageArtifact, args: readonly unknown[] = []) => {
    const receipt = await mined(
      await walletClient.deployContract({
        abi: artifact.abi,
        bytecode: artifact.bytecode,
        args: args as unknown[],
      }),
    )
    if (!receipt.contractAddress) throw new Error('deployment produced no contract')
    return receipt.contractAddress
  }
  // A fixed gas limit, not the node's estimate: anvil's estimate is the exact minimum at the
  // pending block's timestamp, and a v3 pool's mint costs a little more when the next second has
  // begun by the time the transaction is mined (its oracle reads depend on block.timestamp), so
  // an estimated mint reverted out of gas on a slow machine.
  const send = async (to: Address, abi: Abi, functionName: string, args: unknown[], value = 0n) =>
    mined(
      await walletClient.sendTransaction({
        to,
        value,
        gas: 5_000_000n,
        data: encodeFunctionData({ abi, functionName, args } as never),
      }),
    )

  // Safe 1.4.1: singleton, proxy factory, MultiSend, a guard and the fallback handler.
  const singleton = safeArtifact('Safe.sol/Safe.json')
  safeAbi = singleton.abi
  const factory = safeArtifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json')
  const multiSendArtifact = safeArtifact('libraries/MultiSend.sol/MultiSend.json')
  multiSendAbi = multiSendArtifact.abi
  const singletonAddress = await deployPackaged(singleton)
  const factoryAddress = await deployPackaged(factory)
  multiSend = await deployPackaged(multiSendArtifact)
  guard = await deployPackaged(
    safeArtifact('examples/guards/ReentrancyTransactionGuard.sol/ReentrancyTransactionGuard.json'),
  )
  handler = await deployPackaged(
    safeArtifact('handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json'),
  )
  const setup = safeCall('setup', [
    [OWNER, COSIGNER],
    1n,
    zeroAddress,
    '0x',
    handler,
    zeroAddress,
    0n,
    zeroAddress,
  ])
  const { result } = await publicClient.simulateContract({
    account: owner,
    address: factoryAddress,
    abi: factory.abi,
    functionName: 'createProxyWithNonce',
    args: [singletonAddress, setup, 1n],
  })
  safe = result as Address
  await send(factoryAddress, factory.abi, 'createProxyWithNonce', [singletonAddress, setup, 1n])

  // Tokens for the Safe's benign transfer and the pool.
  token = await deploy(devnet.rpcUrl, 'TestERC20', ['Real Token', 'RTK'], owner)
  // WETH at Base's WETH predeploy address, as on Base: a WETH anywhere else is a look-alike
  // (token-impersonates-payment-token). The devnet's own WETH9 when it has one, else TestWETH's
  // code (constants only, no constructor state) placed there.
  weth = await canonicalWeth(devnet.rpcUrl)
  await send(token.address, token.abi, 'mint', [OWNER, parseEther('1000')])
  await send(token.address, token.abi, 'mint', [safe, parseEther('10')])

  // Uniswap v2: the real factory and a WETH/RTK pair with liquidity.
  const pair = packageArtifact('@uniswap/v2-core/build/UniswapV2Pair.json')
  const v2Factory = await deployPackaged(
    packageArtifact('@uniswap/v2-core/build/UniswapV2Factory.json'),
    [zeroAddress],
  )
  const v2FactoryAbi = packageArtifact('@uniswap/v2-core/build/UniswapV2Factory.json').abi
  await send(v2Factory, v2FactoryAbi, 'createPair', [weth.address, token.address])
  const pairAddress = (await publicClient.readContract({
    address: v2Factory,
    abi: v2FactoryAbi,
    functionName: 'getPair',
    args: [weth.address, token.address],
  })) as Address
  const [token0, token1] =
    weth.address.toLowerCase() < token.address.toLowerCase()
      ? [weth.address, token.address]
      : [token.address, weth.address]
  const pairInitCodeHash = keccak256(pair.bytecode)
  // The router finds the pair by CREATE2 from the factory and this hash: check they agree.
  expect(
    getContractAddress({
      opcode: 'CREATE2',
      from: v2Factory,
      salt: keccak256(encodePacked(['address', 'address'], [token0, token1])),
      bytecodeHash: pairInitCodeHash,
    }),
  ).toBe(pairAddress)
  await send(weth.address, weth.abi, 'deposit', [], parseEther('10'))
  await send(weth.address, weth.abi, 'transfer', [pairAddress, parseEther('10')])
  await send(token.address, token.abi, 'transfer', [pairAddress, parseEther('500')])
  await send(pairAddress, pair.abi, 'mint', [OWNER])

  // Uniswap v3: the real factory and a WETH/RTK 0.3% pool at price 1, full-range liquidity.
  const v3FactoryArtifact = packageArtifact(
    '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
  )
  const v3Pool = packageArtifact(
    '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
  )
  const v3Factory = await deployPackaged(v3FactoryArtifact)
  await send(v3Factory, v3FactoryArtifact.abi, 'createPool', [weth.address, token.address, 3000])
  const poolAddress = (await publicClient.readContract({
    address: v3Factory,
    abi: v3FactoryArtifact.abi,
    functionName: 'getPool',
    args: [weth.address, token.address, 3000],
  })) as Address
  const poolInitCodeHash = keccak256(v3Pool.bytecode)
  // The router finds the pool by CREATE2 from the factory and this hash: check they agree.
  expect(
    getContractAddress({
      opcode: 'CREATE2',
      from: v3Factory,
      salt: keccak256(
        encodeAbiParameters(parseAbiParameters('address, address, uint24'), [token0, token1, 3000]),
      ),
      bytecodeHash: poolInitCodeHash,
    }),
  ).toBe(poolAddress)
  await send(poolAddress, v3Pool.abi, 'initialize', [2n ** 96n])
  const liquidity = await deploy(devnet.rpcUrl, 'TestV3Liquidity', [], owner)
  await send(weth.address, weth.abi, 'deposit', [], parseEther('10'))
  await send(weth.address, weth.abi, 'approve', [liquidity.address, parseEther('10')])
  await send(token.address, token.abi, 'approve', [liquidity.address, parseEther('10')])
  await send(liquidity.address, liquidity.abi, 'mint', [
    poolAddress,
    -887220,
    887220,
    parseEther('1'),
  ])

  // Universal Router 2.1.0 with WETH and the v2 and v3 factories; no v4 or Permit2 here.
  const ur = packageArtifact(
    '@uniswap/universal-router/artifacts/contracts/UniversalRouter.sol/UniversalRouter.json',
  )
  routerAbi = ur.abi
  router = await deployPackaged(ur, [
    {
      permit2: zeroAddress,
      weth9: weth.address,
      v2Factory,
      v3Factory,
      pairInitCodeHash,
      poolInitCodeHash,
      v4PoolManager: zeroAddress,
      v3NFTPositionManager: zeroAddress,
      v4PositionManager: zeroAddress,
      spokePool: zeroAddress,
    },
  ])
}, 180_000)

afterAll(async () => {
  await devnet?.stop()
})

describe('the real Safe 1.4.1 (proxy from SafeProxyFactory, two owners, threshold 1)', () => {
  const changes = (): Record<string, Hex> => ({
    'safe-owner-change': safeCall('addOwnerWithThreshold', [STRANGER, 1n]),
    'safe-threshold-change': safeCall('changeThreshold', [2n]),
    'safe-module-change': safeCall('enableModule', [STRANGER]),
    'safe-guard-change': safeCall('setGuard', [guard]),
    'safe-fallback-handler-change': safeCall('setFallbackHandler', [STRANGER]),
  })

  it('each Safe change executed through execTransaction fires its rule, and only it', async () => {
    for (const [id, data] of Object.entries(changes())) {
      const answer = await preflight(safe, execTransaction(safe, data, 0))
      expect(answer.call, id).toMatchObject({ success: true })
      expect(ids(answer), id).toEqual([id])
      expect(answer.verdict, id).toBe('review')
      expect(answer.findings[0]?.path, id).toMatch(/^execTransaction\[0\]\./)
      expect(answer.findings[0]?.detail, id).toContain(safe)
    }
  })

  it('removeOwner executed through execTransaction fires safe-owner-change', async () => {
    // Owners list: SENTINEL -> OWNER -> COSIGNER; removing COSIGNER names OWNER as previous.
    const data = safeCall('removeOwner', [OWNER, COSIGNER, 1n])
    const answer = await preflight(safe, execTransaction(safe, data, 0))
    expect(answer.call).toMatchObject({ success: true })
    expect(ids(answer)).toEqual(['safe-owner-change'])
    expect(answer.findings[0]?.detail).toContain(`removes owner ${COSIGNER}`)
  })

  it('the same changes in one MultiSend batch the Safe delegatecalls are each found, with paths', async () => {
    const batch = multiSendBatch(Object.values(changes()).map((data) => ({ to: safe, data })))
    const answer = await preflight(safe, execTransaction(multiSend, batch, 1))
    expect(answer.call).toMatchObject({ success: true })
    // MultiSend 1.4.1 at a fresh address is known by its code hash (immutables zeroed): the
    // batch is judged item by item instead of the delegatecall being blocked.
    expect(ids(answer)).toEqual([
      'safe-fallback-handler-change',
      'safe-guard-change',
      'safe-module-change',
      'safe-multisend-batch',
      'safe-owner-change',
      'safe-threshold-change',
    ])
    const paths = Object.fromEntries(answer.findings.map((f) => [f.id, f.path]))
    expect(paths['safe-owner-change']).toBe('execTransaction[0].multiSend[0].addOwnerWithThreshold')
    expect(paths['safe-fallback-handler-change']).toBe(
      'execTransaction[0].multiSend[4].setFallbackHandler',
    )
  })

  it('benign twin: the Safe transfers a token to its owner, executed: sign, no Safe finding', async () => {
    const data = encodeFunctionData({
      abi: token.abi,
      functionName: 'transfer',
      args: [OWNER, parseEther('1')],
    })
    const answer = await preflight(safe, execTransaction(token.address, data, 0))
    expect(answer.call).toMatchObject({ success: true })
    expect(answer.findings).toEqual([])
    expect(answer.verdict).toBe('sign')
    expect(credited(answer)).toContain(OWNER.toLowerCase())
  })

  it('benign twin in a batch: MultiSend paying the owner has no Safe change finding', async () => {
    const data = encodeFunctionData({
      abi: token.abi,
      functionName: 'transfer',
      args: [OWNER, parseEther('1')],
    })
    const answer = await preflight(
      safe,
      execTransaction(multiSend, multiSendBatch([{ to: token.address, data }]), 1),
    )
    expect(answer.call).toMatchObject({ success: true })
    // The official MultiSend (known by its code hash, not its address here): info, and sign.
    expect(ids(answer)).toEqual(['safe-multisend-batch'])
    expect(answer.verdict).toBe('sign')
  })
})

describe('the real Universal Router 2.1.0 (WETH, Uniswap v2 and v3 WETH/RTK pools)', () => {
  /**
   * Each case pays a stranger; its twin pays the caller through `MSG_SENDER`. Where the sender
   * gets nothing back at all (the whole output goes to the stranger), the execution rule
   * `drain-shape` agrees with the calldata rule; `TRANSFER` pays the stranger the very ETH sent
   * (a declared recipient) and `PAY_PORTION` returns half, so there it stays quiet.
   */
  const cases = (): Record<
    string,
    { fires: Command[]; twin: Command[]; expected: string[]; twinCreditsSender: boolean }
  > => ({
    V2_SWAP_EXACT_IN: {
      fires: [wrapEth(SWAP_IN), v2SwapExactIn(STRANGER)],
      twin: [wrapEth(SWAP_IN), v2SwapExactIn(MSG_SENDER)],
      expected: ['drain-shape', 'output-to-third-party'],
      twinCreditsSender: true,
    },
    V3_SWAP_EXACT_IN: {
      fires: [wrapEth(SWAP_IN), v3SwapExactIn(STRANGER)],
      twin: [wrapEth(SWAP_IN), v3SwapExactIn(MSG_SENDER)],
      expected: ['drain-shape', 'output-to-third-party'],
      twinCreditsSender: true,
    },
    SWEEP: {
      fires: [wrapEth(SWAP_IN), sweep(weth.address, STRANGER)],
      twin: [wrapEth(SWAP_IN), sweep(weth.address, MSG_SENDER)],
      expected: ['drain-shape', 'output-to-third-party'],
      twinCreditsSender: true,
    },
    TRANSFER: {
      fires: [transfer(ETH, STRANGER, SWAP_IN)],
      twin: [transfer(ETH, MSG_SENDER, SWAP_IN)],
      expected: ['output-to-third-party'],
      // The ETH comes straight back: no net change for the sender.
      twinCreditsSender: false,
    },
    PAY_PORTION: {
      fires: [
        wrapEth(SWAP_IN),
        payPortion(weth.address, STRANGER, 5000n),
        sweep(weth.address, MSG_SENDER),
      ],
      twin: [
        wrapEth(SWAP_IN),
        payPortion(weth.address, MSG_SENDER, 5000n),
        sweep(weth.address, MSG_SENDER),
      ],
      // Half the output as a "fee" to a stranger: the fee rules size it (>= 50 %: critical).
      expected: ['fee-takes-bulk'],
      twinCreditsSender: true,
    },
  })

  for (const name of ['V2_SWAP_EXACT_IN', 'V3_SWAP_EXACT_IN', 'SWEEP', 'TRANSFER', 'PAY_PORTION']) {
    it(`${name} paying a stranger fires ${name === 'PAY_PORTION' ? 'fee-takes-bulk' : 'output-to-third-party'}; to MSG_SENDER it is silent (both execute)`, async () => {
      const c = cases()[name]
      if (!c) throw new Error(name)
      const fires = await preflight(router, routerExecute(c.fires), SWAP_IN)
      expect(fires.call).toMatchObject({ success: true })
      expect(ids(fires)).toEqual(c.expected)
      const main = name === 'PAY_PORTION' ? 'fee-takes-bulk' : 'output-to-third-party'
      expect(fires.verdict).toBe(name === 'PAY_PORTION' ? 'block' : 'review')
      const finding = fires.findings.find((f) => f.id === main)
      expect(finding?.path).toMatch(new RegExp(`^execute\\[\\d\\]\\.${name}$`))
      expect(finding?.detail).toContain(STRANGER)
      // The execution agrees: the stranger is credited.
      expect(credited(fires)).toContain(STRANGER.toLowerCase())

      const twin = await preflight(router, routerExecute(c.twin), SWAP_IN)
      expect(twin.call).toMatchObject({ success: true })
      expect(twin.findings).toEqual([])
      expect(twin.verdict).toBe('sign')
      expect(credited(twin)).not.toContain(STRANGER.toLowerCase())
      if (c.twinCreditsSender) expect(credited(twin)).toContain(OWNER.toLowerCase())
    })
  }

  it('ADDRESS_THIS keeps the output in the router for a later command: no recipient finding', async () => {
    const answer = await preflight(
      router,
      routerExecute([
        wrapEth(SWAP_IN),
        v2SwapExactIn(ADDRESS_THIS),
        sweep(token.address, MSG_SENDER),
      ]),
      SWAP_IN,
    )
    expect(answer.call).toMatchObject({ success: true })
    expect(answer.findings).toEqual([])
    expect(credited(answer)).toContain(OWNER.toLowerCase())
  })
})

/** WETH at 0x4200…0006: what the devnet has there, or TestWETH's runtime code placed there. */
async function canonicalWeth(rpcUrl: string): Promise<{ address: Address; abi: Abi }> {
  const address: Address = '0x4200000000000000000000000000000000000006'
  const artifact = loadArtifact('TestWETH')
  const rpc = async (method: string, params: unknown[]) => {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await res.json()) as { result: unknown }).result
  }
  if ((await rpc('eth_getCode', [address, 'latest'])) === '0x') {
    await rpc('anvil_setCode', [address, artifact.deployedBytecode])
  }
  return { address, abi: artifact.abi }
}
