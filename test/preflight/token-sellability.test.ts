import {
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  getAddress,
  type Hex,
  parseAbi,
  parseAbiParameters,
  parseEther,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BASE_CONTRACTS } from '../../src/adapters/devnet/base-world.js'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { clients, deploy, testAccount } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * Sellability and taxes of the tokens a swap buys (issue 31), on the devnet's real Uniswap v2
 * factory and pairs, v3 pool, Router02 and Universal Router 2.1.0: our own honeypot, 95 %-tax,
 * 10 %-tax and plain tokens in v2 pairs with WETH made here, and the canonical devnet USDC and
 * WETH9 as the genuine ones. The probe that sells the tokens back runs in a later block of the
 * preflight's one eth_simulateV1 request.
 */

const PATH = '/payanagent/v1/base-transaction-preflight'
const BUNDLE = '/payanagent/v1/base-bundle-preflight'
const WETH = getAddress(BASE_CONTRACTS.weth9)
const ROUTER02 = getAddress(BASE_CONTRACTS.uniswapV2Router02)
const UNIVERSAL_ROUTER = getAddress(BASE_CONTRACTS.universalRouter)
const V2_FACTORY = getAddress(BASE_CONTRACTS.uniswapV2Factory)
/** Universal Router placeholders: the router's caller, the router itself. */
const MSG_SENDER: Address = '0x0000000000000000000000000000000000000001'
const ADDRESS_THIS: Address = '0x0000000000000000000000000000000000000002'

const ABI = parseAbi([
  'function createPair(address a, address b) returns (address)',
  'function getPair(address a, address b) view returns (address)',
  'function mint(address to) returns (uint256)',
  'function mint(address to, uint256 amount)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function deposit() payable',
  'function setPool(address pool, bool registered)',
  'function setPair(address pair, bool registered)',
  'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[])',
  'function swapExactTokensForETHSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function execute(bytes commands, bytes[] inputs, uint256 deadline) payable',
])

const deployer = testAccount(50)
const sender = testAccount(51)

interface Facts {
  token: string
  listed: string[]
  sellable: boolean | null
  taxBps: { buy: number | null; sell: number | null; transfer: number | null }
}
interface Answer {
  verdict: string
  findings: { id: string; severity: string; detail: string }[]
  effects: { available: boolean; receivedTokens?: Facts[] }
}

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
const tokens: Record<'plain' | 'tax95' | 'tax10' | 'honeypot' | 'sellTax95', Address> = {
  plain: '0x',
  sellTax95: '0x',
  tax95: '0x',
  tax10: '0x',
  honeypot: '0x',
}

const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 3600)

