import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { formatUnits, type LocalAccount, parseUnits } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { PreSendGuardBaseError } from '../client/base-error.js'
import { DEFAULT_MAX_PAYMENT } from '../client/check-challenge.js'
import { createGuardClient } from '../client/guard-client.js'
import { GuardError } from '../client/guard-error.js'
import type { Discovery } from '../client/guard-responses.js'
import type { GuardClient, TransactionRequest } from '../client/guard-types.js'
import { verifyOfferReceipt } from '../client/verify-offer-receipt.js'
import { canonicalJson, verifyReceipt } from '../client/verify-receipt.js'
import { isBytes32Text } from '../types/hex.js'
import { DEFAULT_NETWORK, type NetworkFacts, networkById } from '../types/networks.js'
import { type GuardTool, guardMcpServerInfo, guardTools } from './guard-tools.js'

/** The guard the server calls when none is configured: `npm start`'s address. */
export const DEFAULT_GUARD_URL = 'http://127.0.0.1:8402'
/** Total the server may spend per process when no cap is set: $0.05, five paid checks. */
export const DEFAULT_SPEND_CAP = 50_000n

/** Options of {@link createGuardMcpServer}. */
export interface GuardMcpOptions {
  /** The guard's origin. */
  guardUrl: string
  /** Who pays for paid checks (only its address and `signTypedData` are used). */
  payer?: Pick<LocalAccount, 'address' | 'signTypedData'> | undefined
  /** Most the server may spend in total, USDC atomic units (6 decimals). */
  spendCap: bigint
  /** Most one paid check may cost, USDC atomic units. Default 10000 ($0.01). */
  maxPayment?: bigint
  fetch?: typeof globalThis.fetch
  /**
   * A configuration that could not be used (see {@link optionsFromEnv}). The server still
   * starts, so that an MCP client shows the reason instead of a closed connection: every tool
   * answers with it as an error (`isError`, `error: "GuardMcpConfigError"`).
   */
  configError?: GuardMcpConfigError | undefined
}

/** A configuration that cannot be used (bad key, bad cap, bad URL): the server does not start. */
export class GuardMcpConfigError extends PreSendGuardBaseError {
  override name = 'GuardMcpConfigError'
}

/**
 * The server's options from its command line and environment: `--url`, else `PRE_SEND_GUARD_URL`, else
 * {@link DEFAULT_GUARD_URL}), `BUYER_PRIVATE_KEY` (the payer; without it the paid tool refuses),
 * `PRE_SEND_GUARD_SPEND_CAP` (dollars of USDC this process may spend, default 0.05). The key is
 * never echoed, not even in an error.
 */
export function optionsFromEnv(
  env: Record<string, string | undefined>,
  argv: string[] = [],
): GuardMcpOptions {
  const urlFlag = argv.indexOf('--url')
  const guardUrl =
    (urlFlag >= 0 ? argv[urlFlag + 1] : undefined) ??
    env.PRE_SEND_GUARD_URL?.trim() ??
    DEFAULT_GUARD_URL
  try {
    new URL(guardUrl)
  } catch {
    throw new GuardMcpConfigError(`the guard URL is not a URL: ${JSON.stringify(guardUrl)}`)
  }
  const capText = env.PRE_SEND_GUARD_SPEND_CAP?.trim()
  let spendCap = DEFAULT_SPEND_CAP
  if (capText) {
    if (!/^[0-9]+(\.[0-9]{1,6})?$/.test(capText)) {
      throw new GuardMcpConfigError(
        'PRE_SEND_GUARD_SPEND_CAP is dollars of USDC, e.g. "0.05" (at most 6 decimals)',
      )
    }
    spendCap = parseUnits(capText, 6)
  }
  const key = env.BUYER_PRIVATE_KEY?.trim()
  let payer: GuardMcpOptions['payer']
  if (key) {
    if (!isBytes32Text(key)) {
      throw new GuardMcpConfigError('BUYER_PRIVATE_KEY is not a 0x-prefixed 32-byte hex key')
    }
    try {
      payer = privateKeyToAccount(key)
    } catch {
      throw new GuardMcpConfigError('BUYER_PRIVATE_KEY is not a valid secp256k1 private key')
    }
  }
  return { guardUrl: guardUrl.replace(/\/+$/, ''), payer, spendCap }
}

