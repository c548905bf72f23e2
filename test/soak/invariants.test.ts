import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import {
  checkInvariants,
  checkKillRecovery,
  everyInstanceDown,
  recoveryDeadline,
  type SoakEvidence,
} from '../../scripts/soak/invariants.js'
import type {
  CallRecord,
  ForgedCall,
  PaymentRecord,
  SettlerTransaction,
} from '../../scripts/soak/soak-records.js'
import { newReceiptId, type Receipt, signReceipt } from '../../src/domain/receipt/receipt.js'

// The soak's checker judged on small hand-made histories: a clean one passes every invariant,
// and each way of breaking one (a refused valid payment, a charge without a receipt, a receipt
// without a charge, a double charge, ledger != chain, a row left in flight, a 500, an instance
// not ready; and under attack: a reverted settlement sent again, a settler over the gas
// ceiling, the gas-price-gated payer reverting twice, a flood let through, a forged row left
// past its prune window, an honest payment squatted or throttled, a hostile payment answered
// wrong) is caught by exactly the invariant it breaks.

const signer = privateKeyToAccount(generatePrivateKey())
const payTo = privateKeyToAddress(generatePrivateKey())
const payer = privateKeyToAddress(generatePrivateKey())
const PRICE = 10_000n
const nonce = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const tx = (n: number) => `0x${(n + 0xabc).toString(16).padStart(64, '0')}` as Hex
const now = 1_800_000_000

async function receiptFor(n: number, settlementTx: Hex = tx(n)): Promise<Receipt> {
  return signReceipt(signer, {
    id: newReceiptId(),
    requestHash: nonce(1000 + n),
    responseHash: nonce(2000 + n),
    verdict: 'sign',
    chainId: '8453',
    blockNumber: '10',
    blockHash: nonce(3000),
    settlementTx,
    payer,
    payTo,
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    amount: PRICE.toString(),
    network: 'eip155:8453',
    issuedAt: String(now),
  })
}

const attempt = (status: CallRecord['status'], code?: string): CallRecord => ({
  kind: 'paid',
  instance: 0,
  at: 0,
  ms: 10,
  status,
  code,
  json: status !== 'network',
  retryAfter: status === 503 || status === 502 ? '1' : null,
})

const BOUND_MS = 18_000
const KILL_AT = 2_500

const settler = privateKeyToAddress(generatePrivateKey())
const gated = privateKeyToAddress(generatePrivateKey())
const switcher = privateKeyToAddress(generatePrivateKey())
const CEILING = 250_000n
/** Three tokens, one a second: a flood of six in 100 ms gets three through. */
const LIMIT = { perMinute: 60, burst: 3 }
const SQUATTED = 'pay_squatted_0000000000000001'

/** A settlement of `who`'s authorization `n` by the settler, as the chain shows it. */
const settlement = (
  n: number,
  status: SettlerTransaction['status'] = 'success',
  who = payer,
): SettlerTransaction => ({
  hash: tx(n),
  from: settler,
  blockNumber: BigInt(10 + n),
  gas: 90_000n,
  gasUsed: status === 'success' ? 70_000n : 50_000n,
  status,
  authorization: { payer: who, nonce: nonce(n) },
})

/** A forged payment of flood 0 from one client to instance 0, answered `status`. */
const forgedCall = (
  i: number,
  status: ForgedCall['status'],
  code = status === 429 ? 'rate_limited' : 'payment_required',
): ForgedCall => ({
  ...attempt(status, code),
  kind: 'forged',
  at: 1_000 + 10 * i,
  wave: 0,
  client: '203.0.113.1',
  payer,
  nonce: nonce(100 + i),
  validBefore: now + 20,
  ...(i === 0 ? { identifier: SQUATTED } : {}),
})

/**
 * Two payments, each retried once through a 503 and then answered 200; ledger = chain. The
 * first had a request on instance 1 when it was killed (at 2.5 s): its retry got 200 1 s later.
 */
