import {
  type Abi,
  type Address,
  encodeFunctionData,
  formatUnits,
  getAddress,
  type Hex,
  maxUint256,
  parseEther,
  parseSignature,
  toHex,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { clients, deploy, testAccount } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * The "what must hold", on real compiled contracts on a real anvil, through the real app:
 * drains versus their benign twins, a hidden approval, an approve -> swap bundle, the RPC waves
 * and requests per preflight, byte-identical answers, and nodes without eth_simulateV1.
 */

const PATH = '/payanagent/v1/base-transaction-preflight'
const BUNDLE = '/payanagent/v1/base-bundle-preflight'
const agent = testAccount(7)
const AGENT = agent.address
/** A funded account with no code (anvil test account #8). */
const PERSON: Address = testAccount(8).address
/** A third party with no code that drains send things to. */
const COLLECTOR: Address = getAddress('0x00000000000000000000000000000000c011ec70')

type Deployed = { address: Address; abi: Abi }
let devnet: Devnet
let app: ReturnType<typeof preflightApp>
let tokenA: Deployed
let tokenB: Deployed
let sneaky: Deployed
let vault: Deployed
let forwarding: Deployed
let paying: Deployed
let relay: Deployed
let pair: Deployed

const encode = (target: Deployed, functionName: string, args: readonly unknown[] = []): Hex =>
  encodeFunctionData({ abi: target.abi, functionName, args } as never)

interface Finding {
  id: string
  severity: string
  detail: string
}
interface Answer {
  verdict: string
  findings: Finding[]
  effects: {
    available: boolean
    source?: string
    reason?: string
    senderNet?: { summary: string }
    approvalChanges?: { ownerIsSender: boolean; spender: string; amount: string }[]
  }
  block: { number: string; hash: Hex }
}

function body(to: Address, data: Hex, value = 0n, from: Address = AGENT) {
  return { from, to, data, value: toHex(value) }
}

async function preflight(request: ReturnType<typeof body>, on = app): Promise<Answer> {
  const res = await postJson(on, PATH, request)
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

const finding = (a: Answer, id: string) => a.findings.find((f) => f.id === id)

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  const rpc = devnet.rpcUrl
  const deployer = testAccount(9)
  const checksummed = async (p: Promise<Deployed>) => {
    const d = await p
    return { ...d, address: getAddress(d.address) }
  }
  tokenA = await checksummed(deploy(rpc, 'TestERC20', ['Effect Token', 'EFT'], deployer))
  tokenB = await checksummed(deploy(rpc, 'TestERC20', ['Bee Token', 'TKB'], deployer))
  ;[sneaky, vault, forwarding, paying, relay, pair] = await Promise.all([
    deploy(rpc, 'SneakyDeposit', [tokenA.address, COLLECTOR], testAccount(6)),
    deploy(rpc, 'ShareVault', [tokenA.address], testAccount(5)),
    deploy(rpc, 'ForwardingSwap', [COLLECTOR], testAccount(4)),
    deploy(rpc, 'EthForTokenSwap', [tokenB.address, 1000n], testAccount(3)),
    deploy(rpc, 'PermitRelay', [], testAccount(2)),
    deploy(rpc, 'MiniPair', [tokenA.address, tokenB.address], testAccount(1)),
  ])
  const send = async (target: Deployed, fn: string, args: readonly unknown[], by = deployer) => {
    const { publicClient, walletClient } = clients(rpc, by)
    const hash = await walletClient.sendTransaction({
      to: target.address,
      data: encode(target, fn, args),
    })
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  }
  await send(tokenA, 'mint', [AGENT, parseEther('1000')])
  await send(tokenB, 'mint', [paying.address, parseEther('1000000')])
  await send(tokenA, 'mint', [pair.address, parseEther('1000')])
  await send(tokenB, 'mint', [pair.address, parseEther('1000')])
  await send(tokenA, 'approve', [sneaky.address, parseEther('250')], agent)
  await send(tokenA, 'approve', [vault.address, parseEther('250')], agent)
}, 120_000)

afterAll(async () => {
  await devnet?.stop()
})

