import { type Address, encodeFunctionData, getAddress, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { comparableLabel, impersonationOf } from '../../src/domain/tokens/token-lists.js'
import { clients, deploy, testAccount } from '../support/contracts.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * Look-alike tokens (issue 31): a token at an address no pinned list carries that copies a
 * listed token's symbol or name is critical when it copies a payment token (USDC, WETH, ...)
 * and a warning otherwise; the genuine devnet USDC (at Base's real USDC address) and an
 * unrelated token are not flagged. Real OpenZeppelin tokens on the devnet, real preflights.
 */

const PATH = '/payanagent/v1/base-transaction-preflight'
const ABI = parseAbi([
  'function mint(address to, uint256 amount)',
  'function transfer(address to, uint256 amount) returns (bool)',
])
const sender = testAccount(40)
const friend = testAccount(41).address
const REAL_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

interface Answer {
  verdict: string
  findings: { id: string; severity: string; detail: string }[]
  effects?: {
    senderNet?: {
      changes: { direction: string; display: string | null; asset: { symbol: string | null } }[]
      summary: string
    }
  }
}

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
const tokens: Record<string, Address> = {}

/** [name, symbol] of each token deployed, by key. */
const DEPLOYED: Record<string, [string, string]> = {
  fakeUsdc: ['USD Coin', 'USDC'],
  zeroWidth: ['Totally Legit', 'US\u200bDC'],
  cyrillic: ['Totally Legit', 'U\u0405D\u0421'],
  fullWidth: ['\uff37rapped Ether', 'WRAP'],
  fakeAero: ['Aerodrome Finance', 'AERO'],
  plain: ['Collateral Token', 'COL'],
  // A right-to-left override: stored `CDSU`, drawn `USDC` (the security review's finding 5).
  bidi: ['Totally Legit', '\u202eCDSU'],
  // Hides nothing a list matches, but a zero-width joiner and a Greek Α in a name agents read.
  hiddenName: ['\u0391ave\u200d Yield', 'AYLD'],
}

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  for (const [key, args] of Object.entries(DEPLOYED)) {
    tokens[key] = (await deploy(devnet.rpcUrl, 'TestERC20', args)).address
  }
  await mintDevnetUsdc(devnet.rpcUrl, sender.address, 1_000_000_000n)
  await fetch(devnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [sender.address, '0xde0b6b3a7640000'],
    }),
  })
  // The sender already holds some of the fake USDC (an airdrop, say).
  const { walletClient, publicClient } = clients(devnet.rpcUrl, sender)
  const hash = await walletClient.writeContract({
    address: tokens.fakeUsdc as Address,
    abi: ABI,
    functionName: 'mint',
    args: [sender.address, 10n ** 9n],
  })
  await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}, 60_000)

afterAll(async () => {
  await devnet?.stop()
})

