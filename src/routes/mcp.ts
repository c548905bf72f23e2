import type { OpenAPIHono, z } from '@hono/zod-openapi'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import {
  AuthorizationRequestSchema,
  UserOperationRequestSchema,
} from '@pre-send-guard/client/schemas'
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http'
import type { Context } from 'hono'
import { PAID_PREFLIGHT_PATH } from '../domain/payment/offer.js'
import { AppError } from '../errors.js'
import { jsonBody } from '../http/json-body.js'
import { BundleRequestSchema } from './schemas/bundle-request.js'
import { EvidenceRequestSchema } from './schemas/evidence-request.js'
import { TransactionRequestSchema } from './schemas/transaction-request.js'
import { TypedDataRequestSchema } from './schemas/typed-data-request.js'

/** Where the MCP endpoint is served (Streamable HTTP, stateless). */
export const MCP_PATH = '/mcp'
/** x402's MCP transport keys (`specs/transports-v2/mcp.md`). */
export const X402_PAYMENT_META = 'x402/payment'
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response'

/** One free tool: a name, words for a model, the route's own strict schema and path. */
interface FreeTool {
  name: string
  title: string
  description: string
  schema: z.ZodType
  path: string
}

const FREE_TOOLS: FreeTool[] = [
  {
    name: 'preflight_transaction',
    title: 'Preflight a Base transaction (free)',
    description:
      'Before signing an EVM transaction on Base (chain id 0x2105): simulates it at the latest block (never broadcasts) and answers whether it reverts (with the decoded reason), the gas and the total cost in wei (L2 execution + L1 data fee), what it does to balances and approvals (effects), and a verdict: sign, review or block, with findings that explain each risk. Input: from, to, data (0x-hex calldata; "0x" for none), optional value (hex wei) and chainId ("0x2105"). No other fields are accepted.',
    schema: TransactionRequestSchema,
    path: '/payanagent/v1/base-transaction-preflight',
  },
  {
    name: 'preflight_bundle',
    title: 'Preflight a bundle of Base transactions in order (free)',
    description:
      "Simulates 1 to 8 transactions in order in one block (approve, then swap: each sees the state the earlier left), optionally under state overrides (balance, nonce, code, storage by address; answers under overrides are marked hypothetical). Answers each transaction's verdict, findings, gas, fees and effects, the net effects per sender, and one overall verdict (the worst).",
    schema: BundleRequestSchema,
    path: '/payanagent/v1/base-bundle-preflight',
  },
  {
    name: 'preflight_typed_data',
    title: 'Screen EIP-712 typed data before signing (free)',
    description:
      'Before signing eth_signTypedData_v4 data (permits, Permit2, orders, EIP-3009 authorizations): checks the typed data is well formed and says what signing it allows (who may spend what, until when), with a verdict sign, review or block and findings.',
    schema: TypedDataRequestSchema,
    path: '/payanagent/v1/base-typed-data-preflight',
  },
  {
    name: 'preflight_user_operation',
    title: 'Preflight an ERC-4337 user operation (free)',
    description:
      "Before signing or sending a smart-account user operation on Base: simulates it through its canonical EntryPoint (v0.6 execution only; v0.7/v0.8 with validation, prefund and paymaster) and answers whether validation passes, whether the account's call succeeds, what it does to balances and approvals, and a verdict sign, review or block with findings (every inner call of execute/executeBatch is judged, the account being the sender). Input: entryPoint and userOperation in the eth_sendUserOperation JSON form (hex quantities); gas fields and signature may be omitted.",
    schema: UserOperationRequestSchema,
    path: '/payanagent/v1/base-user-operation-preflight',
  },
  {
    name: 'preflight_authorization',
    title: 'Judge an EIP-7702 authorization before signing it (free)',
    description:
      "Before signing (or sending) an EIP-7702 authorization that delegates an account's code: checks the signer, chain id and nonce, and probes the delegate's behaviour in a simulation (does incoming ETH leave the account; can a stranger or an address hard-coded in the delegate move its assets). Verdict sign (a recognised wallet delegate, or clearing with the zero address), review (unknown delegate, chain id 0, replacing a delegation, a nonce the chain would skip) or block (sweeper, open executor, hard-coded operator, no code, wrong signer). Input: authority, authorization {address, chainId, nonce, optional yParity/r/s} in JSON-RPC hex form.",
    schema: AuthorizationRequestSchema,
    path: '/payanagent/v1/base-authorization-preflight',
  },
  {
    name: 'public_page_evidence',
    title: 'Read one public web page as hashed evidence (free)',
    description:
      'Reads one public http(s) URL (never a private or local address) and returns its main content as bounded markdown with a SHA-256 hash, to keep as evidence of what a page said (a contract address on a project page, say).',
    schema: EvidenceRequestSchema,
    path: '/payanagent/v1/public-page-evidence',
  },
]