describe('drains and their benign twins', () => {
  it("an innocuous deposit() that pulls the sender's approved tokens to a third party is not sign", async () => {
    const a = await preflight(body(sneaky.address, encode(sneaky, 'deposit')))
    expect(a.verdict).not.toBe('sign')
    expect(a.effects.senderNet?.summary).toBe('- 250 EFT')
    expect(finding(a, 'drain-shape')?.detail).toBe(
      `The sender loses 250 EFT (250000000000000000000 raw units) of token ${tokenA.address} to ${COLLECTOR}, and receives nothing back.`,
    )
    expect(finding(a, 'assets-to-no-code-recipient')?.detail).toContain(COLLECTOR)
  })

  it('a vault whose deposit() pulls the same tokens and mints shares to the sender is sign', async () => {
    const a = await preflight(body(vault.address, encode(vault, 'deposit')))
    expect(a.effects.senderNet?.summary).toBe('- 250 EFT, + 250 VSH')
    expect(a.findings.map((f) => f.id)).not.toContain('drain-shape')
    expect(a.verdict).toBe('sign')
  })

  it('a payable swap() that forwards the ETH elsewhere and returns nothing is not sign', async () => {
    const a = await preflight(body(forwarding.address, encode(forwarding, 'swap'), parseEther('1')))
    expect(a.verdict).not.toBe('sign')
    expect(a.effects.senderNet?.summary).toBe('- 1 ETH')
    expect(finding(a, 'drain-shape')?.detail).toContain(
      `1 ETH (1000000000000000000 raw units) to ${COLLECTOR}`,
    )
  })

  it('a payable swap() that returns tokens is sign', async () => {
    const a = await preflight(body(paying.address, encode(paying, 'swap'), parseEther('0.001')))
    expect(a.effects.senderNet?.summary).toBe('- 0.001 ETH, + 1 TKB')
    expect(a.verdict).toBe('sign')
  })
})

describe('hidden approvals', () => {
  async function signedPermit(spender: Address) {
    const signature = await agent.signTypedData({
      domain: {
        name: 'Effect Token',
        version: '1',
        chainId: 8453,
        verifyingContract: tokenA.address,
      },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: AGENT, spender, value: maxUint256, nonce: 0n, deadline: maxUint256 },
    })
    const { v, r, s } = parseSignature(signature)
    return [AGENT, spender, maxUint256, maxUint256, Number(v), r, s] as const
  }

  it('a permit relayed by an undecodable call is a hidden approval, judged like a calldata one', async () => {
    const args = await signedPermit(PERSON)
    const a = await preflight(
      body(relay.address, encode(relay, 'relay', [tokenA.address, ...args])),
    )
    expect(a.verdict).toBe('block')
    const ids = a.findings.map((f) => f.id)
    expect(ids).toEqual(
      expect.arrayContaining(['hidden-approval', 'approval-to-eoa', 'unlimited-allowance']),
    )
    expect(finding(a, 'hidden-approval')?.detail).toContain('unlimited EFT')
    expect(a.effects.approvalChanges).toEqual([
      expect.objectContaining({
        ownerIsSender: true,
        spender: PERSON,
        amount: maxUint256.toString(),
      }),
    ])
  })

  it('the same permit in decoded calldata is one finding per fact, and no hidden-approval', async () => {
    const args = await signedPermit(PERSON)
    const a = await preflight(body(tokenA.address, encode(tokenA, 'permit', args)))
    const ids = a.findings.map((f) => f.id)
    expect(ids).not.toContain('hidden-approval')
    expect(ids.filter((id) => id === 'approval-to-eoa')).toHaveLength(1)
    expect(ids.filter((id) => id === 'unlimited-allowance')).toHaveLength(1)
    expect(finding(a, 'unlimited-allowance')?.detail).toContain('unlimited EFT')
  })
})

