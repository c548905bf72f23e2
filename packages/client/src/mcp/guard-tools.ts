import { createRequire } from 'node:module'
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { requestSchemasOn, TransactionRequestSchema } from '../schemas/requests.js'
import { DEFAULT_NETWORK, type NetworkFacts } from '../types/networks.js'
import { ROUTES } from '../types/routes.js'

// The one MCP tool set of Pre-Send Guard. Both MCP servers register exactly these tools, with
// these names, words and input schemas: the stdio server of this package (`pre-send-guard-mcp`,
// which calls a guard over HTTP and pays with a configured key) and the guard's own Streamable
// HTTP endpoint (`POST /mcp`, which calls its routes in process and takes payment under x402's
// MCP convention). The input schemas are the routes' own request schemas on the guard's network
// (`requestSchemasOn`), so a tool accepts exactly what its route accepts. Only how the paid tool
// is paid differs, and its description says so for each server.

/** One tool: its name, the words a model reads, its input schema and the route it asks. */
export interface GuardTool {
  name: string
  title: string
  description: string
  inputSchema: z.ZodType<Record<string, unknown>>
  annotations: ToolAnnotations
  /** The guard route the tool asks (absent for `guard_status`, which reads discovery). */
  path?: string
}

/** How a server takes payment for `paid_preflight_transaction`. */
export type PaidToolPayment = 'configured-payer' | 'x402-meta'

/** The paid tool's input: the transaction route's body and whether a repeat may be paid again. */
export const PaidTransactionRequestSchema = TransactionRequestSchema.extend({
  fresh: z.boolean().optional().meta({
    description:
      'Only where the server pays for you (pre-send-guard-mcp): by default the same transaction asked again in this session is answered with the payment already made (no second charge); true pays again for a new check at the latest block. Where you pay (x402/payment in _meta) a new payment is always a new check and this field changes nothing.',
  }),
})
export type PaidTransactionRequest = z.input<typeof PaidTransactionRequestSchema>

/** The paid tool's input on `network`: {@link PaidTransactionRequestSchema} on Base mainnet. */
function paidTransactionRequestOn(network: NetworkFacts): typeof PaidTransactionRequestSchema {
  if (network.chainIdHex === DEFAULT_NETWORK.chainIdHex) return PaidTransactionRequestSchema
  // Typed as mainnet's: only the literal chain id differs, and nothing reads its type.
  return PaidTransactionRequestSchema.extend({
    chainId: requestSchemasOn(network).transaction.shape.chainId,
  }) as unknown as typeof PaidTransactionRequestSchema
}

const readOnly: ToolAnnotations = { readOnlyHint: true, openWorldHint: true }

const PAID_DESCRIPTION =
  'The same preflight as preflight_transaction, sold for $0.01 USDC on Base under x402 v2, and answered with a PRE_SEND_PROOF_RECEIPT: an EIP-712 signature binding the request, the result and the settlement transaction (verify it with the signer the guard publishes in /.well-known/x402); the settlement also carries the standard x402 offer-receipt receipt. Use it when you need proof of what the guard said.'

const PAYMENT_WORDS: Record<PaidToolPayment, string> = {
  'configured-payer':
    'This server pays with the key it was configured with and verifies both receipts before it answers (verified, receiptVerification, offerReceiptVerification). It never pays more than its spend cap for this session (see guard_status). The same transaction asked again is answered from the payment already made, never charged twice, unless fresh is true.',
  'x402-meta':
    'Called without payment it fails (isError) with the x402 PaymentRequired object as structuredContent; sign the offer in `accepts` (exact scheme, EIP-3009 authorization) and call again with the PaymentPayload in params._meta["x402/payment"]. The settlement comes back in _meta["x402/payment-response"]. Calling again with the same payment returns the same answer and is never charged twice.',
}

/**
 * Every tool both MCP servers serve, in the order they list them, for a guard on `network`
 * (default Base mainnet): the input schemas accept that network's chain id only, as its routes
 * do, and the descriptions name it.
 */
