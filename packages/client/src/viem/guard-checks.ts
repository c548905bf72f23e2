import type { Address } from 'viem'
import type {
  AuthorizationResult,
  BundleResult,
  Finding,
  PreflightResult,
  TypedDataResult,
  UserOperationResult,
} from '../client/guard-responses.js'
import type { PaidPreflight, TransactionRequest, TypedDataJson } from '../client/guard-types.js'
import type { ReceiptVerification } from '../client/verify-receipt.js'
import type { AuthorizationTuple, UserOperationRpc } from '../schemas/requests.js'

// What the guard said, as the viem wrappers hand it over: apart from the wrappers, so their
// errors and helpers can name these shapes without importing the wrappers back.

/** Which route the wrapper asks: the free read-only preflight, or the paid one with a receipt. */
export type GuardMode = 'read-only' | 'paid'

/** What the guard said about one transaction. */
export interface GuardCheck {
  mode: GuardMode
  /** The body the guard checked. */
  transaction: TransactionRequest
  verdict: PreflightResult['verdict']
  findings: Finding[]
  result: PreflightResult
  /** Paid mode: the receipt, its settlement and its verification against discovery. */
  paid?: Pick<PaidPreflight, 'receipt' | 'settlement'> & { verification: ReceiptVerification }
}

/**
 * What the guard said about a batch of calls (EIP-5792 `sendCalls`, or a list given to
 * `preSendGuard.checkBatch`): asked of the free bundle route, which simulates them in order.
 * Batches have no paid route: no receipt, whatever the mode.
 */
export interface BatchCheck {
  mode: 'read-only'
  transactions: TransactionRequest[]
  verdict: BundleResult['verdict']
  /** Every transaction's findings, in transaction order. */
  findings: Finding[]
  result: BundleResult
}

/** What the guard said about one piece of typed data. */
export interface TypedDataCheck {
  signer: Address
  /** The typed data checked, in the `eth_signTypedData_v4` JSON form. */
  typedData: TypedDataJson
  verdict: TypedDataResult['verdict']
  findings: Finding[]
  result: TypedDataResult
}

/**
 * What the guard said about one EIP-7702 authorization: a tuple about to be signed
 * (`signAuthorization`, `prepareAuthorization`, unsigned) or one in a type-4 transaction's
 * `authorizationList` (signed; `authority` recovered from its signature). Asked of the free
 * authorization route, whatever the mode.
 */
export interface AuthorizationCheck {
  /** The account that signs (or signed) the authorization. */
  authority: Address
  /** The tuple checked, in JSON-RPC form (hex quantities). */
  authorization: AuthorizationTuple
  verdict: AuthorizationResult['verdict']
  findings: Finding[]
  result: AuthorizationResult
}

/**
 * What the guard said about one ERC-4337 user operation, asked of the free user-operation route
 * (`withPreSendGuardBundler`): the operation exactly as it goes to the bundler (filled and
 * signed), in the JSON-RPC form `eth_sendUserOperation` takes.
 */
export interface UserOperationCheck {
  /** The EntryPoint the operation is for. */
  entryPoint: Address
  /** The operation checked (hex quantities; `eip7702Auth` for an EIP-7702 account). */
  userOperation: UserOperationRpc
  verdict: UserOperationResult['verdict']
  findings: Finding[]
  result: UserOperationResult
}
