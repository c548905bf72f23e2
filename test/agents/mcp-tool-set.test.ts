import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BAZAAR_INPUT_EXAMPLE } from '../../src/routes/paid-route-bazaar.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * One MCP tool set and one version: the client package's stdio server (`pre-send-guard-mcp`,
 * its committed bin run by plain node) and the guard's own `POST /mcp`, both listed by the
 * official MCP SDK client, offer the same tools with the same input schemas, titles and
 * annotations, and announce the client package's version. And a stdio server started with a
 * key it cannot use still answers, with the reason, instead of closing the connection.
 */
const BIN = fileURLToPath(
  new URL('../../packages/client/bin/pre-send-guard-mcp.js', import.meta.url),
)
const CLIENT_VERSION = (
  JSON.parse(
    readFileSync(new URL('../../packages/client/package.json', import.meta.url), 'utf8'),
  ) as { version: string }
).version

let guard: ServedGuard
let http: Client
let stdio: Client
const opened: Client[] = []

/** The stdio server with `env` on top of this process's (minus any payer key of the caller). */
async function stdioClient(env: Record<string, string>, stderr: string[] = []): Promise<Client> {
  const {
    BUYER_PRIVATE_KEY: _k,
    PRE_SEND_GUARD_URL: _u,
    ...base
  } = process.env as Record<string, string>
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { ...base, ...env },
    stderr: 'pipe',
  })
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
  const client = new Client({ name: 'mcp-tool-set-test', version: '1.0.0' })
  await client.connect(transport)
  opened.push(client)
  return client
}

beforeAll(async () => {
  guard = await startServedGuard()
  http = new Client({ name: 'mcp-tool-set-test', version: '1.0.0' })
  await http.connect(new StreamableHTTPClientTransport(new URL(`${guard.baseUrl}/mcp`)))
  opened.push(http)
  stdio = await stdioClient({ PRE_SEND_GUARD_URL: guard.baseUrl })
}, 90_000)

afterAll(async () => {
  for (const client of opened) await client.close()
  await guard?.stop()
})

const byName = (tools: Tool[]) => new Map(tools.map((t) => [t.name, t]))

describe('the stdio and HTTP MCP servers', () => {
  it('list the same tools, with the same input schemas, titles and annotations', async () => {
    const [fromHttp, fromStdio] = await Promise.all([http.listTools(), stdio.listTools()])
    const httpTools = byName(fromHttp.tools)
    const stdioTools = byName(fromStdio.tools)
    expect([...httpTools.keys()]).toEqual([...stdioTools.keys()])
    expect([...httpTools.keys()].sort()).toEqual([
      'guard_status',
      'paid_preflight_transaction',
      'preflight_authorization',
      'preflight_bundle',
      'preflight_transaction',
      'preflight_typed_data',
      'preflight_user_operation',
      'public_page_evidence',
    ])
    for (const [name, tool] of httpTools) {
      const other = stdioTools.get(name)!
      expect(other.inputSchema, name).toEqual(tool.inputSchema)
      expect(other.title, name).toBe(tool.title)
      expect(other.annotations, name).toEqual(tool.annotations)
      // An object schema a model can read at once: no top-level $ref, unknown fields refused.
      expect(tool.inputSchema, name).toMatchObject({ type: 'object', additionalProperties: false })
      // Only how the paid tool is paid differs between them; every other word is shared.
      if (name === 'paid_preflight_transaction') {
        const shared = tool.description!.split('. ').slice(0, 2).join('. ')
        expect(other.description!.startsWith(shared)).toBe(true)
        expect(tool.description).toMatch(/x402\/payment/)
        expect(other.description).toMatch(/spend cap/)
      } else {
        expect(other.description, name).toBe(tool.description)
      }
    }
    // The paid tool is the transaction route's body plus `fresh`.
    expect(httpTools.get('paid_preflight_transaction')!.inputSchema.properties).toEqual({
      ...httpTools.get('preflight_transaction')!.inputSchema.properties,
      fresh: expect.objectContaining({ type: 'boolean' }),
    })
  })

  it("announce one name and the client package's version", () => {
    expect(http.getServerVersion()).toEqual({ name: 'pre-send-guard', version: CLIENT_VERSION })
    expect(stdio.getServerVersion()).toEqual({ name: 'pre-send-guard', version: CLIENT_VERSION })
  })

  it("answer guard_status alike, and both take the paid tool's fresh", async () => {
    const [a, b] = (await Promise.all([
      http.callTool({ name: 'guard_status', arguments: {} }),
      stdio.callTool({ name: 'guard_status', arguments: {} }),
    ])) as CallToolResult[]
    expect(a!.isError).toBeFalsy()
    expect(b!.isError).toBeFalsy()
    const common = {
      guard: guard.baseUrl,
      environment: 'devnet',
      network: 'eip155:8453',
      paidRoute: '/simulate/transaction-preflight',
      payer: null,
    }
    expect(a!.structuredContent).toMatchObject(common)
    expect(b!.structuredContent).toMatchObject(common)
    expect((a!.structuredContent as { price: string }).price).toBe(
      (b!.structuredContent as { price: string }).price,
    )
    // The paid tool's `fresh` is accepted by both; over HTTP without payment: the 402 offer.
    const unpaid = (await http.callTool({
      name: 'paid_preflight_transaction',
      arguments: { ...BAZAAR_INPUT_EXAMPLE, fresh: true },
    })) as CallToolResult
    expect(unpaid.isError).toBe(true)
    expect(unpaid.structuredContent).toMatchObject({ x402Version: 2, error: 'payment_missing' })
  })
})

describe('pre-send-guard-mcp with a configuration it cannot use', () => {
  it('starts, and every tool answers with the reason (the key never echoed)', async () => {
    const badKey = `0x${'ab'.repeat(31)}` // 31 bytes: not a private key
    const stderr: string[] = []
    const client = await stdioClient(
      { PRE_SEND_GUARD_URL: guard.baseUrl, BUYER_PRIVATE_KEY: badKey },
      stderr,
    )
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(8)
    for (const name of ['guard_status', 'preflight_transaction']) {
      const args = name === 'guard_status' ? {} : { ...BAZAAR_INPUT_EXAMPLE }
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult
      expect(result.isError).toBe(true)
      const text = (result.content[0] as { text: string }).text
      expect(JSON.parse(text)).toMatchObject({
        error: 'GuardMcpConfigError',
        message: expect.stringMatching(/BUYER_PRIVATE_KEY is not a 0x-prefixed 32-byte hex key/),
      })
      expect(text).not.toContain(badKey.slice(2))
    }
    // And one clear line on stderr for whoever reads the MCP client's logs.
    expect(stderr.join('')).toMatch(/^pre-send-guard-mcp: BUYER_PRIVATE_KEY is not a 0x-prefixed/m)
    expect(stderr.join('')).not.toContain(badKey.slice(2))
  })

  it('a spend cap that is not dollars is the reason too', async () => {
    const client = await stdioClient({
      PRE_SEND_GUARD_URL: guard.baseUrl,
      PRE_SEND_GUARD_SPEND_CAP: 'lots',
    })
    const result = (await client.callTool({
      name: 'guard_status',
      arguments: {},
    })) as CallToolResult
    expect(result.isError).toBe(true)
    expect((result.content[0] as { text: string }).text).toMatch(/PRE_SEND_GUARD_SPEND_CAP/)
  })
})
