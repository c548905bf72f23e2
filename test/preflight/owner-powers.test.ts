import { ROUTES } from '@pre-send-guard/client/types'
import { type Address, encodeFunctionData, getAddress, type Hex, parseAbi, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { readDispatcher } from '../../src/domain/evm/dispatcher-selectors.js'
import { clients, deploy, testAccount } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * Owner powers of the tokens the sender receives (issue 31), over HTTP on the devnet: our own
 * blacklisting, pausable+mintable (OpenZeppelin ERC20Pausable), fee-setting and plain tokens, one
 * behind an ERC-1967 proxy, received by a `drip()` of the sender's own or bought through the
 * devnet's Uniswap v2 Router02; the canonical devnet USDC bought the same way. The powers are in
 * `effects.receivedTokens`, unlisted tokens with powers get the info finding `token-owner-powers`,
 * the verdict stays `sign`, and the preflight takes no more RPC waves than it did.
 */

const PATH = '/payanagent/v1/base-transaction-preflight'
const TOKEN = parseAbi([
  'function drip()',
  'function approve(address, uint256) returns (bool)',
  'function transfer(address, uint256) returns (bool)',
])
const SWAP = parseAbi(['function swap() payable'])
const ROUTER = parseAbi([
  'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[])',
  'function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline) payable returns (uint256, uint256, uint256)',
])
const ROUTER02 = BASE_CONTRACTS.uniswapV2Router02
const WETH = BASE_CONTRACTS.weth9
const sender = testAccount(62)
const deployer = testAccount(63)

interface Answer {
  verdict: string
  findings: { id: string; severity: string; title: string; detail: string }[]
  effects: {
    receivedTokens?: {
      token: string
      listed: string[]
      sellable: boolean | null
      taxBps: { buy: number | null; sell: number | null; transfer: number | null }
      ownerPowers: string[] | null
    }[]
  }
}

/** Each received token's owner powers (the sell and tax facts are token-sellability's). */
const powersOf = (answer: Answer) =>
  answer.effects.receivedTokens?.map((t) => ({ token: t.token, ownerPowers: t.ownerPowers }))

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
let counting: Awaited<ReturnType<typeof startCountingRpc>>
let counted: ReturnType<typeof preflightApp>
const tokens: Record<string, Address> = {}
let ethForToken: Address

const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 1800)

async function send(to: Address, data: Hex, value = 0n) {
  const { walletClient, publicClient } = clients(devnet.rpcUrl, deployer)
  const hash = await walletClient.sendTransaction({ to, data, value, gas: 6_000_000n })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error(`setup transaction to ${to} reverted`)
}

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  counting = await startCountingRpc(devnet.rpcUrl, { holdMs: 20 })
  counted = preflightApp(counting.url)
  for (const account of [sender.address, deployer.address]) {
    await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [account, `0x${parseEther('1000').toString(16)}`],
      }),
    })
  }
  const made: [string, string, string][] = [
    ['plain', 'PlainDripToken', 'PLN'],
    ['blacklist', 'BlacklistToken', 'BLK'],
    ['pausable', 'PausableMintToken', 'PAU'],
    ['fees', 'FeeSetterToken', 'FEE'],
  ]
  for (const [key, artifact, symbol] of made) {
    tokens[key] = (
      await deploy(devnet.rpcUrl, artifact, [`${key} token`, symbol], deployer)
    ).address
  }
  // OpenZeppelin's ERC-20 with an open mint(address,uint256) (TestERC20).
  tokens.mintOnly = (
    await deploy(devnet.rpcUrl, 'TestERC20', ['mint token', 'MNT'], deployer)
  ).address
  // A plain token behind OpenZeppelin's ERC1967Proxy (storage in the proxy, code upgradeable);
  // OpenZeppelin 5 wants an initialising call: a drip for the deployer.
  tokens.proxied = (
    await deploy(
      devnet.rpcUrl,
      'ERC1967Proxy',
      [tokens.plain, encodeFunctionData({ abi: TOKEN, functionName: 'drip' })],
      deployer,
    )
  ).address
  // A WETH pool for the blacklisting token on the devnet's Uniswap v2, seeded by the deployer.
  const blk = tokens.blacklist as Address
  await send(blk, encodeFunctionData({ abi: TOKEN, functionName: 'drip' }))
  await send(
    blk,
    encodeFunctionData({
      abi: TOKEN,
      functionName: 'approve',
      args: [ROUTER02, parseEther('1000')],
    }),
  )
  await send(
    ROUTER02,
    encodeFunctionData({
      abi: ROUTER,
      functionName: 'addLiquidityETH',
      args: [blk, parseEther('1000'), 0n, 0n, deployer.address, deadline()],
    }),
    parseEther('10'),
  )
  // A contract that pays the fee token for ETH: the calldata (`swap()`) names no token.
  ethForToken = (await deploy(devnet.rpcUrl, 'EthForTokenSwap', [tokens.fees, 1000n], deployer))
    .address
  await send(tokens.fees as Address, encodeFunctionData({ abi: TOKEN, functionName: 'drip' }))
  await send(
    tokens.fees as Address,
    encodeFunctionData({
      abi: TOKEN,
      functionName: 'transfer',
      args: [ethForToken, parseEther('1000')],
    }),
  )
  // The counting app's first preflight learns the head (one more wave): not a case.
  await preflight({ from: sender.address, to: sender.address, data: '0x' }, counted)
}, 120_000)

