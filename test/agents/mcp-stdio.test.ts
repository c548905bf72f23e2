import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { createTestClient, encodeFunctionData, http, parseAbi, parseAbiItem } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import {
  ENTRY_POINTS,
  SIMPLE_7702_ACCOUNT,
} from '../../src/domain/account-abstraction/entry-points.js'
import { BAZAAR_INPUT_EXAMPLE } from '../../src/routes/paid-route-bazaar.js'
import { PAY_TO, RECEIPT_SIGNER, usdcBalances } from '../payment/paid-stack.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * The client package's stdio MCP server (`pre-send-guard-mcp`, its compiled bin run by plain
 * node) driven by the official MCP SDK's client over stdio, against the real guard served on
 * loopback with a real devnet and the built-in facilitator settling on chain. The payer is a
 * fresh funded key given in BUYER_PRIVATE_KEY, under a spend cap of one paid call.
 */
// The executable npx runs: the committed shim that loads the compiled server.
const BIN = fileURLToPath(
  new URL('../../packages/client/bin/pre-send-guard-mcp.js', import.meta.url),
)

let guard: ServedGuard
let client: Client
let payer: PrivateKeyAccount
const stderr: string[] = []
/** The payer's key, handed to the server in its environment (and never printed by it). */
const payerKey = generatePrivateKey()

beforeAll(async () => {
  guard = await startServedGuard()
  // A fresh key the server gets in BUYER_PRIVATE_KEY, funded with 1 ETH and $0.10 of USDC.
  payer = privateKeyToAccount(payerKey)
  await createTestClient({ mode: 'anvil', transport: http(guard.devnet.rpcUrl) }).setBalance({
    address: payer.address,
    value: 10n ** 18n,
  })
  await mintDevnetUsdc(guard.devnet.rpcUrl, payer.address, 100_000n)
  const { BUYER_PRIVATE_KEY: _k, ...env } = process.env as Record<string, string>
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: {
      ...env,
      PRE_SEND_GUARD_URL: guard.baseUrl,
      BUYER_PRIVATE_KEY: payerKey,
      PRE_SEND_GUARD_SPEND_CAP: '0.01',
    },
    stderr: 'pipe',
  })
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
  client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' })
  await client.connect(transport)
}, 90_000)

afterAll(async () => {
  await client?.close()
  await guard?.stop()
})

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text

const authorizationUsed = parseAbiItem(
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
)

/** Every USDC authorization the payer's key ever had settled on chain. */
async function settlementsBy(address: `0x${string}`) {
  const logs = await guard.rpc.getLogs({
    address: USDC_ADDRESS,
    event: authorizationUsed,
    args: { authorizer: address },
    fromBlock: 0n,
    toBlock: 'latest',
  })
  return logs.map((log) => log.transactionHash)
}