/**
 * The stdio MCP server of the client package (`pre-send-guard-mcp`): a desktop agent's tools for
 * one guard. The free tools call the guard's free routes; `paid_preflight_transaction` pays
 * with the configured payer through the client's paid call (the 402 is checked against
 * discovery before anything is signed), within a spend cap counted over the process.
 */
export function createGuardMcpServer(options: GuardMcpOptions): McpServer {
  const guard: GuardClient = createGuardClient({
    baseUrl: options.guardUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.payer ? { payer: { account: options.payer } } : {}),
    maxPayment: options.maxPayment ?? DEFAULT_MAX_PAYMENT,
  })
  let spent = 0n
  /** Payments made per transaction (canonical JSON): a repeat resumes, never pays again. */
  const payments = new Map<string, string>()
  let discovery: Promise<Discovery> | undefined
  // Set below, once the tools are registered: a discovery also lists them for its network.
  let discover: () => Promise<Discovery> = () => guard.discovery()
  const spend = () => ({
    spentUsdc: formatUnits(spent, 6),
    capUsdc: formatUnits(options.spendCap, 6),
    remainingUsdc: formatUnits(options.spendCap - spent, 6),
  })

  const handlers: Record<string, (input: Record<string, unknown>) => Promise<CallToolResult>> = {
    guard_status: () =>
      run(async () => {
        const d = await discover()
        return {
          guard: options.guardUrl,
          title: d.title,
          environment: d.environment,
          price: d.price,
          network: d.network,
          paidRoute: d.route,
          receiptSigner: d.receipts?.signer,
          payer: options.payer?.address ?? null,
          ...spend(),
        }
      }),
    preflight_transaction: (input) => run(() => guard.preflight(parsed<TransactionRequest>(input))),
    preflight_bundle: (input) => run(() => guard.bundlePreflight(parsed(input))),
    preflight_typed_data: (input) => run(() => guard.typedDataPreflight(parsed(input))),
    preflight_authorization: (input) => run(() => guard.authorizationPreflight(parsed(input))),
    preflight_user_operation: (input) => run(() => guard.userOperationPreflight(parsed(input))),
    public_page_evidence: (input) =>
      run(() => {
        const { url, max_chars } = parsed<{ url: string; max_chars?: number }>(input)
        return guard.evidence(url, max_chars)
      }),
    paid_preflight_transaction: ({ fresh, ...tx }) =>
      run(
        async () => {
          if (!options.payer) {
            throw new GuardMcpConfigError(
              'no payer configured: start the server with BUYER_PRIVATE_KEY set to pay for checks',
            )
          }
          const d = await discover()
          const key = canonicalJson(tx)
          const earlier = fresh === true ? undefined : payments.get(key)
          const price = BigInt(d.amount ?? options.maxPayment ?? DEFAULT_MAX_PAYMENT)
          if (earlier === undefined && spent + price > options.spendCap) {
            throw new PreSendGuardBaseError(
              `spend cap reached: this check costs ${formatUnits(price, 6)} USDC and ${formatUnits(options.spendCap - spent, 6)} of ${formatUnits(options.spendCap, 6)} USDC is left; nothing was paid`,
            )
          }
          if (earlier === undefined) spent += price
          let paid: Awaited<ReturnType<GuardClient['paidPreflight']>>
          try {
            paid = await guard.paidPreflight(parsed<TransactionRequest>(tx), {
              discovery: d,
              ...(earlier ? { paymentSignature: earlier } : {}),
            })
          } catch (error) {
            const signature = error instanceof GuardError ? error.paymentSignature : undefined
            if (signature !== undefined && (error as GuardError).paymentPending) {
              // It may have been charged: keep it counted, and resume with it next time.
              payments.set(key, signature)
            } else if (earlier === undefined) {
              spent -= price
            }
            throw error
          }
          payments.set(key, paid.paymentSignature)
          const receipt = await verifyReceipt(paid.receipt, d, {
            request: paid.request,
            result: paid.result,
            settlementTx: paid.settlement.transaction,
            ...(paid.payer ? { payer: paid.payer } : {}),
          })
          const offer = await verifyOfferReceipt(paid.settlement, d, { payer: paid.payer })
          const verified = receipt.valid && offer.valid
          return {
            verified,
            verdict: paid.result.verdict,
            findings: paid.result.findings,
            replayed: earlier !== undefined,
            result: paid.result,
            receipt: paid.receipt,
            receiptVerification: { valid: receipt.valid, failed: failed(receipt.checks) },
            offerReceipt: offer.receipt ?? null,
            offerReceiptVerification: { valid: offer.valid, failed: failed(offer.checks) },
            settlement: {
              transaction: paid.settlement.transaction,
              network: paid.settlement.network,
              payer: paid.payer ?? null,
            },
            ...spend(),
          }
        },
        (value) => value.verified === false,
      ),
  }

  const server = new McpServer(guardMcpServerInfo())
  // Listed first for Base mainnet, the default; once discovery names the guard's network (asked
  // now, and by any tool that reads it), the tools are listed again for that network (the SDK
  // tells the client the list changed), so their chain ids are the guard's.
  let listedFor: NetworkFacts = DEFAULT_NETWORK
  let registered = registerAll(server, guardTools('configured-payer'), handlers, options)
  const follow = (d: Discovery) => {
    const network = networkById(d.network)
    if (network === undefined || network.id === listedFor.id) return
    listedFor = network
    for (const tool of registered) tool.remove()
    registered = registerAll(server, guardTools('configured-payer', network), handlers, options)
  }
  discover = () => {
    discovery ??= guard.discovery().then(
      (d) => {
        follow(d)
        return d
      },
      (error: unknown) => {
        discovery = undefined
        throw error
      },
    )
    return discovery
  }
  if (!options.configError) discover().catch(() => undefined)
  return server
}

