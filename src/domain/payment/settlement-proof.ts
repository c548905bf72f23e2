import { type Address, decodeEventLog, type Hex, isAddressEqual, parseAbi } from 'viem'
import type { ExecutionStatus } from '../evm/transaction.js'

/** The EIP-3009 and ERC-20 events a settlement is judged by. */
export const SETTLEMENT_EVENTS_ABI = parseAbi([
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
])

/** One log of a mined transaction, as any RPC returns it. */
export interface ChainLog {
  address: Address
  topics: readonly Hex[]
  data: Hex
  logIndex: number
}

/** A mined transaction: its status (a receipt's `'reverted'` is a `'failure'`) and logs. */
export interface MinedTransaction {
  hash: Hex
  status: ExecutionStatus
  blockNumber: bigint
  logs: readonly ChainLog[]
}

/** The payment a settlement must prove. */
export interface ExpectedPayment {
  asset: Address
  payer: Address
  payTo: Address
  amount: bigint
  nonce: Hex
}

/**
 * Whether `tx` paid us with this authorization: successful, and among its logs from the token
 * an `AuthorizationUsed(payer, nonce)` immediately followed by `Transfer(payer, payTo, amount)`
 * (USDC's `_transferWithAuthorization` marks the nonce used, then transfers).
 *
 * "The authorization was used" alone proves nothing: the payer can sign a second
 * authorization with the same nonce to someone else and submit it first, and
 * `authorizationState` is also true after `cancelAuthorization`. Requiring the transfer to be
 * the very next log also keeps an unrelated transfer in the same transaction (a bundle paying
 * another of our payments) from counting twice.
 */
export function provesPayment(tx: MinedTransaction, expected: ExpectedPayment): boolean {
  if (tx.status !== 'success') return false
  const fromToken = tx.logs
    .filter((log) => isAddressEqual(log.address, expected.asset))
    .slice()
    .sort((a, b) => a.logIndex - b.logIndex)
  for (let i = 0; i < fromToken.length; i++) {
    const used = decode(fromToken[i])
    if (
      used?.eventName !== 'AuthorizationUsed' ||
      !isAddressEqual(used.args.authorizer, expected.payer) ||
      used.args.nonce.toLowerCase() !== expected.nonce.toLowerCase()
    ) {
      continue
    }
    const next = fromToken[i + 1]
    const transfer = next && next.logIndex === (fromToken[i]?.logIndex ?? -2) + 1 && decode(next)
    return (
      !!transfer &&
      transfer.eventName === 'Transfer' &&
      isAddressEqual(transfer.args.from, expected.payer) &&
      isAddressEqual(transfer.args.to, expected.payTo) &&
      transfer.args.value === expected.amount
    )
  }
  return false
}

function decode(log: ChainLog | undefined) {
  if (!log || log.topics.length === 0) return undefined
  try {
    return decodeEventLog({
      abi: SETTLEMENT_EVENTS_ABI,
      topics: log.topics as [Hex, ...Hex[]],
      data: log.data,
    })
  } catch {
    return undefined // another event of the token (Approval, ...)
  }
}