export function guardTools(
  payment: PaidToolPayment,
  network: NetworkFacts = DEFAULT_NETWORK,
): GuardTool[] {
  const bodies = requestSchemasOn(network)
  // Mainnet's words stay as they were: "Base" is Base mainnet.
  const chain = network.chainIdHex === DEFAULT_NETWORK.chainIdHex ? 'Base' : network.label
  return [
    {
      name: 'guard_status',
      title: 'What the guard sells, and who pays here (free)',
      description:
        'Reads the guard this server asks: its title, the paid check price and network, the receipt signer it publishes, whether it runs on a devnet or mainnet, who pays for paid checks here (payer; null when you pay yourself), and, where this server pays, how much of its spend cap is left. Call it first when unsure which tools can be used.',
      inputSchema: z.strictObject({}),
      annotations: readOnly,
    },
    {
      name: 'preflight_transaction',
      title: 'Preflight a Base transaction before signing it (free)',
      description: `Before signing an EVM transaction on ${chain} (chain id ${network.chainIdHex}): simulates it at the latest block (never broadcasts) and answers whether it reverts (with the decoded reason), the gas and the total cost in wei (L2 execution + L1 data fee), what it does to balances and approvals (effects), and a verdict: sign, review or block, with findings that explain each risk. Input: from, to, data (0x-hex calldata; "0x" for none), optional value (hex wei) and chainId ("${network.chainIdHex}"). No other fields are accepted. Do not sign when the verdict is block; ask a person when it is review.`,
      inputSchema: bodies.transaction,
      annotations: readOnly,
      path: ROUTES.transactionPreflight,
    },
    {
      name: 'preflight_bundle',
      title: 'Preflight 1-8 Base transactions in order (free)',
      description:
        "Simulates 1 to 8 transactions in order in one block (approve, then swap: each sees the state the earlier left), optionally under state overrides (balance, nonce, code, storage by address; answers under overrides are marked hypothetical) and with EIP-7702 authorization lists. Answers each transaction's verdict, findings, gas, fees and effects, the net effects per sender, and one overall verdict (the worst).",
      inputSchema: bodies.bundle,
      annotations: readOnly,
      path: ROUTES.bundlePreflight,
    },
    {
      name: 'preflight_typed_data',
      title: 'Screen EIP-712 typed data before signing it (free)',
      description:
        'Before signing eth_signTypedData_v4 data (permits, Permit2, orders, EIP-3009 authorizations): checks the typed data is well formed and says what signing it allows (who may spend what, until when), with a verdict sign, review or block and findings. Signs nothing.',
      inputSchema: bodies.typedData,
      annotations: readOnly,
      path: ROUTES.typedDataPreflight,
    },
    {
      name: 'preflight_authorization',
      title: 'Judge an EIP-7702 authorization before signing or sending it (free)',
      description:
        "Before signing (or sending) an EIP-7702 authorization that delegates an account's code: checks the signer, chain id and nonce, and probes the delegate's behaviour in a simulation (does incoming ETH leave the account; can a stranger or an address hard-coded in the delegate move its assets). Verdict sign (a recognised wallet delegate, or clearing with the zero address), review (unknown delegate, chain id 0, replacing a delegation, a nonce the chain would skip) or block (sweeper, open executor, hard-coded operator, no code, wrong signer). Input: authority, authorization {address, chainId, nonce, optional yParity/r/s} in JSON-RPC hex form. Signs and sends nothing.",
      inputSchema: bodies.authorization,
      annotations: readOnly,
      path: ROUTES.authorizationPreflight,
    },
    {
      name: 'preflight_user_operation',
      title: 'Screen an ERC-4337 user operation before sending it to a bundler (free)',
      description:
        'Before sending an ERC-4337 user operation (eth_sendUserOperation) from a smart account: simulates it through its canonical EntryPoint (v0.6 execution only; v0.7/v0.8 with validation, prefund and paymaster) at the latest Base block and screens every call the account makes (execute, executeBatch, ERC-7821 batches) with the account as sender. Input: entryPoint and userOperation in the JSON-RPC form eth_sendUserOperation takes (hex quantities); gas fields and signature may be omitted (a stub signature is simulated). Answers a verdict sign, review or block with findings, the operation hash, validation, prefund, execution, decoded calls and asset effects. Sends nothing.',
      inputSchema: bodies.userOperation,
      annotations: readOnly,
      path: ROUTES.userOperationPreflight,
    },
    {
      name: 'public_page_evidence',
      title: 'Read one public web page as hashed evidence (free)',
      description:
        'Reads one public http(s) URL (never a private or local address) and returns its main content as bounded markdown with a SHA-256 hash, to keep as evidence of what a page said (a contract address on a project page, say).',
      inputSchema: bodies.evidence,
      annotations: readOnly,
      path: ROUTES.evidence,
    },
    {
      name: 'paid_preflight_transaction',
      title: 'Paid preflight with signed receipts ($0.01 USDC, x402)',
      description: `${PAID_DESCRIPTION} ${PAYMENT_WORDS[payment]}`,
      inputSchema: paidTransactionRequestOn(network),
      annotations: { readOnlyHint: false, openWorldHint: true, idempotentHint: true },
      path: ROUTES.paidTransactionPreflight,
    },
  ]
}

/**
 * The name and version both MCP servers announce: this package's, read from its package.json
 * (through the package's own name, so it resolves wherever the code was bundled or installed).
 */
export function guardMcpServerInfo(): { name: string; version: string } {
  const manifest = createRequire(import.meta.url)('@pre-send-guard/client/package.json') as {
    version: string
  }
  return { name: 'pre-send-guard', version: manifest.version }
}