async function rpc(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(devnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return ((await res.json()) as { result: unknown }).result
}

async function send(to: Address, data: Hex, value = 0n, from = deployer): Promise<void> {
  const { walletClient, publicClient } = clients(devnet.rpcUrl, from)
  const hash = await walletClient.sendTransaction({ to, data, value, gas: 5_000_000n })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error(`setup call to ${to} reverted`)
}

/** The v2 pair of `token` with WETH. */
async function pairOf(token: Address): Promise<Address> {
  const { publicClient } = clients(devnet.rpcUrl, deployer)
  return publicClient.readContract({
    address: V2_FACTORY,
    abi: ABI,
    functionName: 'getPair',
    args: [token, WETH],
  })
}

/** A v2 pair of `token` with WETH: 1,000,000 tokens against 10 WETH, registered as its pool. */
async function seedPair(token: Address, registers: boolean): Promise<void> {
  await send(
    V2_FACTORY,
    encodeFunctionData({ abi: ABI, functionName: 'createPair', args: [token, WETH] }),
  )
  const { publicClient } = clients(devnet.rpcUrl, deployer)
  const pair = await publicClient.readContract({
    address: V2_FACTORY,
    abi: ABI,
    functionName: 'getPair',
    args: [token, WETH],
  })
  await send(
    token,
    encodeFunctionData({ abi: ABI, functionName: 'transfer', args: [pair, parseEther('1000000')] }),
  )
  await send(WETH, encodeFunctionData({ abi: ABI, functionName: 'deposit' }), parseEther('10'))
  await send(
    WETH,
    encodeFunctionData({ abi: ABI, functionName: 'transfer', args: [pair, parseEther('10')] }),
  )
  await send(pair, encodeFunctionData({ abi: ABI, functionName: 'mint', args: [deployer.address] }))
  if (registers) {
    await send(token, encodeFunctionData({ abi: ABI, functionName: 'setPool', args: [pair, true] }))
  }
}

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  for (const a of [deployer, sender]) {
    await rpc('anvil_setBalance', [a.address, '0x56bc75e2d63100000'])
  }
  tokens.plain = (
    await deploy(devnet.rpcUrl, 'TestERC20', ['Plain Token', 'PLAIN'], deployer)
  ).address
  await send(
    tokens.plain,
    encodeFunctionData({
      abi: ABI,
      functionName: 'mint',
      args: [deployer.address, parseEther('1000000')],
    }),
  )
  tokens.tax95 = (
    await deploy(devnet.rpcUrl, 'TaxToken', ['Ninety Five', 'NF', 9500n, 9500n, 9500n], deployer)
  ).address
  tokens.tax10 = (
    await deploy(devnet.rpcUrl, 'TaxToken', ['Tithe', 'TITHE', 1000n, 1000n, 1000n], deployer)
  ).address
  tokens.honeypot = (
    await deploy(devnet.rpcUrl, 'HoneypotToken', ['Honey', 'HONEY'], deployer)
  ).address
  await seedPair(tokens.plain, false)
  await seedPair(tokens.tax95, true)
  await seedPair(tokens.tax10, true)
  await seedPair(tokens.honeypot, true)
  // Taxed only on sells (a move into its pair), the tax kept by the token contract itself, which
  // sells what it holds back into the pair on the next sell once it holds 1,000.
  tokens.sellTax95 = (
    await deploy(
      devnet.rpcUrl,
      'SellTaxToken',
      ['Sell Tax', 'SELLTAX', 9500n, ROUTER02, WETH, parseEther('1000')],
      deployer,
    )
  ).address
  await seedPair(tokens.sellTax95, false)
  await send(
    tokens.sellTax95,
    encodeFunctionData({
      abi: ABI,
      functionName: 'setPair',
      args: [await pairOf(tokens.sellTax95), true],
    }),
  )
  // An earlier seller paid the tax: the contract holds 95,000 to swap back on the next sell.
  const seller = testAccount(52)
  await rpc('anvil_setBalance', [seller.address, '0x56bc75e2d63100000'])
  const sold = parseEther('100000')
  await send(
    tokens.sellTax95,
    encodeFunctionData({ abi: ABI, functionName: 'transfer', args: [seller.address, sold] }),
  )
  await send(
    tokens.sellTax95,
    encodeFunctionData({ abi: ABI, functionName: 'approve', args: [ROUTER02, sold] }),
    0n,
    seller,
  )
  await send(
    ROUTER02,
    encodeFunctionData({
      abi: ABI,
      functionName: 'swapExactTokensForETHSupportingFeeOnTransferTokens',
      args: [sold, 0n, [tokens.sellTax95, WETH], seller.address, deadline()],
    }),
    0n,
    seller,
  )
  // The sender already holds 1,000 of the 95 %-tax token and 500 of the sell-taxed one (from
  // their owner: untaxed).
  await send(
    tokens.tax95,
    encodeFunctionData({
      abi: ABI,
      functionName: 'transfer',
      args: [sender.address, parseEther('1000')],
    }),
  )
  await send(
    tokens.sellTax95,
    encodeFunctionData({
      abi: ABI,
      functionName: 'transfer',
      args: [sender.address, parseEther('500')],
    }),
  )
}, 120_000)