describe('bundles on an AMM-like pair', () => {
  const amountIn = parseEther('100')
  it('the swap alone is block (no allowance); approve -> swap is sign with net - A, + B', async () => {
    const swap = body(pair.address, encode(pair, 'swap', [amountIn]))
    expect((await preflight(swap)).verdict).toBe('block')
    const approve = body(tokenA.address, encode(tokenA, 'approve', [pair.address, amountIn]))
    const res = await postJson(app, BUNDLE, { transactions: [approve, swap] })
    expect(res.status).toBe(200)
    const b = (await res.json()) as {
      verdict: string
      hypothetical: boolean
      transactions: Answer[]
      netEffects: { sender: string; summary: string }[]
    }
    const out = (parseEther('1000') * amountIn) / (parseEther('1000') + amountIn)
    expect(b.verdict).toBe('sign')
    expect(b.hypothetical).toBe(false)
    expect(b.transactions.map((t) => t.verdict)).toEqual(['sign', 'sign'])
    expect(b.netEffects).toEqual([
      expect.objectContaining({
        sender: AGENT,
        summary: `- 100 EFT, + ${formatUnits(out, 18)} TKB`,
      }),
    ])
  })

  it('under state overrides the answer says it is hypothetical, and bounds are a 422', async () => {
    const poor: Address = '0x0000000000000000000000000000000000000b0b'
    const send = body(PERSON, '0x', parseEther('5'), poor)
    const res = await postJson(app, BUNDLE, {
      transactions: [send],
      stateOverrides: { [poor]: { balance: toHex(parseEther('10')) } },
    })
    expect(res.status).toBe(200)
    const b = (await res.json()) as {
      verdict: string
      hypothetical: boolean
      transactions: Answer[]
    }
    expect(b.hypothetical).toBe(true)
    expect(b.transactions[0]?.findings.map((f) => f.id)).toContain('state-overridden')
    expect(b.transactions[0]?.findings.map((f) => f.id)).not.toContain('insufficient-balance')
    const many = Object.fromEntries(
      Array.from({ length: 17 }, (_, i) => [
        `0x${(0xb000 + i).toString(16).padStart(40, '0')}`,
        { nonce: '0x1' },
      ]),
    )
    const tooMany = await postJson(app, BUNDLE, { transactions: [send], stateOverrides: many })
    expect(tooMany.status).toBe(422)
    const nine = await postJson(app, BUNDLE, { transactions: Array(9).fill(send) })
    expect(nine.status).toBe(422)
  })
})

describe('RPC waves, requests and determinism', () => {
  it('in steady state an ETH transfer, an ERC-20 transfer and an approve take 1 wave each', async () => {
    const proxy = await startCountingRpc(devnet.rpcUrl)
    try {
      const counted = preflightApp(proxy.url)
      // The first request of a fresh reader knows no head yet: `latest` first, then the wave.
      await preflight(body(PERSON, '0x', 1n), counted)
      expect(proxy.waves).toBe(2)
      proxy.reset()
      // `latest` rides in the wave beside every pinned read; the L1 fee parameters and the
      // metadata of tokens the calldata names ride in eth_simulateV1.
      await preflight(body(PERSON, '0x', 1n), counted)
      console.log(
        `ETH transfer: ${proxy.waves} waves, ${proxy.methods.length} requests: ${proxy.methods.join(' ')}`,
      )
      expect(proxy.waves).toBe(1)
      expect(proxy.methods).toHaveLength(9)
      expect(proxy.methods.filter((m) => m === 'eth_simulateV1')).toHaveLength(1)
      expect(proxy.methods.filter((m) => m === 'eth_getBlockByNumber')).toHaveLength(1)
      // The wave's 9 calls travel as one JSON-RPC batch: one HTTP request.
      expect(proxy.exchanges).toBe(1)
      proxy.reset()
      const transfer = encode(tokenA, 'transfer', [PERSON, 5n])
      await preflight(body(tokenA.address, transfer), counted)
      console.log(
        `ERC-20 transfer: ${proxy.waves} waves, ${proxy.methods.length} requests: ${proxy.methods.join(' ')}`,
      )
      expect(proxy.waves).toBe(1)
      expect(proxy.methods).toHaveLength(9)
      expect(proxy.methods.filter((m) => m === 'eth_simulateV1')).toHaveLength(1)
      proxy.reset()
      const approve = body(tokenA.address, encode(tokenA, 'approve', [pair.address, 1n]))
      await preflight(approve, counted)
      console.log(
        `approve: ${proxy.waves} waves, ${proxy.methods.length} requests: ${proxy.methods.join(' ')}`,
      )
      expect(proxy.waves).toBe(1)
      // + the spender's code; the token's three token-standard probes ride in eth_simulateV1,
      // so the only eth_call is the transaction's own.
      expect(proxy.methods).toHaveLength(10)
      expect(proxy.methods.filter((m) => m === 'eth_call')).toHaveLength(1)
      // At most RPC_MAX_BATCH (10) calls per batch: the wave is one HTTP request.
      expect(proxy.exchanges).toBe(1)
      proxy.reset()
      // Execution names a token the calldata does not: its metadata is a second wave.
      await preflight(body(sneaky.address, encode(sneaky, 'deposit')), counted)
      console.log(`sneaky deposit: ${proxy.waves} waves, ${proxy.methods.length} requests`)
      expect(proxy.waves).toBe(2)
      proxy.reset()
      const swap = body(pair.address, encode(pair, 'swap', [1n]))
      const res = await postJson(counted, BUNDLE, { transactions: [approve, swap] })
      expect(res.status).toBe(200)
      console.log(`bundle of 2: ${proxy.waves} waves, ${proxy.methods.length} requests`)
      expect(proxy.waves).toBe(1)
    } finally {
      await proxy.close()
    }
  })

  it('when the chain moved since the tracked head: 2 waves, and the answer is for the new head', async () => {
    const proxy = await startCountingRpc(devnet.rpcUrl)
    try {
      const counted = preflightApp(proxy.url)
      const before = await preflight(body(PERSON, '0x', 1n), counted)
      // A block the reader has not seen (no poll in this app): the tracked head is stale.
      const { publicClient } = clients(devnet.rpcUrl)
      await publicClient.request({ method: 'evm_mine' } as never)
      proxy.reset()
      const after = await preflight(body(PERSON, '0x', 1n), counted)
      expect(proxy.waves).toBe(2)
      expect(BigInt(after.block.number)).toBe(BigInt(before.block.number) + 1n)
      const latest = await publicClient.getBlock()
      expect(after.block.hash).toBe(latest.hash)
      // Every pinned read of the second wave names the new head.
      proxy.reset()
      const again = await preflight(body(PERSON, '0x', 1n), counted)
      expect(proxy.waves).toBe(1)
      expect(again.block.hash).toBe(latest.hash)
    } finally {
      await proxy.close()
    }
  })

  it('the same input at the same block gives a byte-identical answer, effects included', async () => {
    const request = body(sneaky.address, encode(sneaky, 'deposit'))
    const first = await (await postJson(app, PATH, request)).text()
    const second = await (await postJson(app, PATH, request)).text()
    expect(first).toContain('"effects":{"available":true')
    expect(second).toBe(first)
  })
})