const PAID_TOOL_DESCRIPTION =
  'The same preflight as preflight_transaction, sold for $0.01 USDC on Base under x402, with a PRE_SEND_PROOF_RECEIPT: an EIP-712 signature binding the request, the result and the settlement transaction (verify it with the signer in /.well-known/x402). Called without payment it fails (isError) with the x402 PaymentRequired object as structuredContent; sign the offer in `accepts` (exact scheme, EIP-3009 authorization) and call again with the PaymentPayload in params._meta["x402/payment"]. The settlement comes back in _meta["x402/payment-response"]. Calling again with the same payment returns the same answer and is never charged twice.'

/**
 * The MCP SDK, loaded on the first `/mcp` call: about 10 MB of memory and a good part of
 * start-up's module loading that a service whose clients speak plain HTTP never needs.
 */
const mcpSdk = (() => {
  let loading:
    | Promise<
        typeof import('@modelcontextprotocol/sdk/server/mcp.js') &
          typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')
      >
    | undefined
  return () => {
    loading ??= Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    ]).then(([mcp, transport]) => ({ ...mcp, ...transport }))
    return loading
  }
})()

/** Mounts `POST /mcp`: the MCP Streamable HTTP endpoint (stateless, JSON responses). */
export function registerMcp(app: OpenAPIHono, deps: { maxBodyBytes: number; paid: boolean }): void {
  const [guardBody] = jsonBody(deps.maxBodyBytes)
  if (!guardBody) throw new Error('jsonBody gives its body guard')
  app.post(MCP_PATH, guardBody, async (c) => {
    const sdk = await mcpSdk()
    const server = mcpServer(sdk.McpServer, c, app, deps.paid)
    // No sessionIdGenerator: stateless, every POST stands alone.
    const transport = new sdk.WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
    await server.connect(transport)
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: await c.req.json() })
    } finally {
      await server.close()
    }
  })
  // Stateless: no server-initiated stream and no session to end.
  for (const method of ['GET', 'DELETE'] as const) {
    app.on(method, MCP_PATH, () => {
      throw new AppError('method_not_allowed', `${method} ${MCP_PATH} is not served: POST JSON-RPC`)
    })
  }
}

/**
 * An MCP server for one request. Each tool calls the service's own HTTP route in process,
 * through every middleware (body bounds, rate limits, metrics): same validation, same ledger,
 * replay rules and receipts as an HTTP client gets.
 */
function mcpServer(
  Server: typeof McpServer,
  c: Context,
  app: OpenAPIHono,
  paid: boolean,
): McpServer {
  const server = new Server({ name: 'pre-send-guard', version: '1.2.0' })
  const call = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const url = new URL(path, c.req.url)
    const request = new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...forwarded(c), ...headers },
      body: JSON.stringify(body),
    })
    // The outer request's environment (its socket): rate limits count the MCP client itself.
    return app.fetch(request, c.env)
  }
  for (const tool of FREE_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.schema,
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async (args) => toolResult(await call(tool.path, args)),
    )
  }
  if (paid) {
    server.registerTool(
      'paid_preflight_transaction',
      {
        title: 'Paid preflight with a signed receipt ($0.01 USDC, x402)',
        description: PAID_TOOL_DESCRIPTION,
        inputSchema: TransactionRequestSchema,
        annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
      },
      async (args, extra) => {
        const payment = extra._meta?.[X402_PAYMENT_META]
        const headers: Record<string, string> =
          payment === undefined
            ? {}
            : { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payment as never) }
        return paidResult(await call(PAID_PREFLIGHT_PATH, args, headers))
      },
    )
  }
  return server
}

/** Headers of the MCP request the inner call keeps (a proxy's client address, say). */
function forwarded(c: Context): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of ['x-forwarded-for', 'x-real-ip', 'forwarded', 'x-request-id']) {
    const value = c.req.header(name)
    if (value) out[name] = value
  }
  return out
}

async function toolResult(res: Response): Promise<CallToolResult> {
  const body = (await res.json()) as Record<string, unknown>
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body,
    ...(res.ok ? {} : { isError: true }),
  }
}

/** The paid route's answer under x402's MCP convention. */
async function paidResult(res: Response): Promise<CallToolResult> {
  const settlementHeader = res.headers.get('PAYMENT-RESPONSE')
  const meta = settlementHeader
    ? { _meta: { [X402_PAYMENT_RESPONSE_META]: decodePaymentResponseHeader(settlementHeader) } }
    : {}
  const requiredHeader = res.headers.get('PAYMENT-REQUIRED')
  if (res.status === 402 && requiredHeader) {
    const paymentRequired = decodePaymentRequiredHeader(requiredHeader)
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(paymentRequired) }],
      structuredContent: paymentRequired as unknown as Record<string, unknown>,
      ...meta,
    }
  }
  return { ...(await toolResult(res)), ...meta }
}