async function cleanHistory(): Promise<SoakEvidence> {
  const payments: PaymentRecord[] = []
  for (const n of [1, 2]) {
    payments.push({
      payer,
      nonce: nonce(n),
      validBefore: now + 60,
      attempts: [attempt(503, 'rpc_unavailable'), attempt(200)],
      outcome: { status: 200, receipt: await receiptFor(n), atUnix: now },
    })
  }
  ;(payments[0] as PaymentRecord).attempts = [
    { ...attempt('network'), instance: 1, at: 1_000, ms: 2_000 },
    { ...attempt(200), at: 3_100, ms: 400 },
  ]
  // The buyer's second payment used the id a forgery squatted first.
  ;(payments[1] as PaymentRecord).identifier = SQUATTED
  // The hostile payers: the gated one refused at verify; the front-runner's owner closed its
  // wallet ahead of its settlement (reverted once), its next payment refused before sending.
  const refused = (role: PaymentRecord['role'], who: typeof payer, n: number, reason: string) => ({
    payer: who,
    nonce: nonce(n),
    role,
    validBefore: now + 60,
    attempts: [{ ...attempt(402, 'payment_required'), reason }],
    outcome: { status: 402, code: 'payment_required', reason, atUnix: now },
  })
  payments.push(
    refused('gas-price-gated', gated, 20, 'verification_failed'),
    refused('front-run', switcher, 30, 'settlement_failed'),
    refused('front-run', switcher, 31, 'payer_settlement_reverted'),
  )
  const ledger = [1, 2].map((n) => ({
    payer,
    nonce: nonce(n),
    status: 'settled',
    amount: PRICE,
    settlementTx: tx(n),
  }))
  return {
    payments,
    others: [{ ...attempt(402, 'payment_required'), kind: 'unpaid' }],
    ledger,
    transfers: [1, 2].map((n) => ({ payer, nonce: nonce(n), tx: tx(n), value: PRICE, to: payTo })),
    payToDelta: 2n * PRICE,
    payTo,
    price: PRICE,
    receiptSigners: [signer.address],
    health: [{ instance: 0, healthz: 200, readyz: 200 }],
    kills: [{ instance: 1, at: KILL_AT }],
    outages: [],
    recoveryBoundMs: BOUND_MS,
    settlerTransactions: [settlement(1), settlement(2), settlement(30, 'reverted', switcher)],
    gasCeiling: CEILING,
    // Six forgeries in 60 ms: the burst of three, then 429.
    forged: [0, 1, 2, 3, 4, 5].map((i) => forgedCall(i, i < 3 ? 402 : 429)),
    rateLimit: LIMIT,
    pruneWindowSeconds: 70,
    ledgerAfterPrune: ledger,
    ledgerReadAtUnix: now + 200,
    hostile: [
      { role: 'gas-price-gated', address: gated },
      { role: 'front-run', address: switcher },
    ],
  }
}

async function failing(evidence: SoakEvidence): Promise<string[]> {
  return (await checkInvariants(evidence)).filter((r) => !r.ok).map((r) => r.name)
}

