import { type Address, type Hex, isAddressEqual, verifyTypedData } from 'viem'
import {
  RECEIPT_DOMAIN,
  RECEIPT_TYPE,
  RECEIPT_TYPES,
  type Receipt,
  receiptFields,
} from '../../src/domain/receipt/receipt.js'
import { codesByStatus } from '../../src/http/error-status.js'
import { type AttackEvidence, checkAttackInvariants, PAYING_ROLES } from './attack-invariants.js'
import type {
  CallRecord,
  ChainTransfer,
  InvariantResult,
  KillRecord,
  LedgerRow,
  OutageRecord,
  PaymentRecord,
} from './soak-records.js'

/** Everything the invariants are judged on: the buyers' history, the ledger, the chain, the attack. */
export interface SoakEvidence extends AttackEvidence {
  payments: PaymentRecord[]
  /** Unpaid calls and read-only preflights. */
  others: CallRecord[]
  ledger: LedgerRow[]
  transfers: ChainTransfer[]
  /** payTo's USDC balance change over the run. */
  payToDelta: bigint
  payTo: Address
  price: bigint
  /** The receipt signers of the instances (one key each). */
  receiptSigners: Address[]
  /** Each instance's `/healthz` and `/readyz` status at the end. */
  health: { instance: number; healthz: number | 'network'; readyz: number | 'network' }[]
  /** The kills the storm made, and the outages that may overlap them. */
  kills: KillRecord[]
  outages: OutageRecord[]
  /** One owner lease, plus a block, plus a paid call's work (ms); see docs/soak.md. */
  recoveryBoundMs: number
}

/**
 * 5xx answers the service documents (code -> status, from the one mapping the OpenAPI document
 * and docs/api.md are checked against): 502 and 503 only; anything else is a defect.
 */
const DOCUMENTED_5XX = new Map<string, number>(
  [...codesByStatus()]
    .filter(([status]) => status === 502 || status === 503)
    .flatMap(([status, codes]) => codes.map((code): [string, number] => [code, status])),
)

const FINAL_LEDGER = new Set(['settled', 'failed'])
const key = (payer: string, nonce: string) => `${payer.toLowerCase()}:${nonce.toLowerCase()}`

/**
 * Judges a soak's history against the money invariants of issue 28, then the attack's (issue
 * 37, {@link checkAttackInvariants}). Pure: no I/O (receipt signatures are checked by
 * computation), so hand-made histories can prove each check bites.
 */