afterAll(async () => {
  await counting?.close()
  await devnet?.stop()
})

async function preflight(
  body: { from: Address; to: Address; data: Hex; value?: bigint },
  through = app,
): Promise<Answer> {
  const res = await postJson(through, PATH, {
    from: body.from,
    to: body.to,
    data: body.data,
    value: `0x${(body.value ?? 0n).toString(16)}`,
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

const drip = (token: Address) => ({
  from: sender.address,
  to: token,
  data: encodeFunctionData({ abi: TOKEN, functionName: 'drip' }),
})

const buy = (token: Address) => ({
  from: sender.address,
  to: ROUTER02,
  data: encodeFunctionData({
    abi: ROUTER,
    functionName: 'swapExactETHForTokens',
    args: [0n, [WETH, token], sender.address, deadline()],
  }),
  value: parseEther('0.1'),
})

/** The answer through the wave-counting proxy, with its wave count (and the same answer). */
async function countedPreflight(body: Parameters<typeof preflight>[0]) {
  const direct = await preflight(body)
  counting.reset()
  const answer = await preflight(body, counted)
  expect(answer).toEqual(direct)
  return { answer, waves: counting.waves, methods: [...counting.methods] }
}

const powersFinding = (a: Answer) => a.findings.filter((f) => f.id === 'token-owner-powers')

describe('a token the sender receives (its own drip)', () => {
  it.each([
    ['blacklist', ['blacklist'], 'blacklist holders (blacklist(address), unBlacklist(address))'],
    [
      'pausable',
      ['pause', 'mint'],
      'pause transfers (unpause(), pause()) and mint more (mint(address,uint256))',
    ],
    ['fees', ['set-fees'], 'change its fees or taxes (setSellTax(uint256), setBuyTax(uint256))'],
    ['proxied', ['upgrade'], 'replace its code (upgradeable) (ERC-1967 implementation slot)'],
  ])(
    '%s: powers %j in effects, an info finding naming them, still sign',
    async (key, powers, text) => {
      const token = getAddress(tokens[key] as Address)
      const { answer, waves } = await countedPreflight(drip(token))
      // The token is the target, so its code is read in the first wave; the calldata (`drip()`)
      // names no token, so its metadata is the second wave it always was: no code read there.
      // (The proxy may count the two as one: `latest` rides beside the first wave and the second
      // does not wait for it, so the count can only come out low, never high.)
      expect(waves).toBeLessThanOrEqual(2)
      expect(counting.calls.filter((c) => c.method === 'eth_getCode' && c.wave > 1)).toEqual([])
      expect(answer.verdict).toBe('sign')
      // Received by a drip, not bought from a pool: no list, nothing sold, no tax measured.
      expect(answer.effects.receivedTokens).toEqual([
        {
          token,
          listed: [],
          sellable: null,
          taxBps: { buy: null, sell: null, transfer: null },
          ownerPowers: powers,
        },
      ])
      const found = powersFinding(answer)
      expect(found).toHaveLength(1)
      expect(found[0]?.severity).toBe('info')
      expect(found[0]?.detail).toContain(`The sender receives token ${token}`)
      // The selectors' order is the dispatcher's: compare the powers' phrases as sets of functions.
      for (const fn of text.match(/[a-zA-Z]+\([a-z0-9,]*\)|ERC-1967 implementation slot/g) ?? []) {
        expect(found[0]?.detail).toContain(fn)
      }
    },
  )

  it('a plain token: no power, no finding', async () => {
    const token = getAddress(tokens.plain as Address)
    const answer = await preflight(drip(token))
    expect(answer.verdict).toBe('sign')
    expect(powersOf(answer)).toEqual([{ token, ownerPowers: [] }])
    expect(powersFinding(answer)).toEqual([])
  })

  it('a token that can only mint (as every bridged token can): reported, no finding', async () => {
    const token = getAddress(tokens.mintOnly as Address)
    const answer = await preflight({
      from: sender.address,
      to: token,
      data: encodeFunctionData({
        abi: parseAbi(['function mint(address, uint256)']),
        functionName: 'mint',
        args: [sender.address, parseEther('1')],
      }),
    })
    expect(answer.verdict).toBe('sign')
    expect(powersOf(answer)).toEqual([{ token, ownerPowers: ['mint'] }])
    expect(powersFinding(answer)).toEqual([])
  })

  it('no ERC-20 received: no receivedTokens field at all (answers as before)', async () => {
    const answer = await preflight({
      from: sender.address,
      to: tokens.plain as Address,
      data: encodeFunctionData({ abi: TOKEN, functionName: 'approve', args: [ROUTER02, 1n] }),
    })
    expect(Object.keys(answer.effects)).not.toContain('receivedTokens')
    expect(powersFinding(answer)).toEqual([])
  })
})

describe('a token only execution reveals', () => {
  it('its code rides in the metadata wave it takes anyway: powers, finding, no wave added', async () => {
    const token = getAddress(tokens.fees as Address)
    const { answer, waves, methods } = await countedPreflight({
      from: sender.address,
      to: ethForToken,
      data: encodeFunctionData({ abi: SWAP, functionName: 'swap' }),
      value: parseEther('0.01'),
    })
    expect(answer.verdict).toBe('sign')
    expect(powersOf(answer)).toEqual([{ token, ownerPowers: ['set-fees'] }])
    expect(powersFinding(answer)).toHaveLength(1)
    // The first wave reads the code of the target and the sender; the token's is the third read,
    // made beside its metadata (a second eth_simulateV1), and no third wave follows.
    expect(waves).toBeLessThanOrEqual(2)
    expect(methods.filter((m) => m === 'eth_getCode')).toHaveLength(3)
    expect(methods.filter((m) => m === 'eth_simulateV1')).toHaveLength(2)
  })
})

describe('a token bought through Uniswap v2 Router02', () => {
  it('an unlisted blacklisting token: its code rides in the first wave, powers and finding', async () => {
    const token = getAddress(tokens.blacklist as Address)
    const { answer, waves, methods } = await countedPreflight(buy(token))
    expect(answer.verdict).toBe('sign')
    expect(powersOf(answer)).toEqual([{ token, ownerPowers: ['blacklist'] }])
    expect(powersFinding(answer)[0]?.detail).toContain('blacklist(address)')
    // The token's metadata is a second wave (execution names it, the calldata's path does not
    // ride metadata); its code was read in the first, so no wave was added.
    expect(waves).toBeLessThanOrEqual(2)
    expect(counting.calls.filter((c) => c.method === 'eth_getCode' && c.wave === 2)).toEqual([])
    expect(methods.filter((m) => m === 'eth_simulateV1').length).toBeGreaterThan(0)
  })

  it('the canonical devnet USDC: powers reported, no finding (a listed token), one wave', async () => {
    const { answer, waves } = await countedPreflight(buy(USDC_ADDRESS))
    expect(waves).toBe(1)
    expect(answer.verdict).toBe('sign')
    expect(powersOf(answer)).toEqual([{ token: getAddress(USDC_ADDRESS), ownerPowers: ['mint'] }])
    expect(powersFinding(answer)).toEqual([])
  })
})

describe('the dispatcher reading agrees with the EIP-7702 delegate probe', () => {
  it.each(['plain', 'blacklist', 'pausable', 'fees', 'mintOnly'])(
    "%s: the probe's on-chain count of selectors (DelegateProbe.sol) is readDispatcher's",
    async (key) => {
      const token = tokens[key] as Address
      const { publicClient } = clients(devnet.rpcUrl)
      const code = (await publicClient.getCode({ address: token })) as Hex
      const signer = privateKeyToAccount(generatePrivateKey())
      const a = await signer.signAuthorization({ address: token, chainId: 8453, nonce: 0 })
      const res = await postJson(app, ROUTES.authorizationPreflight, {
        authority: signer.address,
        authorization: {
          address: a.address,
          chainId: '0x2105',
          nonce: '0x0',
          yParity: a.yParity === 1 ? '0x1' : '0x0',
          r: a.r,
          s: a.s,
        },
      })
      expect(res.status).toBe(200)
      const { probe } = (await res.json()) as { probe: { ran: boolean; selectorsTried?: number } }
      expect(probe.ran).toBe(true)
      expect(probe.selectorsTried).toBe(readDispatcher(code).selectors.length)
      expect(probe.selectorsTried).toBeGreaterThan(5)
    },
  )
})
