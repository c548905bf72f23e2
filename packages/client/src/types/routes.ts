// The paths of the guard's API, declared once: the service mounts its routes on them, its
// discovery document, pages and OpenAPI document print them, and this package's client and MCP
// tools call them. A published path is API: it may be added to, never renamed.

/** The versioned prefix every free POST route shares. */
export const FREE_ROUTES_PREFIX = '/payanagent/v1/'

/** Every path of the guard's API (OpenAPI templates: `{id}` is a path parameter). */
export const ROUTES = {
  /** `GET`: the discovery document (x402 v2 offer, free routes, receipts, MCP). */
  discovery: '/.well-known/x402',
  /** `GET`: the OpenAPI 3.1 document of every route. */
  openapi: '/openapi.json',
  /** `POST`: the same tools over MCP (Streamable HTTP). */
  mcp: '/mcp',
  /** `POST`: the read-only transaction preflight (free). */
  transactionPreflight: `${FREE_ROUTES_PREFIX}base-transaction-preflight`,
  /** `POST`: 1-8 transactions in order at one block (free). */
  bundlePreflight: `${FREE_ROUTES_PREFIX}base-bundle-preflight`,
  /** `POST`: EIP-712 typed data before it is signed (free). */
  typedDataPreflight: `${FREE_ROUTES_PREFIX}base-typed-data-preflight`,
  /** `POST`: an EIP-7702 authorization, with a probe of the delegate (free). */
  authorizationPreflight: `${FREE_ROUTES_PREFIX}base-authorization-preflight`,
  /** `POST`: an ERC-4337 user operation (free). */
  userOperationPreflight: `${FREE_ROUTES_PREFIX}base-user-operation-preflight`,
  /** `POST`: one public URL as bounded, hashed markdown (free). */
  evidence: `${FREE_ROUTES_PREFIX}public-page-evidence`,
  /** `POST`: the transaction preflight sold under x402 v2, with a signed receipt. */
  paidTransactionPreflight: '/simulate/transaction-preflight',
  /** `GET`: a stored proof receipt by id. */
  receipt: '/receipts/{id}',
  /** `GET`: the receipt of a settled payment, by its EIP-3009 authorization. */
  receiptByAuthorization: '/receipts/by-authorization/{payer}/{nonce}',
} as const

/** One path of {@link ROUTES}. */
export type RoutePath = (typeof ROUTES)[keyof typeof ROUTES]

/** The parameter names of a path template: `'/receipts/{id}'` gives `'id'`. */
export type RouteParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | RouteParams<Rest>
  : never

/**
 * A path template with its parameters filled in, each URI-encoded.
 *
 * @example
 * routePath(ROUTES.receipt, { id: 'rcpt_1' }) // '/receipts/rcpt_1'
 */
export function routePath<P extends string>(
  template: P,
  params: Record<RouteParams<P>, string>,
): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent((params as Record<string, string>)[name] ?? ''),
  )
}