export async function checkInvariants(e: SoakEvidence): Promise<InvariantResult[]> {
  const results: InvariantResult[] = []
  const add = (name: string, bad: string[], detail: string) =>
    results.push({ name, ok: bad.length === 0, detail, examples: bad.slice(0, 5) })

  const transfersByKey = new Map<string, ChainTransfer[]>()
  for (const t of e.transfers) {
    const k = key(t.payer, t.nonce)
    transfersByKey.set(k, [...(transfersByKey.get(k) ?? []), t])
  }
  const paymentsByKey = new Map(e.payments.map((p) => [key(p.payer, p.nonce), p]))

  // 1. Every valid, funded payment got a 200; a 402 only once expired and unused.
  {
    const bad: string[] = []
    let ok200 = 0
    let expired = 0
    // The hostile payers that refuse, or are refused, are judged by the attack invariants.
    const paying = e.payments.filter((p) => PAYING_ROLES.includes(p.role))
    for (const p of paying) {
      const k = key(p.payer, p.nonce)
      if (p.outcome?.status === 200) ok200++
      else if (!p.outcome) bad.push(`${k}: no final answer (${p.attempts.length} attempts)`)
      else if (
        p.outcome.status === 402 &&
        p.outcome.atUnix >= p.validBefore &&
        !transfersByKey.has(k)
      )
        expired++
      else bad.push(`${k}: final ${p.outcome.status} ${'code' in p.outcome ? p.outcome.code : ''}`)
    }
    add(
      'every valid, funded payment answered 200',
      bad,
      `${ok200}/${paying.length} got 200, ${expired} expired unused (402), ${bad.length} refused or unanswered`,
    )
  }

  // 2. Every authorization whose USDC moved got a 200 with a verifying receipt naming that transfer.
  {
    const bad: string[] = []
    const signers = e.receiptSigners
    for (const [k, transfers] of transfersByKey) {
      const p = paymentsByKey.get(k)
      const tx = transfers[0]?.tx
      if (!p) {
        bad.push(`${k}: charged on chain (${tx}) but no buyer signed it`)
        continue
      }
      if (p.outcome?.status !== 200 || !('receipt' in p.outcome)) {
        bad.push(`${k}: charged (${tx}) but answered ${p.outcome?.status ?? 'never'}`)
        continue
      }
      const r = p.outcome.receipt
      if (!transfers.some((t) => t.tx.toLowerCase() === r.settlementTx.toLowerCase()))
        bad.push(`${k}: receipt names ${r.settlementTx}, chain moved it in ${tx}`)
      else if (!isAddressEqual(r.payer as Address, p.payer))
        bad.push(`${k}: receipt payer ${r.payer}`)
      else if (!signers.some((s) => isAddressEqual(s, r.signer as Address)))
        bad.push(`${k}: receipt signer ${r.signer} is no instance's`)
      else if (!(await receiptVerifies(r))) bad.push(`${k}: receipt signature does not verify`)
    }
    add(
      'every charge answered 200 with a verified receipt naming its transfer',
      bad,
      `${transfersByKey.size} authorizations charged on chain, ${bad.length} without a matching verified receipt`,
    )
  }

  // 3. No 200 without a charge of the price to payTo.
  {
    const bad: string[] = []
    let answered = 0
    for (const p of e.payments) {
      if (p.outcome?.status !== 200 || !('receipt' in p.outcome)) continue
      answered++
      const k = key(p.payer, p.nonce)
      const tx = p.outcome.receipt.settlementTx.toLowerCase()
      const t = transfersByKey.get(k)?.find((x) => x.tx.toLowerCase() === tx)
      if (!t) bad.push(`${k}: 200 but nothing moved on chain`)
      else if (t.value !== e.price || !isAddressEqual(t.to, e.payTo))
        bad.push(`${k}: moved ${t.value} to ${t.to}`)
    }
    add(
      'no 200 without a charge',
      bad,
      `${answered} answers 200, ${bad.length} without the price reaching payTo`,
    )
  }

  // 4. No authorization charged twice; one ledger row per authorization.
  {
    const bad: string[] = []
    for (const [k, ts] of transfersByKey)
      if (ts.length > 1) bad.push(`${k}: ${ts.length} transfers`)
    const rows = new Map<string, number>()
    for (const r of e.ledger)
      rows.set(key(r.payer, r.nonce), (rows.get(key(r.payer, r.nonce)) ?? 0) + 1)
    for (const [k, n] of rows) if (n > 1) bad.push(`${k}: ${n} ledger rows`)
    add(
      'no authorization charged twice',
      bad,
      `${e.transfers.length} transfers for ${transfersByKey.size} authorizations, ${bad.length} doubled`,
    )
  }

  // 5. Ledger == chain: the settled rows are exactly the transfers, in transactions and sums.
  {
    const bad: string[] = []
    const settled = e.ledger.filter((r) => r.status === 'settled')
    let ledgerSum = 0n
    for (const r of settled) {
      ledgerSum += r.amount
      const t = transfersByKey.get(key(r.payer, r.nonce))?.[0]
      if (!t) bad.push(`${key(r.payer, r.nonce)}: settled in the ledger, not on chain`)
      else if (t.tx.toLowerCase() !== r.settlementTx?.toLowerCase())
        bad.push(`${key(r.payer, r.nonce)}: ledger tx ${r.settlementTx}, chain ${t.tx}`)
      else if (t.value !== r.amount)
        bad.push(`${key(r.payer, r.nonce)}: ledger ${r.amount}, chain ${t.value}`)
    }
    const settledKeys = new Set(settled.map((r) => key(r.payer, r.nonce)))
    for (const k of transfersByKey.keys())
      if (!settledKeys.has(k)) bad.push(`${k}: moved on chain, not settled in the ledger`)
    const chainSum = e.transfers.reduce((s, t) => s + t.value, 0n)
    if (ledgerSum !== chainSum) bad.push(`ledger sum ${ledgerSum} != chain sum ${chainSum}`)
    if (chainSum !== e.payToDelta)
      bad.push(`transfers ${chainSum} != payTo balance change ${e.payToDelta}`)
    add(
      'ledger == chain',
      bad,
      `ledger ${settled.length} settled / ${ledgerSum}, chain ${e.transfers.length} transfers / ${chainSum}, payTo +${e.payToDelta}`,
    )
  }

  // 6. Nothing left in flight after recovery.
  {
    const bad = e.ledger
      .filter((r) => !FINAL_LEDGER.has(r.status))
      .map((r) => `${key(r.payer, r.nonce)}: ${r.status}`)
    const byStatus = new Map<string, number>()
    for (const r of e.ledger) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1)
    add(
      'no ledger row left non-final',
      bad,
      `${e.ledger.length} rows: ${[...byStatus].map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}`,
    )
  }

  // 7. No 500, no non-JSON answer; 5xx only 502/503 with a documented code and Retry-After.
  {
    const bad: string[] = []
    const calls = [...e.payments.flatMap((p) => p.attempts), ...e.others, ...e.forged]
    let fivexx = 0
    for (const c of calls) {
      if (c.status === 'network') continue
      const where = `${c.kind} #${c.instance} at ${c.at} ms`
      if (!c.json) bad.push(`${where}: ${c.status} not JSON`)
      else if (c.status >= 500) {
        fivexx++
        if (DOCUMENTED_5XX.get(c.code ?? '') !== c.status)
          bad.push(`${where}: ${c.status} ${c.code}`)
        else if (!c.retryAfter) bad.push(`${where}: ${c.status} ${c.code} without Retry-After`)
      }
    }
    add(
      'no 500, no non-JSON, 5xx only documented and retryable',
      bad,
      `${calls.length} calls, ${fivexx} 502/503, ${bad.length} undocumented`,
    )
  }

  // 8. Every instance healthy and ready at the end.
  {
    const bad = e.health
      .filter((h) => h.healthz !== 200 || h.readyz !== 200)
      .map((h) => `instance ${h.instance}: healthz ${h.healthz}, readyz ${h.readyz}`)
    add(
      'every instance healthy and ready',
      bad,
      `${e.health.length - bad.length}/${e.health.length} ready`,
    )
  }

  // 9. A payment a kill cut off was answered within the lease plus a block.
  results.push(checkKillRecovery(e.payments, e.kills, e.outages, e.recoveryBoundMs).result)
  results.push(...checkAttackInvariants(e))
  return results
}