afterAll(async () => {
  await devnet?.stop()
})

/** Router02 `swapExactETHForTokens`: 0.01 ETH for `token` through its WETH pair. */
function router02Buy(token: Address) {
  return {
    from: sender.address,
    to: ROUTER02,
    value: '0x2386f26fc10000',
    data: encodeFunctionData({
      abi: ABI,
      functionName: 'swapExactETHForTokens',
      args: [0n, [WETH, token], sender.address, deadline()],
    }),
  }
}

/** Universal Router: WRAP_ETH then a v2 (or v3, with `fee`) exact-in swap of 0.01 WETH for `token`. */
function universalRouterBuy(token: Address, fee?: number) {
  const amount = parseEther('0.01')
  const wrap = encodeAbiParameters(parseAbiParameters('address, uint256'), [ADDRESS_THIS, amount])
  const swap =
    fee === undefined
      ? encodeAbiParameters(parseAbiParameters('address, uint256, uint256, address[], bool'), [
          MSG_SENDER,
          amount,
          0n,
          [WETH, token],
          false,
        ])
      : encodeAbiParameters(parseAbiParameters('address, uint256, uint256, bytes, bool'), [
          MSG_SENDER,
          amount,
          0n,
          encodePacked(['address', 'uint24', 'address'], [WETH, fee, token]),
          false,
        ])
  return {
    from: sender.address,
    to: UNIVERSAL_ROUTER,
    value: '0x2386f26fc10000',
    data: encodeFunctionData({
      abi: ABI,
      functionName: 'execute',
      args: [fee === undefined ? '0x0b08' : '0x0b00', [wrap, swap], deadline()],
    }),
  }
}

