import {
  concat,
  type Hex,
  hexToNumber,
  isHex,
  parseTransaction,
  recoverTransactionAddress,
  type SendTransactionParameters,
  type TransactionSerialized,
  toHex,
} from 'viem'
import type { TransactionRequest } from '../client/guard-client.js'
import { NETWORK_NAMES, NETWORKS, networkByChainId } from '../types/networks.js'
import type { AnyWalletClient } from './any-wallet-client.js'
import { type AuthorizationToJudge, authorizationsToJudge } from './authorizations-to-judge.js'
import { isPlainObject } from './is-plain-object.js'
import { TransactionNotCheckableError } from './pre-send-guard-errors.js'

/**
 * What a send asks of the guard: the transaction for the transaction route (without its
 * `authorizationList`, which that route does not take) and each signed EIP-7702 authorization
 * of the list for the authorization route.
 */
export interface GuardedSend {
  transaction: TransactionRequest
  /** Empty unless the transaction is type 4. */
  authorizations: AuthorizationToJudge[]
}

/** The guard's questions for a viem `sendTransaction` call: {@link toGuardRequest} and its list. */
export async function toGuardedSend(
  client: AnyWalletClient,
  parameters: SendTransactionParameters,
): Promise<GuardedSend> {
  const transaction = await toGuardRequest(client, parameters)
  return { transaction, authorizations: await authorizationsToJudge(parameters.authorizationList) }
}

/**
 * The guard's body for a viem `sendTransaction` call, exactly as viem will build it, with the
 * wallet's chain id (a chain no guard serves throws); an `authorizationList` is left out (see
 * {@link toGuardedSend}).
 */
export async function toGuardRequest(
  client: AnyWalletClient,
  parameters: SendTransactionParameters,
): Promise<TransactionRequest> {
  const account = parameters.account ?? client.account
  if (!account) throw new TransactionNotCheckableError('no account: the guard needs a sender')
  const to = parameters.to
  if (!to) throw new TransactionNotCheckableError('contract creation (no `to`)')
  const chain = parameters.chain === undefined ? client.chain : parameters.chain
  const chainId = servable(
    chain?.id ?? hexToNumber(await client.request({ method: 'eth_chainId' })),
  )
  // viem appends the data suffix (parameter, else the client's) before sending: check that.
  const clientSuffix = (client as { dataSuffix?: Hex | { value: Hex } }).dataSuffix
  const suffix =
    parameters.dataSuffix ?? (typeof clientSuffix === 'string' ? clientSuffix : clientSuffix?.value)
  const data = parameters.data ?? '0x'
  return {
    chainId,
    from: typeof account === 'string' ? account : account.address,
    to,
    data: suffix ? concat([data, suffix]) : data,
    value: toHex(parameters.value ?? 0n),
  }
}

/**
 * The guard's body for a JSON-RPC `eth_sendTransaction`-style request object; an
 * `authorizationList` is left out (read it with `authorizationsToJudge`).
 */
export async function objectToGuardRequest(
  request: unknown,
  chainId: () => Promise<number>,
): Promise<TransactionRequest> {
  if (!isPlainObject(request)) throw new TransactionNotCheckableError('a malformed transaction')
  const { from, to, data, input, value } = request
  if (typeof from !== 'string' || !isHex(from)) {
    throw new TransactionNotCheckableError('no sender (`from`): the guard needs one')
  }
  if (to === undefined || to === null) {
    throw new TransactionNotCheckableError('contract creation (no `to`)')
  }
  if (typeof to !== 'string' || !isHex(to)) {
    throw new TransactionNotCheckableError('a malformed `to`')
  }
  if (data !== undefined && input !== undefined && data !== input) {
    throw new TransactionNotCheckableError('a transaction whose `data` and `input` differ')
  }
  const calldata = data ?? input ?? '0x'
  if (typeof calldata !== 'string' || !isHex(calldata)) {
    throw new TransactionNotCheckableError('malformed calldata')
  }
  let wei: bigint
  try {
    wei = BigInt((value as string | undefined) ?? 0)
  } catch {
    throw new TransactionNotCheckableError('a malformed `value`')
  }
  const claimed = request.chainId
  const onChain = servable(
    typeof claimed === 'string' && isHex(claimed) ? hexToNumber(claimed) : await chainId(),
  )
  return { chainId: onChain, from, to, data: calldata, value: toHex(wei) }
}

/** The guard's questions for an already signed transaction (type 4: its list's signers recovered). */
export async function rawToGuardedSend(serialized: unknown): Promise<GuardedSend> {
  if (typeof serialized !== 'string' || !isHex(serialized)) {
    throw new TransactionNotCheckableError('a malformed signed transaction')
  }
  let tx: ReturnType<typeof parseTransaction>
  let from: Hex
  try {
    tx = parseTransaction(serialized)
    from = await recoverTransactionAddress({
      serializedTransaction: serialized as TransactionSerialized,
    })
  } catch {
    throw new TransactionNotCheckableError('a signed transaction that cannot be parsed')
  }
  if (!tx.to) throw new TransactionNotCheckableError('contract creation (no `to`)')
  return {
    transaction: {
      chainId: servable(tx.chainId),
      from: from as TransactionRequest['from'],
      to: tx.to,
      data: tx.data ?? '0x',
      value: toHex(tx.value ?? 0n),
    },
    authorizations: await authorizationsToJudge(
      'authorizationList' in tx ? tx.authorizationList : undefined,
    ),
  }
}

/**
 * `chainId` as the request carries it, when it is a network a guard can serve: the request then
 * names the wallet's chain, and the wrapper compares it with the guard's own network before
 * asking (`ChainMismatchError`). Any other chain cannot be checked by any guard.
 */
function servable(chainId: number | undefined): `0x${string}` {
  const network = chainId === undefined ? undefined : networkByChainId(chainId)
  if (network === undefined) {
    const served = NETWORK_NAMES.map((n) => `${NETWORKS[n].label} (${NETWORKS[n].chainId})`)
    throw new TransactionNotCheckableError(
      `chain ${chainId ?? '(unknown)'}: the guard checks ${served.join(' or ')} only`,
    )
  }
  return network.chainIdHex
}
