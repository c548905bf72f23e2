import { type Address, type Hex, isAddressEqual } from 'viem'
import type { HostileRole } from './schedule.js'
import type {
  CallRecord,
  ForgedCall,
  InvariantResult,
  KillRecord,
  LedgerRow,
  PaymentRecord,
  SettlerTransaction,
} from './soak-records.js'

/** What the attackers did and what the chain shows of the settlers, for the attack invariants. */
export interface AttackEvidence {
  /** Every transaction of every settlement account over the run's blocks. */
  settlerTransactions: SettlerTransaction[]
  /** `SETTLEMENT_GAS_CEILING` of the settlers. */
  gasCeiling: bigint
  forged: ForgedCall[]
  /** The instances' rate-limit policy for the paid route (`RATE_LIMIT_PER_MINUTE`/`_BURST`). */
  rateLimit: { perMinute: number; burst: number }
  /**
   * How long after its `validBefore` a row of a payment that never verified may still exist
   * (s): the prune's grace plus two reconciler passes.
   */
  pruneWindowSeconds: number
  /**
   * The ledger rows once every forged authorization's prune window ran out (without a flood,
   * the rows read at the end of the recovery).
   */
  ledgerAfterPrune: LedgerRow[]
  /** When those rows were read (unix seconds). */
  ledgerReadAtUnix: number
  /** The hostile payers' addresses, by role. */
  hostile: { role: HostileRole; address: Address }[]
}

const key = (payer: string, nonce: string) => `${payer.toLowerCase()}:${nonce.toLowerCase()}`

/** Roles whose payments are valid and funded: they must be answered as an honest buyer's are. */
export const PAYING_ROLES: readonly (HostileRole | undefined)[] = [undefined, 'gas-burner-under']

/**
 * Judges what the attackers (hostile payers, forged floods) did, from the chain, the ledger
 * and the answers, never the service's word. Pure, so hand-made records prove each check bites.
 */
export function checkAttackInvariants(
  e: AttackEvidence & {
    payments: PaymentRecord[]
    others: CallRecord[]
    transfers: { payer: Address; nonce: Hex }[]
    kills: KillRecord[]
  },
): InvariantResult[] {
  return [
    revertedNeverResent(e.settlerTransactions),
    settlerGasWithinCeiling(e.settlerTransactions, e.gasCeiling),
    gatedPayerRevertsAtMostOnce(e.settlerTransactions, e.hostile),
    forgedMeet429(e.forged, e.rateLimit, e.kills),
    noForgedRowOutlivesPrune(
      e.forged,
      e.ledgerAfterPrune,
      e.pruneWindowSeconds,
      e.ledgerReadAtUnix,
    ),
    honestUnaffected(e.payments, e.others, e.forged),
    hostileAnswered(e.payments, e.transfers),
  ]
}

function result(name: string, bad: string[], detail: string): InvariantResult {
  return { name, ok: bad.length === 0, detail, examples: bad.slice(0, 5) }
}

/** (a) An authorization whose settlement reverted was submitted once, never again. */
function revertedNeverResent(txs: SettlerTransaction[]): InvariantResult {
  const bad: string[] = []
  const byAuthorization = new Map<string, SettlerTransaction[]>()
  for (const t of txs) {
    if (!t.authorization) {
      if (t.status === 'reverted') bad.push(`${t.hash}: reverted, and submits no authorization`)
      continue
    }
    const k = key(t.authorization.payer, t.authorization.nonce)
    byAuthorization.set(k, [...(byAuthorization.get(k) ?? []), t])
  }
  let reverted = 0
  for (const [k, sent] of byAuthorization) {
    if (!sent.some((t) => t.status === 'reverted')) continue
    reverted++
    if (sent.length > 1)
      bad.push(
        `${k}: ${sent.length} settlements (${sent.map((t) => `${t.hash} ${t.status} in block ${t.blockNumber}`).join(', ')})`,
      )
  }
  return result(
    'no reverted settlement sent twice for one authorization',
    bad,
    `${txs.length} settler transactions for ${byAuthorization.size} authorizations, ${reverted} with a reverted settlement, ${bad.length} sent again or unexplained`,
  )
}

