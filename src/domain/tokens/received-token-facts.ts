import { type Address, getAddress, type Hex, toEventSelector } from 'viem'
import { type ExecutionEffects, senderChanges } from '../effects/execution-effects.js'
import type { SimulatedLog } from '../preflight/chain-reader.js'
import { PROTOCOL_MODULES } from '../protocols/protocol-modules.js'
import type { ReceivedTokenFacts, SellLoss, SellMeasurement } from './token-facts.js'
import { listedToken } from './token-lists.js'

export type { ReceivedTokenFacts, SellLoss, TaxBps } from './token-facts.js'

const TRANSFER = toEventSelector('Transfer(address,address,uint256)')
/**
 * The pools' `Swap` events every protocol module names (Uniswap v2 pairs and v3 pools, Aerodrome
 * pools): their emitters are the pools the tokens went through.
 */
const SWAPS: ReadonlySet<string> = new Set(
  PROTOCOL_MODULES.flatMap((module) => module.poolSwapEvents ?? []).map((e) => toEventSelector(e)),
)

/** `part` of `whole` in basis points, rounded half up; `whole` > 0. */
export function bpsOf(part: bigint, whole: bigint): number {
  return Number((part * 10_000n + whole / 2n) / whole)
}

/**
 * What each swap pool of the logs sent and received, per token (lower-case keys), and what went
 * to recipients the calldata declares (a router's fee collector, a friend paid in the same
 * transaction): moves the calldata asked for, not the token's own logic.
 */
function poolFlows(logs: readonly SimulatedLog[], declared: ReadonlySet<string>, sender: Address) {
  const pools = new Set(
    logs
      .filter((l) => l.topics[0] !== undefined && SWAPS.has(l.topics[0]))
      .map((l) => l.address.toLowerCase()),
  )
  const sent = new Map<string, bigint>()
  const got = new Map<string, bigint>()
  const toDeclared = new Map<string, bigint>()
  const fromSenderToDeclared = new Map<string, bigint>()
  const me = sender.toLowerCase()
  if (pools.size === 0) return { sent, got, toDeclared, fromSenderToDeclared }
  for (const l of logs) {
    if (l.topics[0] !== TRANSFER || l.topics.length !== 3 || l.data.length !== 66) continue
    const from = topicAddress(l.topics[1])
    const to = topicAddress(l.topics[2])
    const token = l.address.toLowerCase()
    const amount = BigInt(l.data)
    if (pools.has(from) && !pools.has(to)) sent.set(token, (sent.get(token) ?? 0n) + amount)
    // A token contract selling its own kept tax into the pool (a "swap back") delivers nothing
    // of the sender's: only others' moves into the pool count as what the pool got.
    if (pools.has(to) && !pools.has(from) && from !== token) {
      got.set(token, (got.get(token) ?? 0n) + amount)
    }
    if (declared.has(to) && to !== me && !pools.has(to)) {
      toDeclared.set(token, (toDeclared.get(token) ?? 0n) + amount)
      if (from === me) {
        fromSenderToDeclared.set(token, (fromSenderToDeclared.get(token) ?? 0n) + amount)
      }
    }
  }
  return { sent, got, toDeclared, fromSenderToDeclared }
}

function topicAddress(topic: Hex | undefined): string {
  return topic === undefined ? '' : `0x${topic.slice(26)}`.toLowerCase()
}

/**
 * Facts on every ERC-20 whose balance the transaction raises for `sender`, in the order of the
 * sender's net changes: the lists that carry it, the buy tax (the pools' `Transfer`s out of them
 * beside what the sender gained and what recipients the calldata declares got), and, from the sell probe, the transfer and sell taxes and
 * whether it sells at all. Empty when the sender receives no ERC-20.
 */
export function receivedTokenFacts(
  effects: ExecutionEffects,
  logs: readonly SimulatedLog[],
  sender: Address,
  measurements: ReadonlyMap<string, SellMeasurement> | undefined,
  declared: ReadonlySet<string>,
): ReceivedTokenFacts[] {
  const received = senderChanges(effects, sender).filter(
    (c) => c.asset.standard === 'erc20' && c.delta > 0n,
  )
  if (received.length === 0) return []
  const { sent, toDeclared } = poolFlows(logs, declared, sender)
  return received.map((c) => {
    const token = getAddress((c.asset as { token: Address }).token)
    const poolSent = sent.get(token.toLowerCase()) ?? 0n
    const shortfall = poolSent - c.delta - (toDeclared.get(token.toLowerCase()) ?? 0n)
    const buy = poolSent === 0n ? null : shortfall <= 0n ? 0 : bpsOf(shortfall, poolSent)
    const m = measurements?.get(token.toLowerCase())
    const facts: ReceivedTokenFacts = {
      token,
      listed: [...(listedToken(token)?.lists ?? [])],
      sellable: m === undefined ? null : sellableFrom(m),
      taxBps: {
        buy,
        sell: m === undefined || !m.delivered ? null : shareLost(m.received, m.poolGot),
        transfer: m === undefined || !m.moved ? null : shareLost(m.received, m.arrived),
      },
    }
    if (m !== undefined) facts.measured = m
    return facts
  })
}

/**
 * The share of `sent` that did not arrive, in basis points: 0 when at least all of it arrived
 * (a pool paid by others in the same transfer is no negative tax).
 */
function shareLost(sent: bigint, arrived: bigint): number {
  return arrived >= sent ? 0 : bpsOf(sent - arrived, sent)
}

/** Cannot be moved, or reached a pool that would not pay for it: false; no pool known: null. */
function sellableFrom(m: SellMeasurement): boolean | null {
  if (!m.moved) return false
  if (m.pool === undefined) return null
  return m.delivered && m.proceeds > 0n
}

/**
 * Tokens the sender sells into a swap pool (a pool that emits a `Swap` a protocol module names in the same
 * execution) whose pools receive less than the sender's balance lost, beyond what the sender
 * sends to recipients the calldata declares: the share lost to the token's own logic on the way
 * (a sell tax).
 */
export function sellLosses(
  effects: ExecutionEffects,
  logs: readonly SimulatedLog[],
  sender: Address,
  declared: ReadonlySet<string>,
): SellLoss[] {
  const { got, fromSenderToDeclared } = poolFlows(logs, declared, sender)
  if (got.size === 0) return []
  const out: SellLoss[] = []
  for (const c of senderChanges(effects, sender)) {
    if (c.asset.standard !== 'erc20' || c.delta >= 0n) continue
    const paid = fromSenderToDeclared.get(c.asset.token.toLowerCase()) ?? 0n
    const debited = -c.delta - paid
    const credited = got.get(c.asset.token.toLowerCase()) ?? 0n
    if (credited === 0n || credited >= debited) continue
    out.push({
      token: getAddress(c.asset.token),
      debited,
      credited,
      lossBps: bpsOf(debited - credited, debited),
    })
  }
  return out
}
