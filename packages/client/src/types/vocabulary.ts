/**
 * The vocabulary lists themselves (see `index.ts`, the package entry that publishes them). A
 * leaf: the answer schemas import their lists from here, while `index.ts` also re-exports a type
 * declared with the schemas, so importing the entry from a schema would be a circle.
 */

/** What a preflight advises: sign it, have it reviewed, or do not sign it. */
export const VERDICTS = ['sign', 'review', 'block'] as const
export type Verdict = (typeof VERDICTS)[number]

/** How bad a finding is: `critical` makes the verdict `block`, `warning` `review`. */
export const SEVERITIES = ['critical', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

/** Where the guard checked: a local devnet fork, or Base mainnet. */
export const ENVIRONMENTS = ['devnet', 'mainnet'] as const
export type Environment = (typeof ENVIRONMENTS)[number]

/**
 * The service's stable error codes (`error` of every error body). Once published, a code is
 * API: new ones may be added, none is renamed. Each maps to one HTTP status (docs/api.md, "Errors").
 */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_typed_data',
  'invalid_json',
  'unsupported_content_type',
  'body_too_large',
  'headers_too_large',
  'request_timeout',
  'malformed_request',
  'unsupported_chain',
  'unsupported_entry_point',
  'unsafe_url',
  'phishing_domain',
  'target_unreachable',
  'target_error',
  'reader_refused',
  'payment_required',
  'not_found',
  'method_not_allowed',
  'rpc_unavailable',
  'reader_unavailable',
  'facilitator_unavailable',
  'settlement_pending',
  'payment_in_progress',
  'ledger_unavailable',
  'service_starting',
  'rate_limited',
  'overloaded',
  'not_ready',
  'unauthorized',
  'origin_not_allowed',
  'simulation_unavailable',
  'simulation_refused',
  'invalid_payment_identifier',
  'payment_identifier_required',
  'payment_identifier_conflict',
  'internal_error',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/** Why the paid route answered 402 (`reason` of the 402 body). Stable, like error codes. */
export const PAYMENT_REASON_CODES = [
  'payment_missing',
  'payment_undecodable',
  'payment_malformed',
  'unsupported_x402_version',
  'scheme_mismatch',
  'network_mismatch',
  'asset_mismatch',
  'amount_mismatch',
  'pay_to_mismatch',
  'offer_mismatch',
  'invalid_signature',
  'authorization_expired',
  'authorization_not_yet_valid',
  'authorization_used',
  'authorization_canceled',
  'authorization_validity_too_long',
  'insufficient_funds',
  'verification_failed',
  'payment_reused',
  'settlement_failed',
  'settlement_gas_over_ceiling',
  'payer_settlement_reverted',
] as const
export type PaymentReason = (typeof PAYMENT_REASON_CODES)[number]

/**
 * What typed data the typed-data preflight recognised, by structure (a protocol's kinds by
 * their domain too); anything else `unknown`.
 */
export const TYPED_DATA_KINDS = [
  'eip2612-permit',
  'dai-permit',
  'permit2-permit-single',
  'permit2-permit-batch',
  'permit2-permit-transfer-from',
  'permit2-permit-batch-transfer-from',
  'permit2-permit-witness-transfer-from',
  'permit2-permit-batch-witness-transfer-from',
  'eip3009-transfer-with-authorization',
  'eip3009-receive-with-authorization',
  'seaport-order',
  'safe-tx',
  'cow-order',
  '1inch-limit-order',
  'uniswapx-exclusive-dutch-order',
  'uniswapx-v2-dutch-order',
  'uniswapx-priority-order',
  'morpho-authorization',
  'compound-authorization',
  'aave-credit-delegation',
  'unknown',
] as const
export type TypedDataKind = (typeof TYPED_DATA_KINDS)[number]

/**
 * What a token's owner (or admin) can do to its holders, read from the token's runtime code
 * (`effects.receivedTokens[].ownerPowers`; docs/rules.md, `token-owner-powers`).
 */
export const OWNER_POWERS = ['pause', 'blacklist', 'set-fees', 'mint', 'upgrade'] as const
export type OwnerPower = (typeof OWNER_POWERS)[number]

/** The `type` of the guard's own signed receipt. */
export const RECEIPT_TYPE = 'PRE_SEND_PROOF_RECEIPT'

/** The x402 extension key of the standard signed receipt (offer-receipt extension). */
export const OFFER_RECEIPT_EXTENSION = 'offer-receipt'

/**
 * Bounds of what the guard's routes accept, declared once: the request schemas
 * (`@pre-send-guard/client/schemas`, used by the routes and by the MCP tools) and the service's
 * domain read them from here.
 */
export const REQUEST_LIMITS = {
  /** Transactions in one bundle. */
  bundleTransactions: 8,
  /** EIP-7702 authorizations one bundle transaction may carry (each is probed). */
  authorizationsPerTransaction: 4,
  /** `stateOverrides` of a bundle: a node simulates whatever it is given, so the guard does not. */
  overrides: {
    /** Addresses overridden per bundle. */
    addresses: 16,
    /** Storage slots per address (`state` or `stateDiff`). */
    slotsPerAddress: 64,
    /** Storage slots over all addresses. */
    slots: 256,
    /** Runtime code bytes per address (EIP-170's contract size limit). */
    codeBytes: 24_576,
  },
  /** Typed data: honest permits, orders, Safe transactions and x402 payments stay far below. */
  typedData: {
    /** Struct types, `EIP712Domain` included. */
    types: 32,
    /** Fields of one struct type. */
    fieldsPerType: 64,
    /** Struct and array nesting below the message itself. */
    depth: 8,
    /** Entries of one array. */
    arrayLength: 256,
    /** Values in the whole message. */
    values: 4096,
    /** Characters of one `string` value or type/field name. */
    stringChars: 4096,
  },
  /** Public-page evidence: `max_chars` in Unicode code points, and the longest URL. */
  evidence: { minMaxChars: 500, maxMaxChars: 20_000, urlLength: 4096 },
} as const