describe('nodes without eth_simulateV1', () => {
  it('falls back to debug_traceCall and still sees the drain: 200', async () => {
    const proxy = await startCountingRpc(devnet.rpcUrl, { holdMs: 0 })
    try {
      proxy.lack('eth_simulateV1')
      const a = await preflight(
        body(sneaky.address, encode(sneaky, 'deposit')),
        preflightApp(proxy.url),
      )
      expect(a.effects).toMatchObject({ available: true, source: 'debug_traceCall' })
      expect(a.effects.senderNet?.summary).toBe('- 250 EFT')
      expect(a.findings.map((f) => f.id)).toContain('drain-shape')
      const eth = await preflight(
        body(forwarding.address, encode(forwarding, 'swap'), 7n),
        preflightApp(proxy.url),
      )
      expect(eth.effects.senderNet?.summary).toBe('- 0.000000000000000007 ETH')
    } finally {
      await proxy.close()
    }
  })

  it('with neither method: 200, effects unavailable and an execution-not-visible finding', async () => {
    const proxy = await startCountingRpc(devnet.rpcUrl, { holdMs: 0 })
    try {
      proxy.lack('eth_simulateV1', 'debug_traceCall')
      const on = preflightApp(proxy.url)
      const a = await preflight(body(PERSON, '0x', 1n), on)
      expect(a.effects).toEqual({
        available: false,
        reason: 'the Base RPC offers neither eth_simulateV1 nor debug_traceCall',
      })
      expect(finding(a, 'execution-not-visible')?.severity).toBe('info')
      expect(a.verdict).toBe('sign')
      const send = body(PERSON, '0x', 1n)
      const bundle = await postJson(on, BUNDLE, { transactions: [send, send] })
      expect(bundle.status).toBe(502)
      expect(((await bundle.json()) as { error: string }).error).toBe('simulation_unavailable')
    } finally {
      await proxy.close()
    }
  })
})
