import { type Hex, hexToNumber } from 'viem'
import type { TransactionRequest } from './guard-client.js'
import { isPlainObject } from './is-plain-object.js'
import { notCheckable } from './pre-send-guard-errors.js'
import { objectToGuardRequest, rawToGuardRequest } from './to-guard-request.js'

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

/**
 * `inner` behind the guard's RPC method policy: a request that sends one transaction reaches
 * `inner` only after `check` resolved for it (`check` throws to refuse); an EIP-5792
 * `wallet_sendCalls` batch only after `checkBatch` resolved for all its calls, in order; any
 * other method that sends or signs a transaction is refused; everything else passes untouched.
 */
export function guardedRequest(
  inner: RequestFn,
  check: (transaction: TransactionRequest) => Promise<void>,
  checkBatch?: (transactions: TransactionRequest[]) => Promise<void>,
): RequestFn {
  const chainId = async (): Promise<number> =>
    hexToNumber((await inner({ method: 'eth_chainId' })) as Hex)

  async function guardRequest(args: RequestArguments): Promise<void> {
    const { method } = args
    const params = Array.isArray(args.params) ? (args.params as unknown[]) : []
    let transaction: TransactionRequest
    if (OBJECT_SENDS.has(method)) {
      transaction = await objectToGuardRequest(params[0], chainId)
    } else if (RAW_SENDS.has(method)) {
      transaction = await rawToGuardRequest(params[0])
    } else if (method === 'wallet_sendCalls' && checkBatch !== undefined) {
      await checkBatch(await batchToGuardRequests(params[0], chainId))
      return
    } else if (sendsOrSignsTransactions(method)) {
      throw notCheckable(method)
    } else {
      return
    }
    await check(transaction)
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
