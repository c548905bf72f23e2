import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { formatUnits, type Hex, type LocalAccount, parseUnits } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { PreSendGuardBaseError } from '../client/base-error.js'
import { DEFAULT_MAX_PAYMENT } from '../client/check-challenge.js'
import { createGuardClient } from '../client/guard-client.js'
import { GuardError } from '../client/guard-error.js'
import type { Discovery } from '../client/guard-responses.js'
import type { GuardClient, TransactionRequest } from '../client/guard-types.js'
import { verifyOfferReceipt } from '../client/verify-offer-receipt.js'
import { canonicalJson, verifyReceipt } from '../client/verify-receipt.js'
import {
  AuthorizationRequestSchema,
  BundleInputSchema,
  PaidInputSchema,
  TransactionInputSchema,
  TypedDataInputSchema,
  UserOperationRequestSchema,
} from './tool-schemas.js'

/** The guard the server calls when none is configured: `npm start`'s address. */
export const DEFAULT_GUARD_URL = 'http://127.0.0.1:8402'
/** Total the server may spend per process when no cap is set: $0.05, five paid checks. */
export const DEFAULT_SPEND_CAP = 50_000n
const VERSION = '1.0.0'

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
    if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
      throw new GuardMcpConfigError('BUYER_PRIVATE_KEY is not a 0x-prefixed 32-byte hex key')
    }
    try {
      payer = privateKeyToAccount(key as Hex)
    } catch {
      throw new GuardMcpConfigError('BUYER_PRIVATE_KEY is not a valid secp256k1 private key')
    }
  }
  return { guardUrl: guardUrl.replace(/\/+$/, ''), payer, spendCap }
}

const PAID_DESCRIPTION =
  'The same preflight as preflight_transaction, paid ($0.01 USDC on Base, x402) with the key this server was configured with, and answered with two signed receipts: the PRE_SEND_PROOF_RECEIPT (binds the request, the result and the settlement transaction) and the standard x402 offer-receipt receipt; both are verified against the signer the guard publishes before this tool answers. Use it when you need proof of what the guard said. It never pays more than the configured spend cap for this session (see guard_status). The same transaction asked again is answered from the payment already made, never charged twice, unless fresh is true.'

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
  const discover = () => {
    discovery ??= guard.discovery().catch((error: unknown) => {
      discovery = undefined
      throw error
    })
    return discovery
  }
  const spend = () => ({
    spentUsdc: formatUnits(spent, 6),
    capUsdc: formatUnits(options.spendCap, 6),
    remainingUsdc: formatUnits(options.spendCap - spent, 6),
  })

  const server = new McpServer({ name: 'pre-send-guard', version: VERSION })
  server.registerTool(
    'guard_status',
    {
      title: 'What the guard sells and what this session may still spend (free)',
      description:
        'Reads the guard this server is configured for: its title, the paid check price and network, the receipt signer it publishes, whether it runs on a devnet or mainnet, who pays for paid checks here, and how much of the spend cap is left. Call it first when unsure which tools can be used.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    () =>
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
  )
  server.registerTool(
    'preflight_transaction',
    {
      title: 'Preflight a Base transaction before signing it (free)',
      description:
        'Before signing an EVM transaction on Base: simulates it at the latest block (never broadcasts) and answers whether it reverts (with the reason), the gas and total cost in wei, what it does to balances and approvals, and a verdict: sign, review or block, with findings explaining each risk. Do not sign when the verdict is block; ask a person when it is review.',
      inputSchema: TransactionInputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => run(() => guard.preflight(input as TransactionRequest)),
  )
  server.registerTool(
    'preflight_bundle',
    {
      title: 'Preflight 1-8 Base transactions in order (free)',
      description:
        'Simulates 1 to 8 transactions in order in one block (approve, then swap: each sees what the earlier left), and answers each one verdict, findings and fees, the net balance changes per sender, and one overall verdict (the worst).',
      inputSchema: BundleInputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => run(() => guard.bundlePreflight(input as never)),
  )
  server.registerTool(
    'preflight_typed_data',
    {
      title: 'Screen EIP-712 typed data before signing it (free)',
      description:
        'Before signing eth_signTypedData_v4 data (permits, Permit2, orders, EIP-3009 authorizations): says what the signature would allow (who may spend what, until when) with a verdict sign, review or block and findings. Signs nothing.',
      inputSchema: TypedDataInputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => run(() => guard.typedDataPreflight(input as never)),
  )
  server.registerTool(
    'preflight_authorization',
    {
      title: 'Screen an EIP-7702 authorization before signing or sending it (free)',
      description:
        "Before signing an EIP-7702 authorization (delegating an account's code to a contract) or sending a type-4 transaction carrying one: says whether the delegate is a recognised wallet (by code hash) or, probed with the account's ETH and a canary token, lets strangers or hard-coded addresses move the account's assets; whether the chain id and nonce fit; and a verdict sign, review or block with findings. A signed authorization's signer is recovered and compared with the authority. Signs and sends nothing. Do not sign when the verdict is block; ask a person when it is review.",
      inputSchema: AuthorizationRequestSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => run(() => guard.authorizationPreflight(input)),
  )
  server.registerTool(
    'preflight_user_operation',
    {
      title: 'Screen an ERC-4337 user operation before sending it to a bundler (free)',
      description:
        "Before sending an ERC-4337 user operation (eth_sendUserOperation) from a smart account: simulates it through its canonical EntryPoint (v0.6, v0.7 or v0.8) at the latest Base block, checking the account's signature, the paymaster, the prefund and an EIP-7702 account's eip7702Auth, and screens every call the account makes (execute, executeBatch, ERC-7821 batches) with the account as caller. Input: entryPoint and userOperation in the JSON-RPC form eth_sendUserOperation takes (hex quantities); an omitted signature is simulated with a stub. Answers a verdict sign, review or block with findings, the operation hash, validation, prefund, execution, decoded calls and asset effects. Sends nothing. Do not send when the verdict is block; ask a person when it is review.",
      inputSchema: UserOperationRequestSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => run(() => guard.userOperationPreflight(input)),
  )
  server.registerTool(
    'paid_preflight_transaction',
    {
      title: 'Paid preflight with signed receipts ($0.01 USDC, x402)',
      description: PAID_DESCRIPTION,
      inputSchema: PaidInputSchema,
      annotations: { readOnlyHint: false, openWorldHint: true, idempotentHint: true },
    },
    ({ fresh, ...tx }) =>
      run(
        async () => {
          if (!options.payer) {
            throw new GuardMcpConfigError(
              'no payer configured: start the server with BUYER_PRIVATE_KEY set to pay for checks',
            )
          }
          const d = await discover()
          const key = canonicalJson(tx)
          const earlier = fresh ? undefined : payments.get(key)
          const price = BigInt(d.amount ?? options.maxPayment ?? DEFAULT_MAX_PAYMENT)
          if (earlier === undefined && spent + price > options.spendCap) {
            throw new PreSendGuardBaseError(
              `spend cap reached: this check costs ${formatUnits(price, 6)} USDC and ${formatUnits(options.spendCap - spent, 6)} of ${formatUnits(options.spendCap, 6)} USDC is left; nothing was paid`,
            )
          }
          if (earlier === undefined) spent += price
          let paid: Awaited<ReturnType<GuardClient['paidPreflight']>>
          try {
            paid = await guard.paidPreflight(tx as TransactionRequest, {
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
            settlementTx: paid.settlement.transaction as Hex,
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
  )
  return server
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
