import type { toClientEvmSigner } from '@x402/evm'
import type { Address, Hex, LocalAccount } from 'viem'
import type { AuthorizationRequest } from '../schemas/delegation.js'
import type { UserOperationRequest } from '../schemas/user-operation.js'
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

/** Where the guard serves discovery, the free routes and the paid route (spec 4). */
export const DISCOVERY_PATH = '/.well-known/x402'
export const READ_ONLY_PREFLIGHT_PATH = '/payanagent/v1/base-transaction-preflight'
export const EVIDENCE_PATH = '/payanagent/v1/public-page-evidence'
export const TYPED_DATA_PREFLIGHT_PATH = '/payanagent/v1/base-typed-data-preflight'
export const BUNDLE_PREFLIGHT_PATH = '/payanagent/v1/base-bundle-preflight'
export const AUTHORIZATION_PREFLIGHT_PATH = '/payanagent/v1/base-authorization-preflight'
export const USER_OPERATION_PREFLIGHT_PATH = '/payanagent/v1/base-user-operation-preflight'
/** The paid route; discovery's `route` is used whenever discovery is at hand. */
export const PAID_PREFLIGHT_PATH = '/simulate/transaction-preflight'

/** A transaction to check (spec 2.1): the same body for the read-only and the paid route. */
export interface TransactionRequest {
  chainId?: '0x2105'
  from: Address
  to: Address
  /** Calldata; `0x` for none. */
  data: Hex
  /** Wei, hex (`0x0`). */
  value?: Hex
}

/** EIP-712 typed data in the `eth_signTypedData_v4` JSON form (integers as strings or numbers). */
export interface TypedDataJson {
  domain: Record<string, unknown>
  types: Record<string, readonly { name: string; type: string }[]>
  primaryType: string
  message: Record<string, unknown>
}

/** A typed-data check: who would sign what. */
export interface TypedDataRequest {
  chainId?: '0x2105'
  signer: Address
  typedData: TypedDataJson
}

/**
 * An EIP-7702 authorization check: who signs (or signed) which tuple. The shared request schema's
 * type (`AuthorizationRequestSchema` in `/schemas`), so the client and the route cannot disagree.
 */
export type { AuthorizationRequest } from '../schemas/delegation.js'

/**
 * An ERC-4337 user operation check: the operation in the JSON-RPC form `eth_sendUserOperation`
 * takes, and the EntryPoint it is for. The shared request schema's type
 * (`UserOperationRequestSchema` in `/schemas`), so the client and the route cannot disagree.
 */
export type { UserOperationRequest } from '../schemas/user-operation.js'

/** A bundle to check: 1-8 transactions simulated in order, optionally under state overrides. */
export interface BundleRequest {
  chainId?: '0x2105'
  transactions: Omit<TransactionRequest, 'chainId'>[]
  /** `eth_simulateV1`-shaped overrides by address; the answer is then `hypothetical`. */
  stateOverrides?: Record<
    Address,
    {
      balance?: Hex
      nonce?: Hex
      code?: Hex
      state?: Record<Hex, Hex>
      stateDiff?: Record<Hex, Hex>
    }
  >
}

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
  /** Bound on each call, the paid call's two requests included. Default 30 s. */
  timeoutMs?: number
  /** Most one paid call may cost, in USDC atomic units. Default 10000 ($0.01). */
  maxPayment?: bigint
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
