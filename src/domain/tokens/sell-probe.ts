import { expectBytes, lowerHex } from '@pre-send-guard/client/types'
import { type Address, decodeFunctionResult, encodeFunctionData, getAddress } from 'viem'
import probeArtifact from '../../../contracts/artifacts/SellProbe.json' with { type: 'json' }
import type { CallRequest, SimulatedCall, StateOverrides } from '../preflight/chain-reader.js'
import type { SwapOutputHop } from '../protocols/protocol-module.js'
import type { SellMeasurement } from './token-facts.js'

export type { SellMeasurement } from './token-facts.js'

/**
 * The addresses the sell probe plays with: plain numbers nobody holds the key of, so the probe
 * cannot collide with a real account.
 */
export const SELL_PROBE_ADDRESSES = {
  /** Runs {@link probeArtifact} in the transaction's block: keeps the sender's balances before it. */
  keeper: '0x000000000000000000000000000000005e11a001',
  /** The fresh address the received amount is moved to (its shortfall is the transfer tax). */
  fresh: '0x000000000000000000000000000000005e11a002',
} as const satisfies Record<string, Address>

/** Most tokens probed per sender (each costs a few calls in the later simulated block). */
export const SELL_PROBE_LIMIT = 4

const ABI = probeArtifact.abi
const CODE = expectBytes(probeArtifact.deployedBytecode, 'SellProbe.json')

/** One token the probe measures for one sender: the pool its sell goes through. */
export interface SellCandidate {
  token: Address
  other: Address
  fee: number
  /** The pool's kind as the probe's `Candidate.kind` numbers it ({@link POOL_KINDS}). */
  kind: number
  factory: Address
}

/** `SellProbe.Candidate.kind` of each kind of pool a swap's output comes from. */
const POOL_KINDS: Readonly<Record<SwapOutputHop['kind'], number>> = {
  v2: 0,
  v3: 1,
  'solidly-volatile': 2,
  'solidly-stable': 3,
}

/** The probe's place in the one `eth_simulateV1` request of a preflight. */
export interface SellProbePlan {
  /** Tokens probed per sender (lower-case keys). */
  candidates: ReadonlyMap<Address, readonly SellCandidate[]>
  /** Override for the transaction's block: the keeper's code (a fresh address: no effect on it). */
  keeperOverride: StateOverrides
  /** A read before the transactions, in their block: the keeper records the balances. */
  snapshot: CallRequest[]
  /** The later simulated block: each sender runs the probe's code. */
  later: { overrides: StateOverrides; calls: CallRequest[] }
}

/**
 * The sell probe for the output hops of each sender's swaps (at most {@link SELL_PROBE_LIMIT}
 * tokens per sender); undefined when no swap names a pool, so a request without swaps is as it
 * was. The probe never changes what the transactions do: the keeper is a fresh address, and the
 * senders run the probe's code only in a simulated block after theirs.
 */
export function sellProbePlan(
  hops: readonly { sender: Address; hop: SwapOutputHop }[],
): SellProbePlan | undefined {
  const candidates = new Map<Address, SellCandidate[]>()
  for (const { sender, hop } of hops) {
    const key = lowerHex(sender)
    const list = candidates.get(key) ?? []
    if (list.some((c) => c.token.toLowerCase() === hop.tokenOut.toLowerCase())) continue
    if (list.length >= SELL_PROBE_LIMIT) continue
    list.push({
      token: hop.tokenOut,
      other: hop.tokenIn,
      fee: hop.fee,
      kind: POOL_KINDS[hop.kind],
      factory: hop.factory,
    })
    candidates.set(key, list)
  }
  if (candidates.size === 0) return undefined
  const keeper = getAddress(SELL_PROBE_ADDRESSES.keeper)
  const senders = [...candidates.keys()]
  return {
    candidates,
    keeperOverride: { [keeper]: { code: CODE } },
    snapshot: senders.map((sender) => ({
      from: keeper,
      to: keeper,
      value: 0n,
      data: encodeFunctionData({
        abi: ABI,
        functionName: 'snapshot',
        args: [sender, (candidates.get(sender) ?? []).map((c) => c.token)],
      }),
    })),
    later: {
      overrides: Object.fromEntries(senders.map((s) => [getAddress(s), { code: CODE }])),
      calls: senders.map((sender) => {
        const account = getAddress(sender)
        return {
          from: account,
          to: account,
          value: 0n,
          data: encodeFunctionData({
            abi: ABI,
            functionName: 'probe',
            args: [
              keeper,
              getAddress(SELL_PROBE_ADDRESSES.fresh),
              (candidates.get(sender) ?? []).map((c) => ({
                token: c.token,
                other: c.other,
                fee: c.fee,
                kind: c.kind,
                factory: c.factory,
              })),
            ],
          }),
        }
      }),
    },
  }
}

type RawMeasured = {
  received: bigint
  moved: boolean
  arrived: bigint
  pool: Address
  delivered: boolean
  poolGot: bigint
  proceeds: bigint
}

/**
 * The measurements by sender and token (lower-case keys) from the later block's results; a
 * probe call that failed, or a token the sender did not receive, has none.
 */
export function sellMeasurements(
  plan: SellProbePlan,
  results: readonly SimulatedCall[] | undefined,
): Map<string, Map<string, SellMeasurement>> {
  const out = new Map<string, Map<string, SellMeasurement>>()
  if (results === undefined) return out
  ;[...plan.candidates.entries()].forEach(([sender, candidates], i) => {
    const result = results[i]
    if (result?.status !== 'success') return
    let measured: readonly RawMeasured[]
    try {
      measured = decodeFunctionResult({
        abi: ABI,
        functionName: 'probe',
        data: result.returnData,
      }) as readonly RawMeasured[]
    } catch {
      return
    }
    const byToken = new Map<string, SellMeasurement>()
    candidates.forEach((c, j) => {
      const m = measured[j]
      if (m === undefined || m.received === 0n) return
      byToken.set(c.token.toLowerCase(), {
        received: m.received,
        moved: m.moved,
        arrived: m.arrived,
        pool: /^0x0{40}$/.test(m.pool) ? undefined : getAddress(m.pool),
        delivered: m.delivered,
        poolGot: m.poolGot,
        proceeds: m.proceeds,
      })
    })
    out.set(sender.toLowerCase(), byToken)
  })
  return out
}
