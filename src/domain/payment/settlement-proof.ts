import { type Address, decodeEventLog, type Hex, isAddressEqual, parseAbi } from 'viem'
import { nowMs, type PaymentClock } from './payment-clock.js'
import type { PaymentLogger } from './payment-logger.js'
import type { ChainLog, MinedTransaction, SettlementChain } from './settlement-chain.js'

/** The EIP-3009 and ERC-20 events a settlement is judged by. */
export const SETTLEMENT_EVENTS_ABI = parseAbi([
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
])

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

/** How a transaction a facilitator reported as the settlement looks on chain. */
export type SettlementConfirmation =
  /** Mined, and it proves the payment. */
  | { state: 'proven'; tx: MinedTransaction }
  /** In the node's mempool, or the node could not be read: not known yet. */
  | { state: 'pending' }
  /** Unknown to the node, or mined without paying us: the facilitator's word is not enough. */
  | { state: 'unproven' }

const CONFIRM_POLL_MS = 250

/**
 * Confirms a settlement a facilitator reported, before any receipt is signed: polls the node
 * (every 250 ms, at most `timeoutMs`) until `transaction` is mined, then requires
 * {@link provesPayment}. A facilitator that waited for the receipt (the built-in one, x402's
 * usual ones) costs one read here; the built-in one's own receipt costs none.
 */
export async function confirmSettlement(
  deps: { chain: SettlementChain; logger?: PaymentLogger } & PaymentClock,
  expected: ExpectedPayment,
  transaction: Hex,
  timeoutMs: number,
): Promise<SettlementConfirmation> {
  const deadline = nowMs(deps) + timeoutMs
  let sawPending = false
  for (;;) {
    try {
      const state = await deps.chain.transaction(transaction)
      if (state.state === 'mined') {
        return provesPayment(state.tx, expected)
          ? { state: 'proven', tx: state.tx }
          : { state: 'unproven' }
      }
      sawPending ||= state.state === 'pending'
    } catch (error) {
      deps.logger?.warn({ err: error, transaction }, 'cannot read the settlement transaction')
      sawPending = true
    }
    if (nowMs(deps) + CONFIRM_POLL_MS > deadline) {
      return sawPending ? { state: 'pending' } : { state: 'unproven' }
    }
    await new Promise((resolve) => setTimeout(resolve, CONFIRM_POLL_MS))
  }
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
