import { type Address, getAddress, maxUint256, numberToHex, parseEther, parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { mintDevnetUsdc } from '../../src/adapters/devnet/prepare.js'
import {
  ABI,
  AERODROME,
  call,
  deadline,
  read,
  route,
  seedPools,
  send,
  USDC,
  WETH,
} from '../corpus/protocols/support/aerodrome-deploy.js'
import { deploy, testAccount } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * The sell probe through Aerodrome pools (issue 38 item 4), on our Aerodrome stand-ins
 * (contracts/test/Aerodrome.sol at the Base addresses): tokens bought through the Router are
 * sold back through the pool their route came from, a volatile pool found by the PoolFactory's
 * `getPool(a, b, false)` or a stable one by `getPool(a, b, true)`, each token here having no
 * other pool. Our honeypot and 10 %-tax tokens (contracts/test/TaxTokens.sol) register their
 * Aerodrome pools as theirs; a plain TestERC20 is the genuine case.
 */

const PATH = '/payanagent/v1/base-transaction-preflight'
const deployer = testAccount(60)
const sender = testAccount(61)

interface Answer {
  verdict: string
  findings: { id: string; severity: string; detail: string }[]
  effects: {
    receivedTokens?: {
      token: string
      sellable: boolean | null
      taxBps: { buy: number | null; sell: number | null; transfer: number | null }
    }[]
  }
}

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
const tokens = { tithe: '0x', stableTithe: '0x', honey: '0x', stablePlain: '0x' } as Record<
  'tithe' | 'stableTithe' | 'honey' | 'stablePlain',
  Address
>

/** A pool of `token` (seeded by its owner, untaxed) against `other`, registered by the token. */
async function pool(
  token: Address,
  other: Address,
  stable: boolean,
  amounts: [bigint, bigint],
  registers: boolean,
): Promise<void> {
  const args = [token, other, stable, ...amounts, 0n, 0n, deployer.address, deadline()]
  await send(devnet.rpcUrl, deployer, AERODROME.router, call(ABI.router, 'addLiquidity', args))
  const created = await read<Address>(
    devnet.rpcUrl,
    AERODROME.poolFactory,
    ABI.factory,
    'getPool',
    [token, other, stable],
  )
  if (registers) {
    const setPool = [
      {
        type: 'function',
        name: 'setPool',
        stateMutability: 'nonpayable',
        inputs: [
          { name: 'pool', type: 'address' },
          { name: 'registered', type: 'bool' },
        ],
        outputs: [],
      },
    ] as const
    await send(devnet.rpcUrl, deployer, token, call(setPool, 'setPool', [created, true]))
  }
}

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  for (const a of [deployer, sender]) {
    await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [a.address, numberToHex(parseEther('1000'))],
      }),
    })
  }
  await seedPools(devnet.rpcUrl, deployer)
  const tax = (name: string, symbol: string) =>
    deploy(devnet.rpcUrl, 'TaxToken', [name, symbol, 1000n, 1000n, 1000n], deployer)
  tokens.tithe = (await tax('Tithe', 'TITHE')).address
  tokens.stableTithe = (await tax('Stable Tithe', 'STITHE')).address
  tokens.honey = (
    await deploy(devnet.rpcUrl, 'HoneypotToken', ['Honey', 'HONEY'], deployer)
  ).address
  tokens.stablePlain = (
    await deploy(devnet.rpcUrl, 'TestERC20', ['Plain Dollar', 'PUSD'], deployer)
  ).address
  await send(
    devnet.rpcUrl,
    deployer,
    tokens.stablePlain,
    call(ABI.erc20, 'mint', [deployer.address, parseEther('100000')]),
  )
  for (const token of Object.values(tokens)) {
    await send(
      devnet.rpcUrl,
      deployer,
      token,
      call(ABI.erc20, 'approve', [AERODROME.router, maxUint256]),
    )
  }
  // The deployer's WETH and USDC for these pools (seedPools spent most of its own).
  await send(devnet.rpcUrl, deployer, WETH, call(ABI.weth, 'deposit'), parseEther('20'))
  await mintDevnetUsdc(devnet.rpcUrl, deployer.address, parseUnits('200000', 6))
  await pool(tokens.tithe, WETH, false, [parseEther('1000000'), parseEther('10')], true)
  await pool(tokens.honey, WETH, false, [parseEther('1000000'), parseEther('10')], true)
  await pool(tokens.stableTithe, USDC, true, [parseEther('100000'), parseUnits('100000', 6)], true)
  await pool(tokens.stablePlain, USDC, true, [parseEther('100000'), parseUnits('100000', 6)], false)
  // The sender pays USDC for the stable-curve tokens.
  await mintDevnetUsdc(devnet.rpcUrl, sender.address, parseUnits('1000', 6))
  await send(
    devnet.rpcUrl,
    sender,
    USDC,
    call(ABI.erc20, 'approve', [AERODROME.router, maxUint256]),
  )
}, 180_000)