/** Whether a receipt's EIP-712 signature verifies against its own signer. */
export async function receiptVerifies(receipt: Receipt): Promise<boolean> {
  const m = receiptFields(receipt)
  try {
    return await verifyTypedData({
      address: receipt.signer as Address,
      domain: RECEIPT_DOMAIN,
      types: RECEIPT_TYPES,
      primaryType: RECEIPT_TYPE,
      message: {
        ...m,
        chainId: BigInt(m.chainId),
        blockNumber: BigInt(m.blockNumber),
        amount: BigInt(m.amount),
        issuedAt: BigInt(m.issuedAt),
      } as never,
      signature: receipt.signature as Hex,
    })
  } catch {
    return false
  }
}

/**
 * The windows in which every instance was down at once (killed, not yet listening again), from
 * each instance's down intervals: nobody could take a payment over then, so they count as
 * outages for the kill bound.
 */
export function everyInstanceDown(downs: { from: number; to: number }[][]): OutageRecord[] {
  const [first, ...rest] = downs
  if (!first) return []
  let common = first.map((d) => ({ from: d.from, to: d.to }))
  for (const other of rest) {
    const next: { from: number; to: number }[] = []
    for (const a of common)
      for (const b of other) {
        const from = Math.max(a.from, b.from)
        const to = Math.min(a.to, b.to)
        if (from < to) next.push({ from, to })
      }
    common = next
  }
  return common
    .sort((a, b) => a.from - b.from)
    .map((w) => ({ kind: 'every instance down', from: w.from, to: w.to }))
}