async function preflight(body: unknown, on = app): Promise<Answer> {
  const res = await postJson(on, PATH, body)
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

const factsOf = (answer: Answer, token: Address) =>
  answer.effects.receivedTokens?.find((t) => t.token === getAddress(token))
const raised = (answer: Answer) =>
  answer.findings.filter((f) => f.severity !== 'info').map((f) => [f.id, f.severity])

describe('tokens a swap buys', () => {
  it.each([
    ['Router02', () => router02Buy(tokens.plain)],
    ['the Universal Router', () => universalRouterBuy(tokens.plain)],
  ])('signs a plain untaxed token bought through %s', async (_, body) => {
    const answer = await preflight(body())
    expect(raised(answer)).toEqual([])
    expect(answer.verdict).toBe('sign')
    expect(factsOf(answer, tokens.plain)).toEqual({
      token: getAddress(tokens.plain),
      listed: [],
      // TestERC20 has an open mint(): reported, no finding (a mint alone raises none).
      ownerPowers: ['mint'],
      sellable: true,
      taxBps: { buy: 0, sell: 0, transfer: 0 },
    })
  })

  it('does not count an interface fee the calldata pays as the token’s buy tax', async () => {
    const amount = parseEther('0.01')
    const collector: Address = '0x00000000000000000000000000000000000fee01'
    const inputs = [
      encodeAbiParameters(parseAbiParameters('address, uint256'), [ADDRESS_THIS, amount]),
      encodeAbiParameters(parseAbiParameters('address, uint256, uint256, address[], bool'), [
        ADDRESS_THIS,
        amount,
        0n,
        [WETH, tokens.plain],
        false,
      ]),
      // PAY_PORTION: 0.25 % of the output to a fee collector, then SWEEP the rest to the sender.
      encodeAbiParameters(parseAbiParameters('address, address, uint256'), [
        tokens.plain,
        collector,
        25n,
      ]),
      encodeAbiParameters(parseAbiParameters('address, address, uint256'), [
        tokens.plain,
        MSG_SENDER,
        0n,
      ]),
    ]
    const answer = await preflight({
      from: sender.address,
      to: UNIVERSAL_ROUTER,
      value: '0x2386f26fc10000',
      data: encodeFunctionData({
        abi: ABI,
        functionName: 'execute',
        args: ['0x0b080604', inputs, deadline()],
      }),
    })
    expect(raised(answer)).toEqual([])
    expect(factsOf(answer, tokens.plain)?.taxBps).toEqual({ buy: 0, sell: 0, transfer: 0 })
  })

  it.each([
    ['Router02 (v2 pair)', () => router02Buy(USDC_ADDRESS)],
    ['the Universal Router (v3 pool)', () => universalRouterBuy(USDC_ADDRESS, 500)],
  ])('signs genuine USDC bought through %s: listed, sellable, untaxed', async (_, body) => {
    const answer = await preflight(body())
    expect(raised(answer)).toEqual([])
    expect(answer.verdict).toBe('sign')
    const usdc = factsOf(answer, USDC_ADDRESS)
    expect(usdc?.listed.length).toBeGreaterThan(0)
    expect(usdc?.sellable).toBe(true)
    expect(usdc?.taxBps).toEqual({ buy: 0, sell: 0, transfer: 0 })
  })

  it.each([
    ['Router02', () => router02Buy(tokens.honeypot)],
    ['the Universal Router', () => universalRouterBuy(tokens.honeypot)],
  ])('blocks a honeypot bought through %s: it moves but does not sell', async (_, body) => {
    const answer = await preflight(body())
    expect(answer.verdict).toBe('block')
    expect(raised(answer)).toEqual([['token-honeypot', 'critical']])
    const finding = answer.findings.find((f) => f.id === 'token-honeypot')
    expect(finding?.detail).toContain(`HONEY (${getAddress(tokens.honeypot)})`)
    expect(finding?.detail).toContain('reverts')
    expect(factsOf(answer, tokens.honeypot)).toMatchObject({
      sellable: false,
      taxBps: { buy: 0, sell: null, transfer: 0 },
    })
  })

  it.each([
    ['Router02', () => router02Buy(tokens.tax95)],
    ['the Universal Router', () => universalRouterBuy(tokens.tax95)],
  ])('blocks a 95 %%-tax token bought through %s, naming the tax', async (_, body) => {
    const answer = await preflight(body())
    expect(answer.verdict).toBe('block')
    expect(raised(answer)).toEqual([['token-tax-critical', 'critical']])
    const detail = answer.findings.find((f) => f.id === 'token-tax-critical')?.detail
    expect(detail).toContain(`NF (${getAddress(tokens.tax95)})`)
    expect(detail).toContain('a sell tax of 95 %')
    expect(detail).toContain('a transfer tax of 95 %')
    expect(factsOf(answer, tokens.tax95)).toMatchObject({
      sellable: true,
      taxBps: { sell: 9500, transfer: 9500 },
    })
  })

  it.each([
    ['Router02', () => router02Buy(tokens.sellTax95)],
    ['the Universal Router', () => universalRouterBuy(tokens.sellTax95)],
  ])(
    'blocks a token bought through %s whose only tax is 95 %% on sells, kept by the token contract',
    async (_, body) => {
      const answer = await preflight(body())
      expect(factsOf(answer, tokens.sellTax95)).toMatchObject({
        sellable: true,
        taxBps: { buy: 0, sell: 9500, transfer: 0 },
      })
      expect(answer.verdict).toBe('block')
      expect(raised(answer)).toEqual([['token-tax-critical', 'critical']])
      const detail = answer.findings.find((f) => f.id === 'token-tax-critical')?.detail
      expect(detail).toContain(`SELLTAX (${getAddress(tokens.sellTax95)})`)
      expect(detail).toContain('a sell tax of 95 %')
    },
  )

  it('asks for review of a 10 %-tax token, naming the token and the tax', async () => {
    const answer = await preflight(router02Buy(tokens.tax10))
    expect(answer.verdict).toBe('review')
    expect(raised(answer)).toEqual([['token-tax', 'warning']])
    const detail = answer.findings.find((f) => f.id === 'token-tax')?.detail
    expect(detail).toContain(`TITHE (${getAddress(tokens.tax10)})`)
    expect(detail).toContain('a buy tax of 10 %')
    expect(detail).toContain('a sell tax of 10 %')
    expect(factsOf(answer, tokens.tax10)).toEqual({
      token: getAddress(tokens.tax10),
      listed: [],
      // setPool is no power the list knows: none reported.
      ownerPowers: [],
      sellable: true,
      taxBps: { buy: 1000, sell: 1000, transfer: 1000 },
    })
  })

  it('asks for review of approving and selling a held 95 %-tax token (bundle)', async () => {
    const amount = parseEther('1000')
    const res = await postJson(app, BUNDLE, {
      transactions: [
        {
          from: sender.address,
          to: tokens.tax95,
          data: encodeFunctionData({ abi: ABI, functionName: 'approve', args: [ROUTER02, amount] }),
        },
        {
          from: sender.address,
          to: ROUTER02,
          data: encodeFunctionData({
            abi: ABI,
            functionName: 'swapExactTokensForETHSupportingFeeOnTransferTokens',
            args: [amount, 0n, [tokens.tax95, WETH], sender.address, deadline()],
          }),
        },
      ],
    })
    expect(res.status).toBe(200)
    const bundle = (await res.json()) as { verdict: string; transactions: Answer[] }
    expect(['review', 'block']).toContain(bundle.verdict)
    const sell = bundle.transactions[1] as Answer
    const loss = sell.findings.find((f) => f.id === 'token-sell-loss')
    expect(loss?.severity).toBe('warning')
    expect(loss?.detail).toContain(`NF (${getAddress(tokens.tax95)})`)
    expect(loss?.detail).toContain('95 %')
  })

  it('warns of the sell loss when the sender sells a sell-taxed token whose contract swaps back its kept tax in the same transfer', async () => {
    const amount = parseEther('500')
    const res = await postJson(app, BUNDLE, {
      transactions: [
        {
          from: sender.address,
          to: tokens.sellTax95,
          data: encodeFunctionData({ abi: ABI, functionName: 'approve', args: [ROUTER02, amount] }),
        },
        {
          from: sender.address,
          to: ROUTER02,
          data: encodeFunctionData({
            abi: ABI,
            functionName: 'swapExactTokensForETHSupportingFeeOnTransferTokens',
            args: [amount, 0n, [tokens.sellTax95, WETH], sender.address, deadline()],
          }),
        },
      ],
    })
    expect(res.status).toBe(200)
    const bundle = (await res.json()) as { transactions: Answer[] }
    const loss = bundle.transactions[1]?.findings.find((f) => f.id === 'token-sell-loss')
    expect(loss?.detail).toContain(`SELLTAX (${getAddress(tokens.sellTax95)})`)
    expect(loss?.detail).toContain('95 %')
  })

  it('takes one RPC wave per swap preflight, the sell probe included', async () => {
    const proxy = await startCountingRpc(devnet.rpcUrl)
    try {
      const counted = preflightApp(proxy.url)
      // A fresh reader knows no head: its first preflight reads `latest` first.
      await preflight(router02Buy(tokens.tax10), counted)
      for (const body of [router02Buy(tokens.tax10), universalRouterBuy(USDC_ADDRESS, 500)]) {
        proxy.reset()
        const answer = await preflight(body, counted)
        expect(answer.effects.receivedTokens?.[0]?.sellable).toBe(true)
        expect(proxy.waves).toBe(1)
        expect(proxy.methods.filter((m) => m === 'eth_simulateV1')).toHaveLength(1)
      }
    } finally {
      await proxy.close()
    }
  })

  it('leaves an answer without a received ERC-20 without receivedTokens', async () => {
    const answer = await preflight({
      from: sender.address,
      to: deployer.address,
      data: '0x',
      value: '0x1',
    })
    expect(answer.effects.available).toBe(true)
    expect(answer.effects).not.toHaveProperty('receivedTokens')
  })
})