afterAll(async () => {
  await devnet?.stop()
})

/** 0.01 ETH for `token` on its volatile WETH pool. */
const buyWithEth = (token: Address) => ({
  from: sender.address,
  to: AERODROME.router,
  value: '0x2386f26fc10000',
  data: call(ABI.router, 'swapExactETHForTokens', [
    0n,
    [route(WETH, token, false)],
    sender.address,
    deadline(),
  ]),
})

/** 100 USDC for `token` on its stable USDC pool. */
const buyWithUsdc = (token: Address) => ({
  from: sender.address,
  to: AERODROME.router,
  data: call(ABI.router, 'swapExactTokensForTokens', [
    parseUnits('100', 6),
    0n,
    [route(USDC, token, true)],
    sender.address,
    deadline(),
  ]),
})

async function preflight(body: unknown, on = app): Promise<Answer> {
  const res = await postJson(on, PATH, body)
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

const factsOf = (answer: Answer, token: Address) =>
  answer.effects.receivedTokens?.find((t) => t.token === getAddress(token))
const raised = (answer: Answer) =>
  answer.findings.filter((f) => f.severity !== 'info').map((f) => [f.id, f.severity])

describe('tokens bought through Aerodrome, sold back through Aerodrome pools', () => {
  it('signs a plain token bought on a stable pool: sold back there, untaxed', async () => {
    const answer = await preflight(buyWithUsdc(tokens.stablePlain))
    expect(raised(answer)).toEqual([])
    expect(answer.verdict).toBe('sign')
    expect(factsOf(answer, tokens.stablePlain)).toMatchObject({
      sellable: true,
      taxBps: { buy: 0, sell: 0, transfer: 0 },
    })
  })

  it.each([
    { on: 'a volatile pool', body: () => buyWithEth(tokens.tithe), token: () => tokens.tithe },
    {
      on: 'a stable pool',
      body: () => buyWithUsdc(tokens.stableTithe),
      token: () => tokens.stableTithe,
    },
  ])(
    'asks for review of a token taxed a tenth, bought on $on: its taxes measured there',
    async ({ body, token }) => {
      const answer = await preflight(body())
      expect(answer.verdict).toBe('review')
      expect(raised(answer)).toEqual([['token-tax', 'warning']])
      expect(answer.findings.find((f) => f.id === 'token-tax')?.detail).toContain(
        'a sell tax of 10 %',
      )
      expect(factsOf(answer, token())).toMatchObject({
        sellable: true,
        taxBps: { buy: 1000, sell: 1000, transfer: 1000 },
      })
    },
  )

  it('blocks a honeypot bought on a volatile pool: it moves but does not sell there', async () => {
    const answer = await preflight(buyWithEth(tokens.honey))
    expect(answer.verdict).toBe('block')
    expect(raised(answer)).toEqual([['token-honeypot', 'critical']])
    expect(factsOf(answer, tokens.honey)).toMatchObject({
      sellable: false,
      taxBps: { buy: 0, sell: null, transfer: 0 },
    })
  })

  it('takes one RPC wave per Aerodrome swap preflight, the sell probe included', async () => {
    const proxy = await startCountingRpc(devnet.rpcUrl)
    try {
      const counted = preflightApp(proxy.url)
      // A fresh reader knows no head: its first preflight reads `latest` first.
      await preflight(buyWithEth(tokens.tithe), counted)
      for (const body of [buyWithEth(tokens.tithe), buyWithUsdc(tokens.stablePlain)]) {
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
})
