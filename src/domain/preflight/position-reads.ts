import type { Address, Hex } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import type { TransactionInput } from '../evm/transaction.js'
import type { PositionField, PositionRead } from '../protocols/protocol-module.js'
import { readersOf } from '../protocols/protocol-modules.js'
import { knownCallSite } from '../screen/call-args.js'
import { callSites } from '../screen/call-sites.js'
import type { CallRequest, SimulatedCall } from './chain-reader.js'

/**
 * Positions a protocol keeps in its own storage, read before and after the transaction in the
 * preflight's one `eth_simulateV1` (view calls placed before and after the transaction in the
 * same simulated block): what a supply, a repay or a withdrawal changes that no `Transfer`
 * shows. Which positions a call changes is its protocol module's to say
 * (`ProtocolModule.positions`; today Morpho Blue's `position(id, user)` for the account a
 * catalogued call names).
 */
export interface PositionProbe {
  protocol: string
  /** The contract that keeps the position. */
  contract: Address
  /** The market (Morpho: the market id). */
  market: Hex
  /** The account whose position is read. */
  account: Address
  call: CallRequest
  /** The transaction of the sequence whose call changes it. */
  txIndex: number
  /** The position's fields from the view's return data. */
  fields: PositionRead['fields']
}

/** One field of a position that changed. */
export interface PositionChange {
  txIndex: number
  protocol: string
  contract: Address
  market: Hex
  account: Address
  /** Which field (`POSITION_FIELD_KINDS` says whether it is a claim or a liability). */
  field: PositionField
  before: bigint
  after: bigint
}

/** At most this many positions are read per preflight (they ride in the same request). */
export const POSITION_PROBE_LIMIT = 8

/** Every field a position may have, in the order changes are reported. */
const FIELDS: readonly PositionField[] = [
  'supplyShares',
  'borrowShares',
  'supplied',
  'borrowed',
  'collateral',
  'internalBalance',
]

const ZERO: Address = '0x0000000000000000000000000000000000000000'

/** The positions the transactions' calls change, to read before and after them. */
export function positionProbes(
  txs: readonly TransactionInput[],
  decoded: readonly DecodedCall[],
): PositionProbe[] {
  const seen = new Set<string>()
  const out: PositionProbe[] = []
  txs.forEach((tx, i) => {
    const d = decoded[i]
    if (d === undefined) return
    for (const site of callSites(tx, d)) {
      const known = knownCallSite(site)
      const read = known === undefined ? undefined : readersOf(known.key)?.positions
      for (const position of known === undefined ? [] : (read?.(known) ?? [])) {
        const key = `${position.contract}:${position.market}:${position.account}`.toLowerCase()
        if (seen.has(key) || out.length >= POSITION_PROBE_LIMIT) continue
        seen.add(key)
        out.push({
          protocol: position.protocol,
          contract: position.contract,
          market: position.market,
          account: position.account,
          call: { from: ZERO, to: position.contract, data: position.data, value: 0n },
          txIndex: i,
          fields: position.fields,
        })
      }
    }
  })
  return out
}

/** The fields that changed between the reads before and after; unreadable probes are left out. */
export function positionChanges(
  probes: readonly PositionProbe[],
  before: readonly SimulatedCall[],
  after: readonly SimulatedCall[],
): PositionChange[] {
  const out: PositionChange[] = []
  probes.forEach((probe, i) => {
    const a = read(probe, before[i])
    const b = read(probe, after[i])
    if (a === undefined || b === undefined) return
    for (const field of FIELDS) {
      const was = a[field]
      const is = b[field]
      if (was === undefined || is === undefined || was === is) continue
      out.push({
        txIndex: probe.txIndex,
        protocol: probe.protocol,
        contract: probe.contract,
        market: probe.market,
        account: probe.account,
        field,
        before: was,
        after: is,
      })
    }
  })
  return out
}

function read(probe: PositionProbe, call: SimulatedCall | undefined) {
  return call?.status === 'success' ? probe.fields(call.returnData) : undefined
}
