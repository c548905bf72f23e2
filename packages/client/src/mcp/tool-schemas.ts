import { TransactionRequestSchema } from '../schemas/requests.js'
import { PaidTransactionRequestSchema } from './guard-tools.js'

// Names of the tool input schemas before both MCP servers shared one tool set (1.0). The tools
// now take the routes' own request schemas (`@pre-send-guard/client/schemas`).

/** @deprecated Use `TransactionRequestSchema` from `@pre-send-guard/client/schemas`. */
export const TransactionInputSchema = TransactionRequestSchema
/** @deprecated Use `PaidTransactionRequestSchema`. */
export const PaidInputSchema = PaidTransactionRequestSchema
export {
  /** @deprecated Use `BundleRequestSchema` from `@pre-send-guard/client/schemas`. */
  BundleRequestSchema as BundleInputSchema,
  /** @deprecated Use `TypedDataRequestSchema` from `@pre-send-guard/client/schemas`. */
  TypedDataRequestSchema as TypedDataInputSchema,
} from '../schemas/requests.js'
