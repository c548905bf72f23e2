import type { OpenAPIHono } from '@hono/zod-openapi'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { DiscoveryDocument } from '@pre-send-guard/client/schemas'
import { type NetworkFacts, ROUTES } from '@pre-send-guard/client/types'
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http'
import type { Context, MiddlewareHandler } from 'hono'
import { AppError } from '../errors.js'
import { jsonBody } from '../http/json-body.js'

/** x402's MCP transport keys (`specs/transports-v2/mcp.md`). */
export const X402_PAYMENT_META = 'x402/payment'
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response'

type McpModules = typeof import('@modelcontextprotocol/sdk/server/mcp.js') &
  typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js') &
  typeof import('@pre-send-guard/client/mcp')

/**
 * The MCP SDK and the client package's MCP tool set (whose module graph holds the stdio server
 * and so the SDK), loaded on the first `/mcp` call: about 10 MB of memory and a good part of
 * start-up's module loading that a service whose clients speak plain HTTP never needs.
 */
const mcpSdk = (() => {
  let loading: Promise<McpModules> | undefined
  return () => {
    loading ??= Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('@pre-send-guard/client/mcp'),
    ]).then(([mcp, transport, tools]) => ({ ...mcp, ...transport, ...tools }))
    return loading
  }
})()

/** Mounts `POST /mcp`: the MCP Streamable HTTP endpoint (stateless, JSON responses). */
export function registerMcp(
  app: OpenAPIHono,
  deps: {
    maxBodyBytes: number
    paid: boolean
    /** The served network: the tools take its chain id, as its routes do. */
    network: NetworkFacts
    /** Whether a browser page of this `Origin` may call (requests without one always may). */
    originAllowed: (origin: string) => boolean
  },
): void {
  const [guardBody] = jsonBody(deps.maxBodyBytes)
  if (!guardBody) throw new Error('jsonBody gives its body guard')
  const guardOrigin: MiddlewareHandler = async (c, next) => {
    const origin = c.req.header('origin')
    if (origin !== undefined && !deps.originAllowed(origin)) {
      // The Origin is not quoted back: it is the caller's text, and a page's answer to itself.
      throw new AppError(
        'origin_not_allowed',
        `a browser page of this Origin may not call ${ROUTES.mcp}: only the service's own public origin (PUBLIC_BASE_URL), MCP_ALLOWED_ORIGINS and, on the devnet, loopback pages; MCP clients that are not pages send no Origin`,
      )
    }
    await next()
  }
  app.post(ROUTES.mcp, guardOrigin, guardBody, async (c) => {
    const sdk = await mcpSdk()
    const server = mcpServer(sdk, c, app, deps.paid, deps.network)
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
    app.on(method, ROUTES.mcp, () => {
      throw new AppError(
        'method_not_allowed',
        `${method} ${ROUTES.mcp} is not served: POST JSON-RPC`,
      )
    })
  }
}

/**
 * An MCP server for one request. Each tool calls the service's own HTTP route in process,
 * through every middleware (body bounds, rate limits, metrics): same validation, same ledger,
 * replay rules and receipts as an HTTP client gets.
 */
function mcpServer(
  { McpServer: Server, guardMcpServerInfo, guardTools }: McpModules,
  c: Context,
  app: OpenAPIHono,
  paid: boolean,
  network: NetworkFacts,
): McpServer {
  // The client package's tool set and version: the stdio server lists the very same.
  const server = new Server(guardMcpServerInfo())
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
  for (const tool of guardTools('x402-meta', network)) {
    const config = {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations,
    }
    if (tool.name === 'guard_status') {
      server.registerTool(tool.name, config, async () =>
        statusResult(await app.fetch(new Request(new URL(ROUTES.discovery, c.req.url)), c.env)),
      )
    } else if (tool.name === 'paid_preflight_transaction') {
      if (!paid) continue
      server.registerTool(tool.name, config, async (args, extra) => {
        // `fresh` is the stdio server's (it pays, and may replay); here the payment decides.
        const { fresh: _fresh, ...body } = args as Record<string, unknown>
        const payment = extra._meta?.[X402_PAYMENT_META]
        const headers: Record<string, string> =
          payment === undefined
            ? {}
            : { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payment as never) }
        return paidResult(await call(tool.path ?? '', body, headers))
      })
    } else {
      const path = tool.path
      if (!path) throw new Error(`the MCP tool ${tool.name} names no route`)
      server.registerTool(tool.name, config, async (args) => toolResult(await call(path, args)))
    }
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

/**
 * `guard_status` from discovery, in the stdio server's words: here the MCP client pays for
 * itself, so there is no payer and no spend cap.
 */
async function statusResult(res: Response): Promise<CallToolResult> {
  if (!res.ok) return toolResult(res)
  const d = (await res.json()) as DiscoveryDocument
  const value = {
    guard: new URL(d.url).origin,
    title: d.title,
    environment: d.environment,
    price: d.price,
    network: d.network,
    paidRoute: d.route,
    receiptSigner: d.receipts?.signer,
    payer: null,
  }
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value }
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