/** Registers every tool of `tools` with its handler (or the configuration error). */
function registerAll(
  server: McpServer,
  tools: GuardTool[],
  handlers: Record<string, (input: Record<string, unknown>) => Promise<CallToolResult>>,
  options: GuardMcpOptions,
): RegisteredTool[] {
  return tools.map((tool) => {
    const handler = handlers[tool.name]
    if (!handler) throw new Error(`no handler for the MCP tool ${tool.name}`)
    return register(server, tool, (input) =>
      options.configError ? run(() => Promise.reject(options.configError)) : handler(input),
    )
  })
}

/**
 * A tool's input as its handler takes it: the SDK has parsed it with the tool's input schema,
 * the route's own request schema, before the handler runs.
 */
function parsed<T>(input: Record<string, unknown>): T {
  return input as unknown as T
}

/** Registers one tool of the shared set with its handler. */
function register(
  server: McpServer,
  tool: GuardTool,
  handler: (input: Record<string, unknown>) => Promise<CallToolResult>,
): RegisteredTool {
  return server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations,
    },
    (input: Record<string, unknown>) => handler(input),
  )
}

function failed(checks: { name: string; ok: boolean; detail: string }[]): string[] {
  return checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)
}

/**
 * A tool's answer: the value as structured content and as JSON text, or the error for a model to
 * read (`isError`), with the guard's code and, when a payment left, that it may be resumed.
 */
async function run<T extends Record<string, unknown>>(
  step: () => Promise<T>,
  isError: (value: T) => boolean = () => false,
): Promise<CallToolResult> {
  try {
    const value = await step()
    return {
      content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
      structuredContent: value,
      ...(isError(value) ? { isError: true } : {}),
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const code = error instanceof GuardError ? error.code : undefined
    const issues = error instanceof GuardError && error.issues.length > 0 ? error.issues : undefined
    const detail = {
      error: code ?? (error instanceof PreSendGuardBaseError ? error.name : 'error'),
      message,
      ...(issues ? { issues } : {}),
      ...(error instanceof GuardError && error.paymentPending
        ? { paymentPending: true, hint: 'call again with the same input: the payment is resumed' }
        : {}),
    }
    return { content: [{ type: 'text', text: JSON.stringify(detail, null, 2) }], isError: true }
  }
}