describe('the soak invariants', () => {
  it('all hold on a clean history, with the numbers reported', async () => {
    const results = await checkInvariants(await cleanHistory())
    expect(results.filter((r) => !r.ok)).toEqual([])
    expect(results.map((r) => r.detail)).toContain(
      'ledger 2 settled / 20000, chain 2 transfers / 20000, payTo +20000',
    )
  })

  it('a valid, funded payment refused with a final 402 breaks "answered 200"', async () => {
    const e = await cleanHistory()
    const p = e.payments[1] as PaymentRecord
    p.outcome = { status: 402, code: 'invalid_signature', atUnix: now }
    e.transfers.pop()
    e.ledger[1] = { ...(e.ledger[1] as SoakEvidence['ledger'][number]), status: 'failed' }
    e.payToDelta = PRICE
    expect(await failing(e)).toEqual(['every valid, funded payment answered 200'])
    // ...while a 402 after the authorization expired, unused, is the buyer's own doing.
    p.outcome = { status: 402, code: 'payment_expired', atUnix: now + 61 }
    expect(await failing(e)).toEqual([])
  })

  it('a payment never answered breaks "answered 200"', async () => {
    const e = await cleanHistory()
    e.payments.push({
      payer,
      nonce: nonce(9),
      validBefore: now + 60,
      attempts: [attempt('network')],
    })
    expect(await failing(e)).toEqual(['every valid, funded payment answered 200'])
  })

  it('a charge answered 503 forever breaks "every charge answered with a receipt"', async () => {
    const e = await cleanHistory()
    const p = e.payments[0] as PaymentRecord
    p.attempts = [attempt(503, 'settlement_pending')]
    delete p.outcome
    expect(await failing(e)).toContain(
      'every charge answered 200 with a verified receipt naming its transfer',
    )
  })

  it('a receipt naming another transaction, or with a forged signature, is caught', async () => {
    const e = await cleanHistory()
    const p = e.payments[0] as PaymentRecord & { outcome: { receipt: Receipt } }
    p.outcome.receipt = await receiptFor(1, tx(77))
    expect(await failing(e)).toEqual([
      'every charge answered 200 with a verified receipt naming its transfer',
      'no 200 without a charge',
    ])
    const forged = await cleanHistory()
    const q = forged.payments[0] as PaymentRecord & { outcome: { receipt: Receipt } }
    q.outcome.receipt = { ...q.outcome.receipt, verdict: 'block' }
    expect(await failing(forged)).toEqual([
      'every charge answered 200 with a verified receipt naming its transfer',
    ])
  })

  it('a 200 with nothing moved on chain breaks "no 200 without a charge" and ledger == chain', async () => {
    const e = await cleanHistory()
    e.transfers.pop()
    e.payToDelta = PRICE
    expect(await failing(e)).toEqual(['no 200 without a charge', 'ledger == chain'])
  })

  it('an authorization charged twice is caught', async () => {
    const e = await cleanHistory()
    e.transfers.push({ payer, nonce: nonce(1), tx: tx(50), value: PRICE, to: payTo })
    e.payToDelta = 3n * PRICE
    expect(await failing(e)).toContain('no authorization charged twice')
    const rows = await cleanHistory()
    rows.ledger.push({ ...(rows.ledger[0] as SoakEvidence['ledger'][number]), status: 'failed' })
    expect(await failing(rows)).toEqual(['no authorization charged twice'])
  })

  it('a ledger that disagrees with the chain is caught (amount, transaction, balance)', async () => {
    const amount = await cleanHistory()
    amount.ledger[0] = { ...(amount.ledger[0] as SoakEvidence['ledger'][number]), amount: 1n }
    expect(await failing(amount)).toEqual(['ledger == chain'])
    const balance = await cleanHistory()
    balance.payToDelta = PRICE
    expect(await failing(balance)).toEqual(['ledger == chain'])
  })

  it('a row left settling after recovery is caught', async () => {
    const e = await cleanHistory()
    e.ledger.push({ payer, nonce: nonce(5), status: 'settling', amount: PRICE, settlementTx: null })
    expect(await failing(e)).toEqual(['no ledger row left non-final'])
  })

  it('a 500, a non-JSON answer, an undocumented 503 or one without Retry-After is caught', async () => {
    for (const bad of [
      attempt(500, 'internal_error'),
      { ...attempt(200), json: false },
      attempt(503, 'invalid_signature'),
      { ...attempt(503, 'rpc_unavailable'), retryAfter: null },
    ]) {
      const e = await cleanHistory()
      e.others.push({ ...bad, kind: 'preflight' })
      expect(await failing(e)).toEqual(['no 500, no non-JSON, 5xx only documented and retryable'])
    }
  })

  it('an instance not ready at the end is caught', async () => {
    const e = await cleanHistory()
    e.health.push({ instance: 1, healthz: 200, readyz: 503 })
    expect(await failing(e)).toEqual(['every instance healthy and ready'])
  })

  it('a payment a kill cut off answered past the lease plus a block is caught', async () => {
    const e = await cleanHistory()
    const { perKill } = checkKillRecovery(e.payments, e.kills, e.outages, BOUND_MS)
    expect(perKill.map((k) => k.payments.map((p) => p.ms))).toEqual([[1_000]])
    const p = e.payments[0] as PaymentRecord
    // Its retry waited out a lease, then another: answered 20.5 s after the kill.
    p.attempts[1] = { ...attempt(200), at: 3_100, ms: 19_900 }
    expect(await failing(e)).toEqual([
      'every payment a kill cut off answered within the lease plus a block',
    ])
    // Never answered at all: late, and unanswered.
    delete p.outcome
    p.attempts[1] = { ...attempt(503, 'payment_in_progress'), at: 3_100, ms: 10_000 }
    expect(await failing(e)).toEqual([
      'every valid, funded payment answered 200',
      'every charge answered 200 with a verified receipt naming its transfer',
      'every payment a kill cut off answered within the lease plus a block',
    ])
  })

  it('an outage overlapping a kill moves its bound to the outage end; one after it does not', async () => {
    const e = await cleanHistory()
    const p = e.payments[0] as PaymentRecord
    p.attempts[1] = { ...attempt(200), at: 3_100, ms: 25_000 } // answered 25.6 s after the kill
    // A database cut from 10 s to 15 s: the bound runs from 15 s (33 s, answered at 28.1 s).
    e.outages = [{ kind: 'db-cut', from: 10_000, to: 15_000 }]
    expect(await failing(e)).toEqual([])
    // A blackout that starts after the bound ran out moves nothing.
    e.outages = [{ kind: 'blackout', from: KILL_AT + BOUND_MS + 1, to: 40_000 }]
    expect(await failing(e)).toEqual([
      'every payment a kill cut off answered within the lease plus a block',
    ])
    // Chained outages: the second overlaps only the window the first extended.
    const chained = [
      { kind: 'db-cut', from: 0, to: 5_000 },
      { kind: 'blackout', from: 22_000, to: 30_000 },
      { kind: 'db-cut', from: 60_000, to: 61_000 },
    ]
    expect(recoveryDeadline(KILL_AT, chained, BOUND_MS)).toEqual({
      deadline: 30_000 + BOUND_MS,
      overlapping: chained.slice(0, 2),
    })
  })

  it('a payment with no request on the killed instance is not counted as cut off', async () => {
    const e = await cleanHistory()
    // The kill of instance 0 hits nothing in flight: its payments ran on instance 0 at 0-10 ms.
    const { perKill } = checkKillRecovery(
      e.payments,
      [{ instance: 0, at: 5_000 }],
      e.outages,
      BOUND_MS,
    )
    expect(perKill[0]?.payments).toEqual([])
  })

  it('a payment cut off again by a later kill is judged from that kill', async () => {
    const e = await cleanHistory()
    const p = e.payments[0] as PaymentRecord
    // Instance 0 took it over and was killed in turn at 17 s; answered 30 s after the first kill.
    p.attempts = [
      { ...attempt('network'), instance: 1, at: 1_000, ms: 2_000 },
      { ...attempt('network'), instance: 0, at: 12_000, ms: 5_500 },
      { ...attempt(200), at: 18_000, ms: 14_500 },
    ]
    expect(await failing(e)).toEqual([
      'every payment a kill cut off answered within the lease plus a block',
    ])
    e.kills.push({ instance: 0, at: 17_000 })
    expect(await failing(e)).toEqual([])
    const { perKill } = checkKillRecovery(e.payments, e.kills, e.outages, BOUND_MS)
    expect(perKill[0]?.payments[0]?.laterKill).toEqual({ instance: 0, at: 17_000 })
    // ...but it still must be answered within the later kill's bound.
    p.attempts[2] = { ...attempt(200), at: 18_000, ms: 18_500 }
    expect(await failing(e)).toEqual([
      'every payment a kill cut off answered within the lease plus a block',
    ])
  })

  it('the attack invariants report what they judged on a clean history', async () => {
    const results = await checkInvariants(await cleanHistory())
    const detail = (name: string) => results.find((r) => r.name === name)?.detail
    expect(detail('no reverted settlement sent twice for one authorization')).toBe(
      '3 settler transactions for 3 authorizations, 1 with a reverted settlement, 0 sent again or unexplained',
    )
    expect(detail('forged payments meet 429 once the burst is spent, never 200')).toBe(
      '6 forged calls from 1 clients, 3 answered 429; 1 of 1 client/instance groups spent their burst',
    )
    expect(detail('honest payers unaffected: no squat 409, no 429')).toBe(
      '1 ids squatted, 1 of them then paid by their buyer: 1 answered 200',
    )
  })

  it('a reverted settlement sent again for its authorization is caught, as is a reverted non-settlement', async () => {
    const e = await cleanHistory()
    e.settlerTransactions.push({ ...settlement(30, 'reverted', switcher), hash: tx(61) })
    expect(await failing(e)).toEqual(['no reverted settlement sent twice for one authorization'])
    // Resent and this time it went through: still the second send of a reverted settlement.
    const paid = await cleanHistory()
    paid.settlerTransactions.push({ ...settlement(30, 'success', switcher), hash: tx(62) })
    expect(await failing(paid)).toContain('no reverted settlement sent twice for one authorization')
    const stray = await cleanHistory()
    stray.settlerTransactions.push({
      ...settlement(40, 'reverted'),
      hash: tx(63),
      authorization: undefined,
    })
    expect(await failing(stray)).toEqual([
      'no reverted settlement sent twice for one authorization',
    ])
  })

  it('a settler transaction over the gas ceiling, or a settler whose reverts outweigh its settlements, is caught', async () => {
    const e = await cleanHistory()
    e.settlerTransactions[0] = {
      ...(e.settlerTransactions[0] as SettlerTransaction),
      gas: CEILING + 1n,
    }
    expect(await failing(e)).toEqual(['settler gas per settled payment within the ceiling'])
    // Two settled payments at 70,000 gas, and reverts of the hostile payers' worth 420,000 more:
    // 280,000 gas per settled payment.
    const burnt = await cleanHistory()
    for (const n of [41, 42, 43])
      burnt.settlerTransactions.push({
        ...settlement(n, 'reverted', privateKeyToAddress(generatePrivateKey())),
        gasUsed: 140_000n,
      })
    expect(await failing(burnt)).toEqual(['settler gas per settled payment within the ceiling'])
    // A settler that only ever reverted: no settled payment to spread it over.
    const only = await cleanHistory()
    only.settlerTransactions.push({
      ...settlement(44, 'reverted', switcher),
      from: privateKeyToAddress(generatePrivateKey()),
    })
    expect(await failing(only)).toEqual(['settler gas per settled payment within the ceiling'])
  })

  it('the gas-price-gated payer making a second settlement revert is caught', async () => {
    const e = await cleanHistory()
    e.settlerTransactions.push(settlement(50, 'reverted', gated))
    // One revert is what a payer can always cost: allowed.
    expect(await failing(e)).toEqual([])
    e.settlerTransactions.push(settlement(51, 'reverted', gated))
    expect(await failing(e)).toEqual([
      'the gas-price-gated payer cost at most one reverted settlement',
    ])
  })

  it('a flood the limit lets through, a forged payment answered 200, or a flood too small to judge is caught', async () => {
    const through = await cleanHistory()
    through.forged = [0, 1, 2, 3, 4, 5].map((i) => forgedCall(i, 402))
    expect(await failing(through)).toEqual([
      'forged payments meet 429 once the burst is spent, never 200',
    ])
    const paid = await cleanHistory()
    paid.forged[1] = forgedCall(1, 200)
    expect(await failing(paid)).toEqual([
      'forged payments meet 429 once the burst is spent, never 200',
    ])
    const small = await cleanHistory()
    small.forged = small.forged.slice(0, 2)
    expect(await failing(small)).toEqual([
      'forged payments meet 429 once the burst is spent, never 200',
    ])
  })

  it('a restarted instance starts a new bucket; the start-up stand-in takes no token', async () => {
    const e = await cleanHistory()
    // Twelve forgeries to instance 0: three through and three 429, then (killed at 1.1 s and
    // back) three through and three 429 again: six through, but three per process.
    e.forged = Array.from({ length: 12 }, (_, i) => forgedCall(i, i % 6 < 3 ? 402 : 429))
    for (const c of e.forged.slice(6)) c.at += 200
    expect(await failing(e)).toEqual([
      'forged payments meet 429 once the burst is spent, never 200',
    ])
    e.kills.push({ instance: 0, at: 1_100 })
    expect(await failing(e)).toEqual([])
    // A 503 service_starting is answered before the app: it spends nothing, so is not counted.
    const starting = await cleanHistory()
    starting.forged.unshift(
      ...[0, 1, 2].map((i) => ({
        ...forgedCall(10 + i, 503, 'service_starting'),
        retryAfter: '5',
      })),
    )
    expect(await failing(starting)).toEqual([])
  })

  it('a forged payment whose row outlives its prune window is caught; inside the window it may stay', async () => {
    const e = await cleanHistory()
    const f = e.forged[0] as ForgedCall
    e.ledgerAfterPrune = [
      ...e.ledgerAfterPrune,
      { payer: f.payer, nonce: f.nonce, status: 'failed', amount: PRICE, settlementTx: null },
    ]
    expect(await failing(e)).toEqual(["no ledger row outlives a forged payment's prune window"])
    e.ledgerReadAtUnix = f.validBefore + 69
    expect(await failing(e)).toEqual([])
  })

  it('an honest payment 409d by a squat, or an honest call 429d, is caught', async () => {
    const e = await cleanHistory()
    const p = e.payments[1] as PaymentRecord
    p.attempts.unshift(attempt(409, 'payment_identifier_conflict'))
    expect(await failing(e)).toEqual(['honest payers unaffected: no squat 409, no 429'])
    const throttled = await cleanHistory()
    throttled.others.push({ ...attempt(429, 'rate_limited'), kind: 'preflight' })
    expect(await failing(throttled)).toEqual(['honest payers unaffected: no squat 409, no 429'])
  })

  it('a hostile payment left unanswered, or answered with a reason its kind cannot have, is caught', async () => {
    const e = await cleanHistory()
    const gatedPayment = e.payments.find((p) => p.role === 'gas-price-gated') as PaymentRecord
    delete gatedPayment.outcome
    expect(await failing(e)).toEqual(['every hostile payment answered as its kind allows'])
    const wrong = await cleanHistory()
    const frontRun = wrong.payments.find((p) => p.role === 'front-run') as PaymentRecord
    frontRun.outcome = {
      status: 402,
      code: 'payment_required',
      reason: 'invalid_signature',
      atUnix: now,
    }
    expect(await failing(wrong)).toEqual(['every hostile payment answered as its kind allows'])
  })

  it('a forged payment answered 500 is caught with the other calls', async () => {
    const e = await cleanHistory()
    e.forged.push(forgedCall(9, 500, 'internal_error'))
    expect(await failing(e)).toEqual(['no 500, no non-JSON, 5xx only documented and retryable'])
  })

  it('finds the windows in which every instance was down at once', () => {
    // Instance 0 down 10-20 s and 50-60 s; instance 1 down 15-30 s and 58-70 s.
    expect(
      everyInstanceDown([
        [
          { from: 10_000, to: 20_000 },
          { from: 50_000, to: 60_000 },
        ],
        [
          { from: 15_000, to: 30_000 },
          { from: 58_000, to: 70_000 },
        ],
      ]),
    ).toEqual([
      { kind: 'every instance down', from: 15_000, to: 20_000 },
      { kind: 'every instance down', from: 58_000, to: 60_000 },
    ])
    // One instance never down: never every instance.
    expect(everyInstanceDown([[{ from: 10_000, to: 20_000 }], []])).toEqual([])
  })
})
