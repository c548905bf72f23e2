import type { toClientEvmSigner } from '@x402/evm'
import type { Address, LocalAccount } from 'viem'
import type { z } from 'zod'
import type {
  AuthorizationRequestSchema,
  BundleRequestSchema,
  TransactionRequestSchema,
  TypedDataRequestSchema,
  UserOperationRequestSchema,
} from '../schemas/requests.js'
import type { ServedNetwork } from '../types/networks.js'
import { ROUTES } from '../types/routes.js'
import type { ChallengeChecks } from './check-challenge.js'
import type {
  AuthorizationResult,
  BundleResult,
  Discovery,
  PageEvidence,
  PaymentRequiredOffer,
  PreflightResult,
  Receipt,
  Settlement,
  TypedDataResult,
  UserOperationResult,
} from './guard-responses.js'
import type { ReceiptBinding, ReceiptVerification } from './verify-receipt.js'

// The client's request and answer shapes, apart from the client itself so the paid call
// (paid-preflight.ts) can use them without importing the client that calls it.

/** Where the guard serves discovery, the free routes and the paid route (spec 4): `ROUTES`'s. */
export const DISCOVERY_PATH = ROUTES.discovery
export const READ_ONLY_PREFLIGHT_PATH = ROUTES.transactionPreflight
export const EVIDENCE_PATH = ROUTES.evidence
export const TYPED_DATA_PREFLIGHT_PATH = ROUTES.typedDataPreflight
export const BUNDLE_PREFLIGHT_PATH = ROUTES.bundlePreflight
export const AUTHORIZATION_PREFLIGHT_PATH = ROUTES.authorizationPreflight
export const USER_OPERATION_PREFLIGHT_PATH = ROUTES.userOperationPreflight
/** The paid route; discovery's `route` is used whenever discovery is at hand. */
export const PAID_PREFLIGHT_PATH = ROUTES.paidTransactionPreflight

// The request types are the route schemas' `z.input` (`@pre-send-guard/client/schemas`): what
// the client may send is what the route accepts, by construction.

/** A transaction to check (spec 2.1): the same body for the read-only and the paid route. */
export type TransactionRequest = z.input<typeof TransactionRequestSchema>

/**
 * EIP-712 typed data in the `eth_signTypedData_v4` JSON form (integers as strings or numbers).
 * The route's schema takes any JSON inside and its validator answers a wrong shape with the path
 * that is wrong (422 `invalid_typed_data`), so this type is narrower than the schema's input.
 */
export interface TypedDataJson {
  domain: Record<string, unknown>
  types: Record<string, readonly { name: string; type: string }[]>
  primaryType: string
  message: Record<string, unknown>
}

/** A typed-data check: who would sign what. */
export type TypedDataRequest = Omit<z.input<typeof TypedDataRequestSchema>, 'typedData'> & {
  typedData: TypedDataJson
}

/** An EIP-7702 authorization check: who signs (or signed) which tuple. */
export type AuthorizationRequest = z.input<typeof AuthorizationRequestSchema>

/**
 * An ERC-4337 user operation check: the operation in the JSON-RPC form `eth_sendUserOperation`
 * takes, and the EntryPoint it is for.
 */
export type UserOperationRequest = z.input<typeof UserOperationRequestSchema>

/**
 * A bundle to check: 1-8 transactions simulated in order, optionally under `eth_simulateV1`-shaped
 * state overrides by address (the answer is then `hypothetical`), each transaction optionally
 * with an EIP-7702 `authorizationList`.
 */
export type BundleRequest = z.input<typeof BundleRequestSchema>

/**
 * Who pays for paid preflights: a viem account. Only its `address` and `signTypedData` reach the
 * x402 client (an EIP-3009 authorization is typed data), so the kit can never sign a transaction
 * for the server.
 */
export interface GuardPayer {
  account: Pick<LocalAccount, 'address' | 'signTypedData'>
  /** Optional chain reads for the x402 EVM scheme; plain EIP-3009 USDC payments need none. */
  publicClient?: Parameters<typeof toClientEvmSigner>[1]
}

/** Options of {@link createGuardClient}. */
export interface GuardClientOptions {
  /** The guard's origin, e.g. `http://127.0.0.1:8402`. */
  baseUrl: string
  /** Defaults to the global `fetch`. */
  fetch?: typeof globalThis.fetch
  /** Needed only for {@link GuardClient.paidPreflight}. */
  payer?: GuardPayer
  /** Bound on each call, the paid call's requests and any retry of a shed one included. Default 30 s. */
  timeoutMs?: number
  /** Most one paid call may cost, in USDC atomic units. Default 10000 ($0.01). */
  maxPayment?: bigint
  /**
   * How many times a preflight the guard shed (503 `overloaded`: refused at once, nothing run
   * or charged) is sent again, each after the wait its `Retry-After` asks (kept within 1 and
   * 5 s, spread by up to half again). Every try and wait stays within `timeoutMs` of the call's
   * start: a wait that would leave less than a second for the next try is not made. A paid call
   * is sent again with the same `PAYMENT-SIGNATURE`, as the guard documents. An integer from 0
   * to 10 (else a RangeError); default 2; 0: the 503 is thrown at once (`GuardError`
   * `overloaded`, with `retryAfter`).
   */
  overloadRetries?: number
}