describe('pre-send-guard-mcp over stdio', () => {
  it('lists its tools, each described for a model with a strict JSON schema', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([
      'guard_status',
      'paid_preflight_transaction',
      'preflight_authorization',
      'preflight_bundle',
      'preflight_transaction',
      'preflight_typed_data',
      'preflight_user_operation',
      'public_page_evidence',
    ])
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(80)
      expect(tool.inputSchema.type).toBe('object')
    }
    const paid = tools.find((t) => t.name === 'paid_preflight_transaction')!
    expect(paid.inputSchema).toMatchObject({
      required: ['from', 'to', 'data'],
      additionalProperties: false,
    })
    expect(paid.description).toMatch(/spend cap/)
    expect(stderr.join('')).toContain('serving tools for')
  })

  it('calls the free tools; refuses an input with an unknown field (strict schema)', async () => {
    const status = await call('guard_status', {})
    expect(status.isError).toBeFalsy()
    expect(status.structuredContent).toMatchObject({
      environment: 'devnet',
      network: 'eip155:8453',
      spentUsdc: '0',
      capUsdc: '0.01',
    })
    expect((status.structuredContent as { payer: string }).payer).toBe(payer.address)

    const tx = await call('preflight_transaction', { ...BAZAAR_INPUT_EXAMPLE })
    expect(tx.isError).toBeFalsy()
    expect(tx.structuredContent).toMatchObject({ verdict: 'sign', environment: 'devnet' })
    expect(JSON.parse(text(tx))).toEqual(tx.structuredContent)

    const strict = await call('preflight_transaction', { ...BAZAAR_INPUT_EXAMPLE, gas: '0x1' })
    expect(strict.isError).toBe(true)
    expect(text(strict)).toMatch(/gas|unrecognized/i)
  })

  it('preflight_authorization answers with the shared request schema as its input', async () => {
    const { tools } = await client.listTools()
    const tool = tools.find((t) => t.name === 'preflight_authorization')!
    expect(tool.inputSchema).toMatchObject({
      required: ['authority', 'authorization'],
      additionalProperties: false,
    })
    const answer = await call('preflight_authorization', {
      authority: payer.address,
      authorization: { address: SIMPLE_7702_ACCOUNT, chainId: '0x2105', nonce: '0x0' },
    })
    expect(answer.isError, text(answer)).toBeFalsy()
    expect(answer.structuredContent).toMatchObject({
      verdict: 'sign',
      environment: 'devnet',
      authorization: { signature: 'absent', delegate: SIMPLE_7702_ACCOUNT },
      delegate: { recognised: { id: 'simple-7702-account' } },
    })
    const partial = await call('preflight_authorization', {
      authority: payer.address,
      authorization: { address: SIMPLE_7702_ACCOUNT, chainId: '0x2105', nonce: '0x0', r: '0x1' },
    })
    expect(partial.isError).toBe(true)
    expect(text(partial)).toMatch(/together/)
  })

  it('preflight_user_operation answers with the shared request schema as its input', async () => {
    const { tools } = await client.listTools()
    const tool = tools.find((t) => t.name === 'preflight_user_operation')!
    expect(tool.inputSchema).toMatchObject({
      required: ['entryPoint', 'userOperation'],
      additionalProperties: false,
    })
    // A fresh sender delegated to Simple7702Account pays the payer 1000 wei, unsigned (a stub).
    const sender = privateKeyToAccount(generatePrivateKey()).address
    const anvil = createTestClient({ mode: 'anvil', transport: http(guard.devnet.rpcUrl) })
    await anvil.setBalance({ address: sender, value: 10n ** 18n })
    await anvil.setCode({ address: sender, bytecode: `0xef0100${SIMPLE_7702_ACCOUNT.slice(2)}` })
    const callData = encodeFunctionData({
      abi: parseAbi(['function execute(address target, uint256 value, bytes data)']),
      functionName: 'execute',
      args: [payer.address, 1000n, '0x'],
    })
    const answer = await call('preflight_user_operation', {
      entryPoint: ENTRY_POINTS['0.8'],
      userOperation: {
        sender,
        nonce: '0x0',
        callData,
        callGasLimit: '0x7a120',
        verificationGasLimit: '0xc3500',
        preVerificationGas: '0xea60',
        maxFeePerGas: '0x77359400',
        maxPriorityFeePerGas: '0xf4240',
      },
    })
    expect(answer.isError, text(answer)).toBeFalsy()
    expect(answer.structuredContent).toMatchObject({
      verdict: 'sign',
      environment: 'devnet',
      userOperation: { sender, entryPointVersion: '0.8' },
    })
    const mixed = await call('preflight_user_operation', {
      entryPoint: ENTRY_POINTS['0.8'],
      userOperation: { sender, nonce: '0x0', callData, unknownField: '0x' },
    })
    expect(mixed.isError).toBe(true)
  })

  it('pays once (one settlement, two verified receipts), replays without paying, then stops at the cap', async () => {
    const body = { ...BAZAAR_INPUT_EXAMPLE, from: payer.address }
    const [payToBefore, payerBefore] = await usdcBalances(guard.rpc, PAY_TO, payer.address)

    const first = await call('paid_preflight_transaction', body)
    expect(first.isError, text(first)).toBeFalsy()
    const paid = first.structuredContent as Record<string, any>
    expect(paid.verified).toBe(true)
    expect(paid.replayed).toBe(false)
    expect(paid.receiptVerification).toEqual({ valid: true, failed: [] })
    expect(paid.offerReceiptVerification).toEqual({ valid: true, failed: [] })
    expect(paid.receipt.signer.toLowerCase()).toBe(RECEIPT_SIGNER.address.toLowerCase())
    expect(paid.offerReceipt).toMatchObject({
      format: 'eip712',
      payload: { payer: payer.address, transaction: paid.settlement.transaction },
    })
    expect(paid.settlement.payer).toBe(payer.address)
    expect(paid.spentUsdc).toBe('0.01')
    expect(await settlementsBy(payer.address)).toEqual([paid.settlement.transaction])

    // The same transaction again: the same answer from the payment already made.
    const again = await call('paid_preflight_transaction', body)
    expect(again.isError, text(again)).toBeFalsy()
    const replayed = again.structuredContent as Record<string, any>
    expect(replayed.replayed).toBe(true)
    expect(replayed.verified).toBe(true)
    expect(replayed.receipt.id).toBe(paid.receipt.id)
    expect(replayed.settlement.transaction).toBe(paid.settlement.transaction)
    expect(replayed.spentUsdc).toBe('0.01')

    // Another transaction would cost another $0.01: over the cap, refused before paying.
    const over = await call('paid_preflight_transaction', { ...body, value: '0x1' })
    expect(over.isError).toBe(true)
    expect(text(over)).toMatch(/spend cap reached/)

    // One settlement in all, for exactly the price.
    expect(await settlementsBy(payer.address)).toEqual([paid.settlement.transaction])
    const [payToAfter, payerAfter] = await usdcBalances(guard.rpc, PAY_TO, payer.address)
    expect(payToAfter! - payToBefore!).toBe(10_000n)
    expect(payerBefore! - payerAfter!).toBe(10_000n)
    expect(stderr.join('')).not.toContain(payerKey.slice(2))
  })
})