/** (b) Every settler transaction's gas limit, and each settler's gas per settled payment, <= the ceiling. */
function settlerGasWithinCeiling(txs: SettlerTransaction[], ceiling: bigint): InvariantResult {
  const bad: string[] = []
  const bySettler = new Map<string, SettlerTransaction[]>()
  for (const t of txs) {
    if (t.gas > ceiling) bad.push(`${t.hash}: gas limit ${t.gas} > ceiling ${ceiling}`)
    const k = t.from.toLowerCase()
    bySettler.set(k, [...(bySettler.get(k) ?? []), t])
  }
  const per: string[] = []
  for (const [settler, sent] of bySettler) {
    const used = sent.reduce((sum, t) => sum + t.gasUsed, 0n)
    const settled = BigInt(sent.filter((t) => t.status === 'success').length)
    const reverted = sent.length - Number(settled)
    const each = settled > 0n ? used / settled : undefined
    per.push(
      `${settler.slice(0, 8)}: ${settled} settled, ${reverted} reverted, ${each ?? 'no settlement, '}${each === undefined ? `${used} gas` : ' gas each'}`,
    )
    if (each === undefined ? used > 0n : each > ceiling)
      bad.push(
        `settler ${settler}: ${used} gas for ${settled} settled payments${each === undefined ? '' : ` (${each} each)`} > ceiling ${ceiling}`,
      )
  }
  return result(
    'settler gas per settled payment within the ceiling',
    bad,
    `ceiling ${ceiling}; ${per.join('; ') || 'no settler transaction'}`,
  )
}

/** (c) The payer that approves only unpriced simulations made at most one settlement revert. */
function gatedPayerRevertsAtMostOnce(
  txs: SettlerTransaction[],
  hostile: AttackEvidence['hostile'],
): InvariantResult {
  const gated = hostile.filter((h) => h.role === 'gas-price-gated').map((h) => h.address)
  const sent = txs.filter((t) => {
    const payer = t.authorization?.payer
    return payer !== undefined && gated.some((g) => isAddressEqual(g, payer))
  })
  const reverted = sent.filter((t) => t.status === 'reverted')
  return result(
    'the gas-price-gated payer cost at most one reverted settlement',
    reverted.length > 1
      ? [`${reverted.length} reverted settlements: ${reverted.map((t) => t.hash).join(', ')}`]
      : [],
    `${gated.length} gated payer${gated.length === 1 ? '' : 's'}: ${sent.length} settlements sent, ${reverted.length} reverted`,
  )
}

/**
 * (d) Forged payments spend their client's bucket like unpaid calls: of one client's forged
 * calls to one instance (one process: a restart starts an empty store), at most the burst
 * plus what refilled while they ran got past the limit; never a 200. A flood that never spent
 * a burst judges nothing, and fails: the flood must be big enough to test the limit.
 */
function forgedMeet429(
  forged: ForgedCall[],
  limit: AttackEvidence['rateLimit'],
  kills: KillRecord[],
): InvariantResult {
  if (forged.length === 0)
    return result('forged payments meet 429 once the burst is spent, never 200', [], 'no flood')
  const bad: string[] = []
  const groups = new Map<string, ForgedCall[]>()
  for (const c of forged) {
    if (c.status === 200)
      bad.push(`${c.client} -> #${c.instance} at ${c.at} ms: forged, answered 200`)
    if (c.status === 'network') continue
    // Which process of the instance answered: one per kill before the call.
    const life = kills.filter((k) => k.instance === c.instance && k.at <= c.at).length
    const g = `${c.wave}/${c.client}/#${c.instance}/${life}`
    groups.set(g, [...(groups.get(g) ?? []), c])
  }
  let spent = 0
  let limited = 0
  for (const [g, calls] of groups) {
    const from = Math.min(...calls.map((c) => c.at))
    const to = Math.max(...calls.map((c) => c.at + c.ms))
    const allowance = limit.burst + Math.ceil((limit.perMinute * (to - from)) / 60_000) + 1
    // A 503 `service_starting` came from the start-up stand-in, before the app and its limit.
    const counted = calls.filter((c) => c.code !== 'service_starting')
    const admitted = counted.filter((c) => c.status !== 429).length
    limited += counted.length - admitted
    if (counted.length > allowance) spent++
    if (admitted > allowance)
      bad.push(
        `${g}: ${admitted} of ${counted.length} forged calls got past the limit in ${to - from} ms (burst ${limit.burst} + refill: at most ${allowance})`,
      )
  }
  if (spent === 0)
    bad.push(`no client spent a burst (${forged.length} forged calls): the flood judged nothing`)
  return result(
    'forged payments meet 429 once the burst is spent, never 200',
    bad,
    `${forged.length} forged calls from ${new Set(forged.map((c) => c.client)).size} clients, ${limited} answered 429; ${spent} of ${groups.size} client/instance groups spent their burst`,
  )
}

