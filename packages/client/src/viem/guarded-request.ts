import { type Address, type Hex, hexToNumber, isAddress } from 'viem'
import type { TransactionRequest, TypedDataJson } from '../client/guard-client.js'
import { authorizationsToJudge } from './authorizations-to-judge.js'
import { isPlainObject } from './is-plain-object.js'
import { notCheckable } from './pre-send-guard-errors.js'
import { type GuardedSend, objectToGuardRequest, rawToGuardedSend } from './to-guard-request.js'

/** A JSON-RPC request as a viem transport takes it. */
export type RequestArguments = { method: string; params?: unknown }
/** A viem transport's `request`. */
export type RequestFn = (args: RequestArguments, options?: unknown) => Promise<unknown>

/** JSON-RPC methods that send one transaction given as an object: checked. */
const OBJECT_SENDS = new Set([
  'eth_sendTransaction',
  'eth_sendTransactionSync',
  'wallet_sendTransaction',
  'eth_sendUnsignedTransaction',
])
/** JSON-RPC methods that send one signed transaction: parsed, its sender recovered, checked. */
const RAW_SENDS = new Set([
  'eth_sendRawTransaction',
  'eth_sendRawTransactionSync',
  'eth_sendRawTransactionConditional',
])

/** What the transport does with signature requests. */
export interface SignaturePolicy {
  /** Checks typed data before `eth_signTypedData_v4` reaches the wallet; throws to refuse. */
  checkTypedData(signer: Address, typedData: TypedDataJson): Promise<void>
  /** Let raw-hash `eth_sign` through (default: refused, a hash cannot be screened). */
  allowRawSign: boolean
}

/** Typed-data signing methods: the v4 JSON form is checked, anything else refused. */
const TYPED_DATA_SIGNS = /^eth_signTypedData(?:_v[0-9]+)?$/

/**
 * `inner` behind the guard's RPC method policy: a request that sends one transaction reaches
 * `inner` only after `check` resolved for it and its EIP-7702 authorizations, signers
 * recovered (`check` throws to refuse); an EIP-5792
 * `wallet_sendCalls` batch only after `checkBatch` resolved for all its calls, in order; typed
 * data only after `signatures.checkTypedData` resolved (refused without a policy); raw-hash
 * `eth_sign` is refused unless allowed; any other method that sends or signs a transaction is
 * refused; everything else passes untouched.
 */
export function guardedRequest(
  inner: RequestFn,
  check: (send: GuardedSend) => Promise<void>,
  signatures?: SignaturePolicy,
  checkBatch?: (transactions: TransactionRequest[]) => Promise<void>,
): RequestFn {
  const chainId = async (): Promise<number> =>
    // cast: the wallet's reply, read as it always was: `hexToNumber` throws on what it cannot read.
    hexToNumber((await inner({ method: 'eth_chainId' })) as Hex)

  async function guardRequest(args: RequestArguments): Promise<void> {
    const { method } = args
    const params = Array.isArray(args.params) ? (args.params as unknown[]) : []
    let send: GuardedSend
    if (OBJECT_SENDS.has(method)) {
      const transaction = await objectToGuardRequest(params[0], chainId)
      const list = isPlainObject(params[0]) ? params[0].authorizationList : undefined
      send = { transaction, authorizations: await authorizationsToJudge(list) }
    } else if (RAW_SENDS.has(method)) {
      send = await rawToGuardedSend(params[0])
    } else if (TYPED_DATA_SIGNS.test(method) || /signtypeddata/i.test(method)) {
      const request = TYPED_DATA_SIGNS.test(method) ? typedDataRequest(params) : undefined
      if (!request || !signatures) throw notCheckable(`typed data sent as ${method}`)
      await signatures.checkTypedData(request.signer, request.typedData)
      return
    } else if (method === 'eth_sign') {
      if (!signatures?.allowRawSign) throw notCheckable('a raw-hash signature (eth_sign)')
      return
    } else if (method === 'wallet_sendCalls' && checkBatch !== undefined) {
      await checkBatch(await batchToGuardRequests(params[0], chainId))
      return
    } else if (sendsOrSignsTransactions(method)) {
      throw notCheckable(method)
    } else {
      return
    }
    await check(send)
  }

  return async (args, requestOptions) => {
    await guardRequest(args)
    return inner(args, requestOptions)
  }
}

/** Most calls one batch may carry: the bundle route's bound. */
const MAX_BATCH_CALLS = 8

/** EIP-5792 `wallet_sendCalls` params: every call as a transaction from the batch's `from`. */
async function batchToGuardRequests(
  batch: unknown,
  chainId: () => Promise<number>,
): Promise<TransactionRequest[]> {
  if (!isPlainObject(batch)) throw notCheckable('a malformed batch of calls')
  const { from, calls } = batch
  if (!Array.isArray(calls) || calls.length === 0 || calls.length > MAX_BATCH_CALLS) {
    throw notCheckable(`a batch of calls that is not 1 to ${MAX_BATCH_CALLS} calls`)
  }
  const out: TransactionRequest[] = []
  for (const call of calls) {
    if (!isPlainObject(call)) throw notCheckable('a malformed call in a batch')
    const { to, data, value } = call
    out.push(await objectToGuardRequest({ from, to, data, value, chainId: batch.chainId }, chainId))
  }
  return out
}

/** Methods that send or sign transactions other than the checked ones: refused. */
function sendsOrSignsTransactions(method: string): boolean {
  return /^[a-z0-9]+_send/i.test(method) || /sign(raw)?transaction/i.test(method)
}

/**
 * The signer and typed data of an `eth_signTypedData*` request: `[address, typedData]` with the
 * typed data as a JSON string or object in the v4 form. Anything else (v1's array form) is
 * undefined: it cannot be checked.
 */
function typedDataRequest(
  params: unknown[],
): { signer: Address; typedData: TypedDataJson } | undefined {
  const [signer, raw] = params
  if (typeof signer !== 'string' || !isAddress(signer, { strict: false })) return undefined
  let typedData: unknown = raw
  if (typeof raw === 'string') {
    try {
      typedData = JSON.parse(raw)
    } catch {
      return undefined
    }
  }
  if (typeof typedData !== 'object' || typedData === null || Array.isArray(typedData))
    return undefined
  const t = typedData as Record<string, unknown>
  if (
    typeof t.primaryType !== 'string' ||
    typeof t.types !== 'object' ||
    typeof t.message !== 'object'
  )
    return undefined
  return { signer, typedData: typedData as TypedDataJson }
}
