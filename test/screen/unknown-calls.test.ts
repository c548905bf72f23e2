import { type Address, encodeFunctionData, type Hex, parseAbi, parseEther, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { MULTICALL3_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { clients, deploy, testAccount } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

/**
 * Calldata no protocol module decodes (issue 38 item 3): our own CreditVault, a protocol unknown
 * to the catalogue that takes the sender's tokens or ETH and credits a recipient named only in
 * the calldata. The recipient is found in the argument layout recovered from the bytes; a
 * stranger there (at top level, or in a Multicall3 batch item) is named, the sender is not.
 */

const PATH = '/payanagent/v1/base-transaction-preflight'
const ABI = parseAbi([
  'function depositFor(address token, uint256 amount, address recipient)',
  'function stakeFor(address recipient) payable',
  'function mint(address to, uint256 amount)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function aggregate3Value((address target, bool allowFailure, uint256 value, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])',
])

const sender = testAccount(60)
const SENDER = sender.address
const STRANGER: Address = testAccount(61).address

interface Finding {
  id: string
  severity: string
  detail: string
  path?: string
}
interface Answer {
  verdict: string
  findings: Finding[]
  call: { success: boolean }
}

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
let vault: Address
let token: Address

async function send(to: Address, data: Hex): Promise<void> {
  const { walletClient, publicClient } = clients(devnet.rpcUrl, sender)
  const hash = await walletClient.sendTransaction({ to, data })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error(`setup call to ${to} reverted`)
}

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  await fetch(devnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [SENDER, toHex(parseEther('100'))],
    }),
  })
  vault = (await deploy(devnet.rpcUrl, 'CreditVault', [], sender)).address
  token = (await deploy(devnet.rpcUrl, 'TestERC20', ['Vault Token', 'VT'], sender)).address
  await send(
    token,
    encodeFunctionData({ abi: ABI, functionName: 'mint', args: [SENDER, parseEther('1000')] }),
  )
  await send(
    token,
    encodeFunctionData({ abi: ABI, functionName: 'approve', args: [vault, parseEther('1000')] }),
  )
}, 120_000)

afterAll(async () => {
  await devnet?.stop()
})

async function preflight(
  body: { to: Address; data: Hex; value?: bigint },
  on = app,
): Promise<Answer> {
  const res = await postJson(on, PATH, {
    from: SENDER,
    to: body.to,
    data: body.data,
    value: toHex(body.value ?? 0n),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

const deposit = (recipient: Address) => ({
  to: vault,
  data: encodeFunctionData({
    abi: ABI,
    functionName: 'depositFor',
    args: [token, parseEther('100'), recipient],
  }),
})

/** A Multicall3 batch whose one item stakes 1 ETH in the vault for `recipient`. */
const batchedStake = (recipient: Address) => ({
  to: MULTICALL3_ADDRESS as Address,
  value: parseEther('1'),
  data: encodeFunctionData({
    abi: ABI,
    functionName: 'aggregate3Value',
    args: [
      [
        {
          target: vault,
          allowFailure: false,
          value: parseEther('1'),
          callData: encodeFunctionData({ abi: ABI, functionName: 'stakeFor', args: [recipient] }),
        },
      ],
    ],
  }),
})

const raised = (a: Answer) =>
  [...new Set(a.findings.filter((f) => f.severity !== 'info').map((f) => f.id))].sort()

describe('unknown calldata names the strangers in it', () => {
  it.each([
    ['a top-level depositFor(token, amount, recipient)', deposit, 'arg2', undefined],
    ['a Multicall3 batch item stakeFor(recipient)', batchedStake, 'arg0', 'aggregate3Value[0]'],
  ] as const)(
    '%s: the stranger twin is told apart from the benign call',
    async (_, build, argPath, path) => {
      const benign = await preflight(build(SENDER))
      const twin = await preflight(build(STRANGER))
      expect(benign.call.success).toBe(true)
      expect(twin.call.success).toBe(true)
      expect(benign.findings.map((f) => f.id)).not.toContain('unknown-call-names-stranger')
      const finding = twin.findings.find((f) => f.id === 'unknown-call-names-stranger')
      expect(finding).toMatchObject({ severity: 'warning' })
      expect(finding?.path).toBe(path)
      expect(finding?.detail).toContain(`${STRANGER} (${argPath})`)
      expect(finding?.detail).not.toContain(vault)
      expect(twin.verdict).not.toBe('sign')
      // Everything else the two answers raise is the same: the stranger is the difference.
      expect(raised(twin)).toEqual([...raised(benign), 'unknown-call-names-stranger'].sort())
    },
  )

  it('names nobody when no asset leaves the sender', async () => {
    // withdraw(token, 0) moves nothing: the token argument is not a stranger, and nothing leaves.
    const answer = await preflight({
      to: vault,
      data: encodeFunctionData({
        abi: parseAbi(['function withdraw(address token, uint256 amount)']),
        functionName: 'withdraw',
        args: [STRANGER, 0n],
      }),
    })
    expect(answer.findings.map((f) => f.id)).not.toContain('unknown-call-names-stranger')
  })

  it('costs no RPC wave: the layout is guessed from the calldata, participants from the simulation', async () => {
    const proxy = await startCountingRpc(devnet.rpcUrl)
    try {
      const counted = preflightApp(proxy.url)
      // A fresh reader learns the head first.
      await preflight(deposit(SENDER), counted)
      const waves = async (body: { to: Address; data: Hex; value?: bigint }) => {
        proxy.reset()
        const answer = await preflight(body, counted)
        return { waves: proxy.waves, ids: answer.findings.map((f) => f.id) }
      }
      // The ETH stake: one wave, benign and stranger alike.
      const stake = await waves(batchedStake(STRANGER))
      expect(stake.ids).toContain('unknown-call-names-stranger')
      expect(stake.waves).toBe(1)
      expect((await waves(batchedStake(SENDER))).waves).toBe(1)
      // The token deposit: the token is named by no decoded calldata, so its metadata is read
      // once execution shows it (a second wave, as before); naming the stranger adds none.
      const twin = await waves(deposit(STRANGER))
      expect(twin.ids).toContain('unknown-call-names-stranger')
      expect(twin.waves).toBe((await waves(deposit(SENDER))).waves)
    } finally {
      await proxy.close()
    }
  })
})