/** (d) No ledger row of a forged authorization survives its prune window. */
function noForgedRowOutlivesPrune(
  forged: ForgedCall[],
  ledger: { payer: Address; nonce: Hex; status: string }[],
  windowSeconds: number,
  readAtUnix: number,
): InvariantResult {
  const rows = new Map(ledger.map((r) => [key(r.payer, r.nonce), r]))
  const bad: string[] = []
  let inWindow = 0
  let rowsFound = 0
  for (const c of forged) {
    const row = rows.get(key(c.payer, c.nonce))
    if (!row) continue
    rowsFound++
    if (c.validBefore + windowSeconds <= readAtUnix)
      bad.push(
        `${key(c.payer, c.nonce)}: forged, row ${row.status} still there ${readAtUnix - c.validBefore} s after validBefore (window ${windowSeconds} s)`,
      )
    else inWindow++
  }
  const expired = forged.filter((c) => c.validBefore + windowSeconds <= readAtUnix).length
  return result(
    "no ledger row outlives a forged payment's prune window",
    bad,
    `${forged.length} forged authorizations (${expired} past their window when read), ${rowsFound} with a row, ${inWindow} of them still inside it`,
  )
}

/** (d) Honest buyers: no payment 409'd by a squat of its id, no call 429'd. */
function honestUnaffected(
  payments: PaymentRecord[],
  others: CallRecord[],
  forged: ForgedCall[],
): InvariantResult {
  const bad: string[] = []
  const honest = payments.filter((p) => p.role === undefined)
  for (const p of honest)
    for (const a of p.attempts) {
      if (a.status === 409)
        bad.push(`${key(p.payer, p.nonce)}: 409 ${a.code} at ${a.at} ms (id ${p.identifier})`)
      if (a.status === 429) bad.push(`${key(p.payer, p.nonce)}: paid call 429 at ${a.at} ms`)
    }
  for (const c of others)
    if (c.status === 429) bad.push(`${c.kind} #${c.instance} at ${c.at} ms: 429`)
  const squats = new Set(
    forged.filter((c) => c.identifier).map((c) => `${c.payer.toLowerCase()}:${c.identifier}`),
  )
  const squatted = honest.filter(
    (p) => p.identifier && squats.has(`${p.payer.toLowerCase()}:${p.identifier}`),
  )
  return result(
    'honest payers unaffected: no squat 409, no 429',
    bad,
    `${squats.size} ids squatted, ${squatted.length} of them then paid by their buyer: ${squatted.filter((p) => p.outcome?.status === 200).length} answered 200`,
  )
}

/**
 * Every hostile payment got a final answer its kind allows: the gas-price-gated and the
 * over-ceiling payers refused (402) and never charged; the front-runner 200 (its owner was too
 * late) or refused because its settlement reverted (`settlement_failed`, then
 * `payer_settlement_reverted`). The under-ceiling burner is judged as a buyer (invariant 1).
 */
function hostileAnswered(
  payments: PaymentRecord[],
  transfers: { payer: Address; nonce: Hex }[],
): InvariantResult {
  const bad: string[] = []
  const charged = new Set(transfers.map((t) => key(t.payer, t.nonce)))
  const byOutcome = new Map<string, number>()
  for (const p of payments) {
    if (PAYING_ROLES.includes(p.role)) continue
    const k = key(p.payer, p.nonce)
    const o = p.outcome
    const tag = `${p.role} ${o ? `${o.status}${'reason' in o && o.reason ? ` ${o.reason}` : ''}` : 'unanswered'}`
    byOutcome.set(tag, (byOutcome.get(tag) ?? 0) + 1)
    if (!o) {
      bad.push(`${k} (${p.role}): no final answer`)
      continue
    }
    const reason = 'reason' in o ? o.reason : undefined
    if (p.role === 'front-run') {
      if (
        o.status !== 200 &&
        !(
          o.status === 402 &&
          ['settlement_failed', 'payer_settlement_reverted'].includes(reason ?? '')
        )
      )
        bad.push(`${k} (front-run): final ${o.status} ${reason ?? ''}`)
    } else if (o.status !== 402 || charged.has(k))
      bad.push(`${k} (${p.role}): final ${o.status}${charged.has(k) ? ', charged' : ''}`)
  }
  return result(
    'every hostile payment answered as its kind allows',
    bad,
    [...byOutcome]
      .sort()
      .map(([t, n]) => `${t}: ${n}`)
      .join('; ') || 'no hostile payment',
  )
}