/** The unpaid answer of the paid route, as received. */
export interface UnpaidChallenge {
  url: string
  status: number
  body: unknown
  /** The decoded `PAYMENT-REQUIRED` header; undefined when absent or undecodable. */
  paymentRequired: PaymentRequiredOffer | undefined
}

/** Options of {@link GuardClient.paidPreflight}. */
export interface PaidPreflightOptions {
  /** Discovery to check the challenge against; fetched when omitted. */
  discovery?: Discovery
  /**
   * Retry a payment whose outcome was unknown (`GuardError.paymentSignature`): sends it again
   * instead of a new payment, and gets the stored answer once settled.
   */
  paymentSignature?: string
}

/** A paid preflight: the result, its signed receipt and the settlement that paid for it. */
export interface PaidPreflight {
  result: PreflightResult
  receipt: Receipt
  settlement: Settlement
  /** The checks the challenge passed before anything was signed (absent on a resumed call). */
  challenge: ChallengeChecks | undefined
  /** The request body sent (its canonical JSON hash is the receipt's `requestHash`). */
  request: TransactionRequest
  /** The `PAYMENT-SIGNATURE` sent. */
  paymentSignature: string
  /** Who signed that payment (its EIP-3009 authorization's `from`), when it can be read. */
  payer: Address | undefined
}

/** A typed client of one Pre-Send Guard. */
export interface GuardClient {
  readonly baseUrl: string
  /** `GET /.well-known/x402`. */
  discovery(): Promise<Discovery>
  /**
   * The network the guard serves, as its discovery names it (`network`, a CAIP-2 id): fetched
   * once and kept (a failed fetch is not kept). Every request the kit builds carries its chain
   * id. Undefined for a guard that publishes no discovery (404: it sells nothing): its routes
   * then refuse another network's chain id themselves (422). A network the kit does not know
   * is a `network_unsupported` GuardError.
   */
  network(): Promise<ServedNetwork | undefined>
  /** The free read-only preflight: verdict, findings, call, gas, fees. */
  preflight(tx: TransactionRequest): Promise<PreflightResult>
  /** The free typed-data preflight: what a signature would grant, and a verdict. Signs nothing. */
  typedDataPreflight(request: TypedDataRequest): Promise<TypedDataResult>

  /** The free bundle preflight: transactions in order at one block, net effects, one verdict. */
  bundlePreflight(bundle: BundleRequest): Promise<BundleResult>
  /**
   * The free EIP-7702 authorization preflight: what delegating `authority` to the tuple's
   * `address` would grant (the delegate's code recognised or probed), and a verdict. Signs
   * nothing; an unsigned tuple is judged for what signing it would grant.
   */
  authorizationPreflight(request: AuthorizationRequest): Promise<AuthorizationResult>
  /**
   * The free ERC-4337 user-operation preflight: the operation simulated through its canonical
   * EntryPoint (validation, prefund, execution), the account's calls screened, and a verdict.
   * Sends nothing to a bundler.
   */
  userOperationPreflight(request: UserOperationRequest): Promise<UserOperationResult>
  /** POSTs to the paid route without payment and returns the 402 as received (no wallet). */
  unpaidChallenge(
    tx: TransactionRequest,
    options?: { discovery?: Discovery },
  ): Promise<UnpaidChallenge>
  /**
   * One paid preflight with `payer`. The 402 it pays is checked against discovery first
   * ({@link checkChallenge}); on any failed check nothing is signed and a `challenge_mismatch`
   * GuardError carries the checks.
   */
  paidPreflight(tx: TransactionRequest, options?: PaidPreflightOptions): Promise<PaidPreflight>
  /** `GET /receipts/{id}`. */
  receipt(id: string): Promise<Receipt>
  /**
   * `GET /receipts/by-authorization/{payer}/{nonce}`: the receipt of a settled payment, from
   * the EIP-3009 authorization it was paid with (for a buyer that lost the answer and the id).
   */
  receiptByAuthorization(payer: string, nonce: string): Promise<Receipt>
  /** Verifies a receipt against discovery's signer ({@link verifyReceipt}). */
  verifyReceipt(
    receipt: unknown,
    discovery: Discovery,
    binding?: ReceiptBinding,
  ): Promise<ReceiptVerification>
  /** Public-page evidence: one URL as bounded, hashed markdown. */
  evidence(url: string, maxChars?: number): Promise<PageEvidence>
}
