import {
  type Address,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  keccak256,
  parseAbi,
  parseAbiParameters,
} from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import type { JsonValue } from '../calldata/json-value.js'
import type { TransactionInput } from '../evm/transaction.js'
import { addr, big, type KnownCallSite, knownCallSite, obj } from '../screen/call-args.js'
import { type CallSite, callSites } from '../screen/call-sites.js'
import type { CallRequest, SimulatedCall } from './chain-reader.js'

/**
 * Positions a protocol keeps in its own storage, read before and after the transaction in the
 * preflight's one `eth_simulateV1` (view calls placed before and after the transaction in the
 * same simulated block): what a supply, a repay or a withdrawal changes that no `Transfer`
 * shows. Today: Morpho Blue's `position(id, user)` for the account a catalogued call names.
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
}

/** One field of a position that changed. */
export interface PositionChange {
  txIndex: number
  protocol: string
  contract: Address
  market: Hex
  account: Address
  /** `supplyShares`, `borrowShares` (a liability) or `collateral`. */
  field: 'supplyShares' | 'borrowShares' | 'collateral'
  before: bigint
  after: bigint
}

/** At most this many positions are read per preflight (they ride in the same request). */
export const POSITION_PROBE_LIMIT = 8

const MORPHO_ABI = parseAbi([
  'function position(bytes32 id, address user) view returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral)',
])
const MARKET_PARAMS = parseAbiParameters('address, address, address, address, uint256')
const ZERO: Address = '0x0000000000000000000000000000000000000000'

/** Morpho Blue functions whose position changes, and the argument naming whose. */
const MORPHO_POSITION_OF: Readonly<Record<string, string>> = {
  'supply((address,address,address,address,uint256),uint256,uint256,address,bytes)': 'onBehalf',
  'supplyCollateral((address,address,address,address,uint256),uint256,address,bytes)': 'onBehalf',
  'repay((address,address,address,address,uint256),uint256,uint256,address,bytes)': 'onBehalf',
  'withdraw((address,address,address,address,uint256),uint256,uint256,address,address)': 'onBehalf',
  'borrow((address,address,address,address,uint256),uint256,uint256,address,address)': 'onBehalf',
  'withdrawCollateral((address,address,address,address,uint256),uint256,address,address)':
    'onBehalf',
}

/** The positions the transactions' catalogued calls change, to read before and after them. */
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
      const probe = known ? morphoProbe(site, known, i) : undefined
      if (probe === undefined) continue
      const key = `${probe.contract}:${probe.market}:${probe.account}`.toLowerCase()
      if (seen.has(key) || out.length >= POSITION_PROBE_LIMIT) continue
      seen.add(key)
      out.push(probe)
    }
  })
  return out
}

function morphoProbe(
  site: CallSite,
  known: KnownCallSite,
  txIndex: number,
): PositionProbe | undefined {
  const whose = MORPHO_POSITION_OF[known.key]
  if (whose === undefined) return undefined
  const account = addr(known.args[whose])
  const market = marketId(known.args.marketParams)
  if (account === undefined || market === undefined) return undefined
  return {
    protocol: 'Morpho Blue',
    contract: site.target,
    market,
    account,
    call: {
      from: ZERO,
      to: site.target,
      data: encodeFunctionData({
        abi: MORPHO_ABI,
        functionName: 'position',
        args: [market, account],
      }),
      value: 0n,
    },
    txIndex,
  }
}

/** Morpho's market id: keccak256 of the ABI-encoded MarketParams. */
function marketId(value: JsonValue | undefined): Hex | undefined {
  const p = obj(value)
  const loan = addr(p.loanToken)
  const collateral = addr(p.collateralToken)
  const oracle = addr(p.oracle)
  const irm = addr(p.irm)
  const lltv = big(p.lltv)
  if (!loan || !collateral || !oracle || !irm || lltv === undefined) return undefined
  return keccak256(encodeAbiParameters(MARKET_PARAMS, [loan, collateral, oracle, irm, lltv]))
}

/** The fields that changed between the reads before and after; unreadable probes are left out. */
export function positionChanges(
  probes: readonly PositionProbe[],
  before: readonly SimulatedCall[],
  after: readonly SimulatedCall[],
): PositionChange[] {
  const out: PositionChange[] = []
  probes.forEach((probe, i) => {
    const a = read(before[i])
    const b = read(after[i])
    if (a === undefined || b === undefined) return
    for (const field of ['supplyShares', 'borrowShares', 'collateral'] as const) {
      if (a[field] === b[field]) continue
      out.push({
        txIndex: probe.txIndex,
        protocol: probe.protocol,
        contract: probe.contract,
        market: probe.market,
        account: probe.account,
        field,
        before: a[field],
        after: b[field],
      })
    }
  })
  return out
}

function read(call: SimulatedCall | undefined) {
  if (call?.status !== 'success') return undefined
  try {
    const [supplyShares, borrowShares, collateral] = decodeFunctionResult({
      abi: MORPHO_ABI,
      functionName: 'position',
      data: call.returnData,
    })
    return { supplyShares, borrowShares, collateral }
  } catch {
    return undefined
  }
}