/** How long after a kill the payments it cut off were answered, against the bound. */
export interface KillRecovery {
  kill: KillRecord
  /** When every payment it cut off had to be answered (ms since the load started). */
  deadline: number
  /** The outages that pushed the deadline past `kill.at + boundMs`. */
  overlapping: OutageRecord[]
  /** Each cut-off payment: ms from the kill to its final answer (undefined: none came). */
  payments: {
    key: string
    ms: number | undefined
    status: number | undefined
    /** A later kill cut it off again: it is judged from that one. */
    laterKill?: KillRecord
  }[]
}

/**
 * The payments a kill cut off: those with a request in flight on the killed instance when the
 * signal went (it answered nothing: the connection dropped).
 */
export function cutOffBy(kill: KillRecord, payments: PaymentRecord[]): PaymentRecord[] {
  return payments.filter((p) =>
    p.attempts.some(
      (a) =>
        a.instance === kill.instance &&
        a.status === 'network' &&
        a.at <= kill.at &&
        a.at + a.ms >= kill.at,
    ),
  )
}

/**
 * When a payment a kill cut off must be answered by: `boundMs` after the kill, or, when an
 * outage overlaps that window, `boundMs` after the outage's end (repeated while another
 * outage overlaps the extended window): while the database is cut or the RPC is dark nobody
 * can take the payment over, so the lease's clock only counts once both are back.
 */
export function recoveryDeadline(
  killAt: number,
  outages: OutageRecord[],
  boundMs: number,
): { deadline: number; overlapping: OutageRecord[] } {
  let deadline = killAt + boundMs
  const overlapping: OutageRecord[] = []
  for (let changed = true; changed; ) {
    changed = false
    for (const o of outages) {
      if (overlapping.includes(o) || o.to < killAt || o.from > deadline) continue
      overlapping.push(o)
      if (o.to + boundMs > deadline) {
        deadline = o.to + boundMs
        changed = true
      }
    }
  }
  return { deadline, overlapping }
}

/**
 * The promise of issue 28: a payment held by a killed instance is answered within one owner
 * lease plus a block (and the answer's own work, in `boundMs`) after the kill, or after the
 * end of an outage that overlaps it. A payment cut off again by a later kill (the instance
 * that took it over was killed in turn) is judged from that later kill. A cut-off payment
 * answered later, or never, breaks it.
 */
export function checkKillRecovery(
  payments: PaymentRecord[],
  kills: KillRecord[],
  outages: OutageRecord[],
  boundMs: number,
): { result: InvariantResult; perKill: KillRecovery[] } {
  const bad: string[] = []
  const windows = kills.map((kill) => ({ kill, ...recoveryDeadline(kill.at, outages, boundMs) }))
  // The last kill that cut each payment off, and its deadline.
  const lastCut = new Map<PaymentRecord, (typeof windows)[number]>()
  for (const w of windows)
    for (const p of cutOffBy(w.kill, payments)) {
      const before = lastCut.get(p)
      if (!before || before.kill.at < w.kill.at) lastCut.set(p, w)
    }
  const perKill = windows.map(({ kill, deadline, overlapping }): KillRecovery => {
    const cut = cutOffBy(kill, payments).map((p) => {
      const last = p.attempts.at(-1)
      const answeredAt = p.outcome && last ? last.at + last.ms : undefined
      const k = key(p.payer, p.nonce)
      const ms = answeredAt === undefined ? undefined : answeredAt - kill.at
      const judge = lastCut.get(p)
      const laterKill = judge && judge.kill !== kill ? judge.kill : undefined
      if (!laterKill && (answeredAt === undefined || answeredAt > deadline))
        bad.push(
          `${k}: cut off by the kill of #${kill.instance} at ${kill.at} ms, ${ms === undefined ? 'never answered' : `answered ${ms} ms later`}, bound ${deadline - kill.at} ms`,
        )
      return { key: k, ms, status: p.outcome?.status, ...(laterKill ? { laterKill } : {}) }
    })
    return { kill, deadline, overlapping, payments: cut }
  })
  const cutOff = new Set(perKill.flatMap((k) => k.payments.map((p) => p.key))).size
  return {
    result: {
      name: 'every payment a kill cut off answered within the lease plus a block',
      ok: bad.length === 0,
      detail: `${kills.length} kills cut off ${cutOff} payments, ${bad.length} answered late or never (bound ${boundMs} ms after the last kill that cut it off, or an overlapping outage's end)`,
      examples: bad.slice(0, 5),
    },
    perKill,
  }
}
