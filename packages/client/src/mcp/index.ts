/**
 * `@pre-send-guard/client/mcp`: the stdio MCP server (`pre-send-guard-mcp`) as a function, to
 * embed in another process or serve over another MCP transport, and the one tool set it shares
 * with the guard's own `POST /mcp` endpoint.
 */
export {
  type GuardTool,
  guardMcpServerInfo,
  guardTools,
  type PaidToolPayment,
  type PaidTransactionRequest,
  PaidTransactionRequestSchema,
} from './guard-tools.js'
export {
  createGuardMcpServer,
  DEFAULT_GUARD_URL,
  DEFAULT_SPEND_CAP,
  GuardMcpConfigError,
  type GuardMcpOptions,
  optionsFromEnv,
} from './server.js'
export {
  BundleInputSchema,
  PaidInputSchema,
  TransactionInputSchema,
  TypedDataInputSchema,
} from './tool-schemas.js'