/** The preflight of the sender minting itself 1,000 of `token` (it receives the token). */
async function receive(token: Address): Promise<Answer> {
  const res = await postJson(app, PATH, {
    from: sender.address,
    to: token,
    data: encodeFunctionData({
      abi: ABI,
      functionName: 'mint',
      args: [sender.address, 10n ** 21n],
    }),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

const ids = (a: Answer) => a.findings.map((f) => f.id)

describe('look-alike tokens', () => {
  it.each([
    ['fakeUsdc', 'symbol "USDC"'],
    // Details write hidden characters as escapes (issue 37): the zero-width space is spelled out.
    ['zeroWidth', 'symbol "US\\u200BDC"'],
    ['cyrillic', 'symbol "U\u0405D\u0421"'],
    ['fullWidth', 'name "\uff37rapped Ether"'],
  ])('blocks receiving a copy of a payment token (%s), naming the real one', async (key, label) => {
    const token = tokens[key] as Address
    const answer = await receive(token)
    expect(answer.verdict).toBe('block')
    const finding = answer.findings.find((f) => f.id === 'token-impersonates-payment-token')
    expect(finding?.severity).toBe('critical')
    expect(finding?.detail).toContain(`The sender receives token ${getAddress(token)}`)
    expect(finding?.detail).toContain(label)
    const copied = key === 'fullWidth' ? '0x4200000000000000000000000000000000000006' : REAL_USDC
    expect(finding?.detail).toContain(`which is ${copied} on Base`)
    expect(finding?.detail).toMatch(/Uniswap Labs Default \d+\.\d+\.\d+/)
    expect(ids(answer)).not.toContain('token-impersonates-listed')
  })

  it('asks for review when a token copies a listed token agents do not pay with', async () => {
    const answer = await receive(tokens.fakeAero as Address)
    expect(answer.verdict).toBe('review')
    const raised = answer.findings.filter((f) => f.severity !== 'info')
    expect(raised.map((f) => [f.id, f.severity])).toEqual([
      ['token-impersonates-listed', 'warning'],
    ])
    expect(raised[0]?.detail).toContain('copies AERO (Aerodrome Finance)')
  })

  it('signs a token that copies nothing, and the genuine USDC at its listed address', async () => {
    const plain = await receive(tokens.plain as Address)
    expect(plain.verdict).toBe('sign')
    expect(plain.findings.filter((f) => f.severity !== 'info')).toEqual([])
    const res = await postJson(app, PATH, {
      from: sender.address,
      to: USDC_ADDRESS,
      data: encodeFunctionData({ abi: ABI, functionName: 'transfer', args: [friend, 1_000_000n] }),
    })
    const usdc = (await res.json()) as Answer
    expect(usdc.verdict).toBe('sign')
    expect(ids(usdc).filter((id) => id.startsWith('token-impersonates'))).toEqual([])
  })

  it('does not judge a copy the sender only sends away (it receives nothing for value)', async () => {
    const res = await postJson(app, PATH, {
      from: sender.address,
      to: tokens.fakeUsdc,
      data: encodeFunctionData({ abi: ABI, functionName: 'transfer', args: [friend, 10n ** 9n] }),
    })
    const answer = (await res.json()) as Answer
    expect(ids(answer).filter((id) => id.startsWith('token-impersonates'))).toEqual([])
  })
})

describe('bidi controls and hidden characters in what the agent reads', () => {
  it('blocks a symbol a right-to-left override draws as USDC, and shows the override escaped', async () => {
    const token = tokens.bidi as Address
    const answer = await receive(token)
    expect(answer.verdict).toBe('block')
    const copy = answer.findings.find((f) => f.id === 'token-impersonates-payment-token')
    expect(copy?.detail).toContain('symbol "\\u202ECDSU" (drawn "USDC") copies USDC (USD Coin)')
    expect(copy?.detail).toContain(`which is ${REAL_USDC} on Base`)
    const label = answer.findings.find((f) => f.id === 'token-label-deceptive')
    expect(label?.severity).toBe('warning')
    expect(label?.detail).toBe(
      `Token ${getAddress(token)} has the symbol "\\u202ECDSU", with hidden characters (U+202E RIGHT-TO-LEFT OVERRIDE): a bidi control reorders the text drawn after it.`,
    )
    // Nothing in the answer carries the override itself: effects show it escaped too.
    const text = JSON.stringify(answer)
    expect(text).not.toContain('\u202e')
    const received = answer.effects?.senderNet?.changes.find((c) => c.direction === 'in')
    expect(received?.asset.symbol).toBe('\\u202ECDSU')
    expect(received?.display).toBe('1,000 \\u202ECDSU')
    expect(answer.effects?.senderNet?.summary).toBe('+ 1,000 \\u202ECDSU')
  })

  it('asks for review of a name with a zero-width joiner and a Greek letter posing as Latin', async () => {
    const token = tokens.hiddenName as Address
    const answer = await receive(token)
    expect(answer.verdict).toBe('review')
    const raised = answer.findings.filter((f) => f.severity !== 'info')
    expect(raised.map((f) => f.id)).toEqual(['token-label-deceptive'])
    expect(raised[0]?.detail).toBe(
      `Token ${getAddress(token)} has the name "\u0391ave\\u200D Yield", with hidden characters (U+200D ZERO WIDTH JOINER); and letters of Greek and Latin mixed: \u0391 (U+0391, Greek) reads as A.`,
    )
  })

  it('leaves the labels of the genuine tokens alone (USDC, WETH, read in every preflight)', async () => {
    const plain = await receive(tokens.plain as Address)
    expect(plain.findings.map((f) => f.id)).not.toContain('token-label-deceptive')
  })
})

describe('comparable labels', () => {
  it('fold case, invisible characters, compatibility forms and confusables, and nothing else', () => {
    expect(comparableLabel('USDC')).toBe(comparableLabel('usdc'))
    expect(comparableLabel('US\u200bDC')).toBe(comparableLabel('USDC'))
    expect(comparableLabel('U S D C')).toBe(comparableLabel('USDC'))
    expect(comparableLabel('\uff35\uff33\uff24\uff23')).toBe(comparableLabel('USDC'))
    expect(comparableLabel('U\u0405D\u0421')).toBe(comparableLabel('USDC'))
    expect(comparableLabel('WETH')).not.toBe(comparableLabel('WBTC'))
    expect(comparableLabel('USDC')).not.toBe(comparableLabel('USDT'))
    // Upper-cased before mapping: a capital L is not an I (a lower-case l would have been).
    expect(comparableLabel('ALP')).not.toBe(comparableLabel('AIP'))
    expect(comparableLabel('alp')).not.toBe(comparableLabel('AIP'))
  })

  it('never flags a listed address, whatever it calls itself', () => {
    expect(impersonationOf(REAL_USDC, { symbol: 'USDC', name: 'USD Coin' })).toBeUndefined()
    expect(
      impersonationOf('0x0000000000000000000000000000000000001234', {
        symbol: 'USDC',
        name: null,
      })?.copies.address,
    ).toBe(REAL_USDC)
  })
})
