import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { x402Client } from '@x402/core/client'
import type { PaymentRequired, SettleResponse } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { createPublicClient, http, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { BAZAAR_INPUT_EXAMPLE } from '../../src/routes/paid-route-bazaar.js'
import { readerFor } from '../evidence/evidence-app.js'
import {
  builtinFacilitator,
  fundedPayer,
  PAY_TO,
  paidApp,
  settlementsOf,
  usdcBalances,
} from '../payment/paid-stack.js'
import { type FakeReader, startFakeReader } from '../support/fake-reader.js'
import { serveApp } from '../support/served-guard.js'
import { TRANSFER_WITH_AUTHORIZATION_TYPES, USDC_DOMAIN } from '../support/usdc-typed-data.js'

/**
 * The MCP endpoint with the official SDK's client over real HTTP: a real devnet, a PGlite
 * ledger, the built-in facilitator settling on chain, a fake reader on loopback.
 */
let devnet: Devnet
let storage: Storage
let reader: FakeReader
let served: Awaited<ReturnType<typeof serveApp>>
let rpc: PublicClient
let client: Client

beforeAll(async () => {
  devnet = await startDevnet()
  storage = await openStorage({ kind: 'pglite', dataDir: undefined })
  reader = await startFakeReader()
  rpc = createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 })
  const { app } = await paidApp({
    preflightRpcUrl: devnet.rpcUrl,
    facilitator: builtinFacilitator(devnet.rpcUrl),
    ledger: storage.ledger,
    reader: readerFor(reader),
  })
  served = await serveApp(app)
  client = new Client({ name: 'mcp-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.baseUrl}/mcp`)))
}, 60_000)

afterAll(async () => {
  await client?.close()
  await served?.close()
  await reader?.close()
  await storage?.close()
  await devnet?.stop()
})

const call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  client.callTool({
    name,
    arguments: args,
    ...(meta ? { _meta: meta } : {}),
  }) as Promise<CallToolResult>

describe('tools', () => {
  it('lists the seven free tools and the paid one, each with a description and a JSON schema', async () => {
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
    const preflight = tools.find((t) => t.name === 'preflight_transaction')!
    expect(preflight.description).toMatch(/never broadcasts/)
    expect(preflight.inputSchema).toMatchObject({
      type: 'object',
      required: ['from', 'to', 'data'],
      additionalProperties: false,
    })
    expect(tools.find((t) => t.name === 'paid_preflight_transaction')?.description).toMatch(
      /x402\/payment/,
    )
  })

  it('answers a plain JSON-RPC POST without a session (stateless); GET is 405', async () => {
    const res = await fetch(`${served.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { result: { tools: { name: string }[] } }
    expect(body.result.tools).toHaveLength(8)
    expect((await fetch(`${served.baseUrl}/mcp`)).status).toBe(405)
    const discovery = (await (await fetch(`${served.baseUrl}/.well-known/x402`)).json()) as {
      mcp: unknown
    }
    expect(discovery.mcp).toEqual({ url: `${served.baseUrl}/mcp`, transport: 'streamable-http' })
  })

  it('calls each free tool', async () => {
    const tx = await call('preflight_transaction', { ...BAZAAR_INPUT_EXAMPLE })
    expect(tx.isError).toBeFalsy()
    expect(tx.structuredContent).toMatchObject({ verdict: 'sign', environment: 'devnet' })
    expect(JSON.parse((tx.content[0] as { text: string }).text)).toEqual(tx.structuredContent)

    const bundle = await call('preflight_bundle', {
      transactions: [{ ...BAZAAR_INPUT_EXAMPLE, chainId: undefined }].map(
        ({ chainId: _c, ...t }) => t,
      ),
    })
    expect(bundle.isError).toBeFalsy()
    expect(bundle.structuredContent).toMatchObject({ verdict: 'sign' })

    const typed = await call('preflight_typed_data', {
      signer: BAZAAR_INPUT_EXAMPLE.from,
      typedData: {
        domain: USDC_DOMAIN,
        types: TRANSFER_WITH_AUTHORIZATION_TYPES,
        primaryType: 'TransferWithAuthorization',
        message: {
          from: BAZAAR_INPUT_EXAMPLE.from,
          to: PAY_TO,
          value: '10000',
          validAfter: '0',
          validBefore: String(Math.floor(Date.now() / 1000) + 300),
          nonce: `0x${'11'.repeat(32)}`,
        },
      },
    })
    expect(typed.isError).toBeFalsy()
    expect(typed.structuredContent).toHaveProperty('verdict')

    // Clearing a delegation, for an account that never sent anything (nonce 0): no probe.
    const authorization = await call('preflight_authorization', {
      authority: '0x1111111111111111111111111111111111111111',
      authorization: {
        address: '0x0000000000000000000000000000000000000000',
        chainId: '0x2105',
        nonce: '0x0',
      },
    })
    expect(authorization.isError).toBeFalsy()
    expect(authorization.structuredContent).toMatchObject({
      verdict: 'sign',
      findings: [{ id: 'authorization-clears-delegation' }, { id: 'authorization-unsigned' }],
    })

    const page = await call('public_page_evidence', { url: 'https://example.com/' })
    expect(page.isError).toBeFalsy()
    expect(page.structuredContent).toMatchObject({ sourceUrl: 'https://example.com/' })
    expect(reader.received.at(-1)?.url).toBe('https://example.com/')
  })

  it('validates inputs as strictly as the HTTP routes: an extra property is an error', async () => {
    const result = await call('preflight_transaction', { ...BAZAAR_INPUT_EXAMPLE, gas: '0x1' })
      .then((r) => r)
      .catch((error: unknown) => ({ isError: true, thrown: String(error) }))
    expect(result.isError).toBe(true)
    const unsafe = await call('public_page_evidence', { url: 'http://169.254.169.254/' })
    expect(unsafe.isError).toBe(true)
    expect(unsafe.structuredContent).toMatchObject({ error: 'unsafe_url' })
  })
})

describe('the paid tool under the x402 MCP convention', () => {
  it('asks for payment, settles one payment once, returns the receipt, and replays it free', async () => {
    const account = await fundedPayer(devnet.rpcUrl)
    const args = { ...BAZAAR_INPUT_EXAMPLE, from: account.address }
    const unpaid = await call('paid_preflight_transaction', args)
    expect(unpaid.isError).toBe(true)
    const required = unpaid.structuredContent as unknown as PaymentRequired
    expect(required).toMatchObject({ x402Version: 2, error: 'payment_missing' })
    expect(required.accepts[0]).toMatchObject({ scheme: 'exact', amount: '10000', payTo: PAY_TO })
    expect(JSON.parse((unpaid.content[0] as { text: string }).text)).toEqual(required)

    const payment = await new x402Client()
      .register(
        'eip155:8453',
        new ExactEvmScheme(
          toClientEvmSigner(account, createPublicClient({ transport: http(devnet.rpcUrl) })),
        ),
      )
      .createPaymentPayload(required)
    const [before] = await usdcBalances(rpc, PAY_TO)
    const paid = await call('paid_preflight_transaction', args, { 'x402/payment': payment })
    expect(paid.isError).toBeFalsy()
    const answer = paid.structuredContent as Record<string, any>
    expect(answer.result.verdict).toBe('sign')
    expect(answer.receipt.type).toBe('PRE_SEND_PROOF_RECEIPT')
    const settlement = paid._meta?.['x402/payment-response'] as SettleResponse
    expect(settlement).toMatchObject({ success: true, network: 'eip155:8453' })
    expect(answer.receipt.settlementTx).toBe(settlement.transaction)

    // The same payment again: the stored answer, no second settlement.
    const replay = await call('paid_preflight_transaction', args, { 'x402/payment': payment })
    expect(replay.isError).toBeFalsy()
    expect((replay.structuredContent as Record<string, any>).receipt.id).toBe(answer.receipt.id)
    const nonce = (payment.payload as { authorization: { nonce: `0x${string}` } }).authorization
      .nonce
    expect(await settlementsOf(rpc, account.address, nonce)).toEqual([settlement.transaction])
    const [after] = await usdcBalances(rpc, PAY_TO)
    expect(after! - before!).toBe(10_000n)

    // The receipt sits in the same ledger the HTTP route uses.
    const stored = await fetch(`${served.baseUrl}/receipts/${answer.receipt.id}`)
    expect(stored.status).toBe(200)
  })

  it('answers a payment the route refuses with a PaymentRequired naming the reason', async () => {
    const refused = await call(
      'paid_preflight_transaction',
      { ...BAZAAR_INPUT_EXAMPLE },
      { 'x402/payment': { x402Version: 2, nonsense: true } },
    )
    expect(refused.isError).toBe(true)
    expect(refused.structuredContent).toMatchObject({ x402Version: 2, error: 'payment_malformed' })
  })
})
