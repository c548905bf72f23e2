import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import pg from 'pg'
import { type Address, type Hex, keccak256, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { MIGRATIONS, migrate } from '../../src/adapters/storage/migrations.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { PGLITE_LOCK_FILE } from '../../src/adapters/storage/sql-client.js'
import { paymentRequirements } from '../../src/domain/payment/offer.js'
import type { NewPayment } from '../../src/domain/payment/payment-ledger.js'
import type { PreflightResult } from '../../src/domain/preflight/run-preflight.js'
import { signReceipt } from '../../src/domain/receipt/receipt.js'
import { AppError } from '../../src/errors.js'
import { statusForCode } from '../../src/http/error-status.js'
import { DATABASE_URL, postgresAvailable } from '../support/postgres.js'
import { startTcpProxy } from '../support/tcp-proxy.js'

const PAY_TO = DEVNET_ACCOUNTS.payTo.address
const SIGNER = privateKeyToAccount(DEVNET_ACCOUNTS.receiptSigner.privateKey)

const havePostgres = await postgresAvailable()

const backends = [
  {
    name: 'PGlite (embedded)',
    open: (schema: string) => openStorage({ kind: 'pglite', dataDir: undefined, schema }),
  },
  ...(havePostgres
    ? [
        {
          name: 'PostgreSQL',
          open: (schema: string) => openStorage({ kind: 'postgres', url: DATABASE_URL, schema }),
        },
      ]
    : []),
]

function newPayment(overrides: Partial<NewPayment> = {}): NewPayment {
  const nonce = toHex(randomBytes(32))
  const payer = privateKeyToAccount(toHex(randomBytes(32))).address
  return {
    id: keccak256(nonce),
    network: 'eip155:8453',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    payer,
    nonce,
    payTo: PAY_TO,
    amount: 10_000n,
    validBefore: 2_000_000_000n,
    payloadHash: keccak256('0x01'),
    payload: { x402Version: 2, accepted: paymentRequirements(PAY_TO), payload: { nonce } },
    requestHash: keccak256('0x02'),
    ...overrides,
  }
}

const RESULT = {
  verdict: 'sign',
  chainId: '0x2105',
  block: { number: '12', hash: `0x${'11'.repeat(32)}`, timestamp: '1' },
  // A revert reason may hold NUL and lone surrogates: stored and returned unchanged.
  findings: [{ id: 'x', severity: 'info', title: 'nul \u0000 and \ud800', detail: '' }],
} as unknown as PreflightResult

async function receiptFor(payment: NewPayment, settlementTx: Hex) {
  return signReceipt(SIGNER, {
    id: `rcpt_${randomBytes(16).toString('hex')}`,
    requestHash: payment.requestHash,
    responseHash: keccak256('0x03'),
    verdict: 'sign',
    chainId: '8453',
    blockNumber: '12',
    blockHash: `0x${'11'.repeat(32)}`,
    settlementTx,
    payer: payment.payer,
    payTo: payment.payTo,
    asset: payment.asset,
    amount: payment.amount.toString(),
    network: payment.network,
    issuedAt: '1700000000',
  })
}

describe.each(backends)('the payment ledger on $name', ({ open }) => {
  // A schema of its own per run, dropped at the end: runs never see each other's rows.
  const schema = `test_ledger_${randomBytes(6).toString('hex')}`
  let storage: Storage

  beforeAll(async () => {
    storage = await open(schema)
  }, 30_000)

  afterAll(async () => {
    if (!storage) return
    await storage.sql.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await storage.close()
  })

  it('migrates once: a second run applies nothing', async () => {
    expect(await migrate(storage.sql, schema)).toEqual([])
    const { rows } = await storage.sql.query<{ version: number }>(
      `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
    )
    expect(rows.map((r) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.version))
  })

  it('lets exactly one of many concurrent claims of one authorization win', async () => {
    const payment = newPayment()
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => storage.ledger.claim(payment)),
    )
    expect(claims.filter((c) => c.claimed)).toHaveLength(1)
    for (const claim of claims.filter((c) => !c.claimed)) {
      expect(claim).toMatchObject({
        claimed: false,
        existing: { id: payment.id, status: 'verifying' },
      })
    }
  })

  it('refuses a second row for the same authorization under another id', async () => {
    const payment = newPayment()
    expect(await storage.ledger.claim(payment)).toEqual({ claimed: true })
    await expect(
      storage.sql.query(
        `INSERT INTO "${schema}".payments (id, network, asset, payer, nonce, pay_to, amount,
           valid_before, payload_hash, payload, request_hash, status)
         VALUES ('other', $1, $2, $3, $4, $5, 1, 1, 'h', '{}', 'r', 'verifying')`,
        [payment.network, payment.asset, payment.payer, payment.nonce, payment.payTo],
      ),
    ).rejects.toThrow(/payments_authorization_unique|duplicate key/)
  })

  it('moves only from the expected status (compare-and-set)', async () => {
    const payment = newPayment()
    await storage.ledger.claim(payment)
    expect(await storage.ledger.transition(payment.id, ['verified'], { status: 'settling' })).toBe(
      false,
    )
    expect(await storage.ledger.transition(payment.id, ['verifying'], { status: 'verified' })).toBe(
      true,
    )
    expect(
      await storage.ledger.transition(payment.id, ['verified'], {
        status: 'settling',
        result: RESULT,
      }),
    ).toBe(true)
    const record = await storage.ledger.get(payment.id)
    expect(record).toMatchObject({
      status: 'settling',
      amount: 10_000n,
      attempts: 1,
      result: RESULT,
    })
    expect(record?.payload).toEqual(payment.payload)
  })

  it('announces a settlement before it is sent: one sender per settlement it read, never on a resolved payment', async () => {
    const payment = newPayment()
    const ledger = storage.ledger
    const a = keccak256('0xa1')
    const b = keccak256('0xb2')
    await ledger.claim(payment)
    // Not settling yet: nothing to announce.
    expect(await ledger.announceSettlement(payment.id, null, a)).toBe(false)
    await ledger.transition(payment.id, ['verifying'], { status: 'verified' })
    await ledger.transition(payment.id, ['verified'], { status: 'settling', result: RESULT })
    // Two senders that read the row without a settlement: exactly one may send.
    const raced = await Promise.all([
      ledger.announceSettlement(payment.id, null, a),
      ledger.announceSettlement(payment.id, null, b),
    ])
    expect(raced.filter(Boolean)).toHaveLength(1)
    const won = raced[0] ? a : b
    expect((await ledger.get(payment.id))?.settlementTx).toBe(won)
    // A sender that read the announced one replaces it (the node lost it); a stale one cannot.
    const c = keccak256('0xc3')
    expect(await ledger.announceSettlement(payment.id, null, c)).toBe(false)
    expect(await ledger.announceSettlement(payment.id, won, c)).toBe(true)
    await ledger.transition(payment.id, ['settling'], { status: 'settle_pending' })
    const d = keccak256('0xd4')
    expect(await ledger.announceSettlement(payment.id, c, d)).toBe(true)
    // Resolved: nothing may be sent for it any more.
    await ledger.transition(payment.id, ['settle_pending'], {
      status: 'failed',
      failure: { kind: 'payment_required', code: 'settlement_failed', message: 'x', final: true },
    })
    expect(await ledger.announceSettlement(payment.id, d, keccak256('0xe5'))).toBe(false)
    expect((await ledger.get(payment.id))?.settlementTx).toBe(d)
  })

  it('stores the settled status and its receipt together, and never settled without one', async () => {
    const payment = newPayment()
    await storage.ledger.claim(payment)
    await storage.ledger.transition(payment.id, ['verifying'], {
      status: 'settling',
      result: RESULT,
    })
    await expect(
      storage.ledger.transition(payment.id, ['settling'], { status: 'settled' }),
    ).rejects.toThrow(/payments_settled_complete/)
    const tx = `0x${'aa'.repeat(32)}` as Hex
    const receipt = await receiptFor(payment, tx)
    const settleResponse = { success: true, transaction: tx, network: 'eip155:8453' as const }
    expect(
      await storage.ledger.transition(payment.id, ['settling'], {
        status: 'settled',
        settlementTx: tx,
        settleResponse,
        receipt,
      }),
    ).toBe(true)
    expect(await storage.ledger.getReceipt(receipt.id)).toEqual(receipt)
    expect(await storage.ledger.get(payment.id)).toMatchObject({
      status: 'settled',
      settlementTx: tx,
      settleResponse,
      receiptId: receipt.id,
    })
    // A second receipt for the same payment is refused, and the first one stays.
    const second = await receiptFor(payment, tx)
    expect(
      await storage.ledger.transition(payment.id, ['settling'], {
        status: 'settled',
        receipt: second,
      }),
    ).toBe(false)
    expect(await storage.ledger.getReceipt(second.id)).toBeUndefined()
  })

  it('lets a failed payment be claimed again, once', async () => {
    const payment = newPayment()
    await storage.ledger.claim(payment)
    const failure = {
      kind: 'payment_required' as const,
      code: 'insufficient_funds',
      message: 'no USDC',
    }
    await storage.ledger.transition(payment.id, ['verifying'], { status: 'failed', failure })
    expect(await storage.ledger.get(payment.id)).toMatchObject({ status: 'failed', failure })
    const retry = { ...payment, requestHash: keccak256('0x09') }
    const claims = await Promise.all([storage.ledger.claim(retry), storage.ledger.claim(retry)])
    expect(claims.filter((c) => c.claimed)).toHaveLength(1)
    expect(await storage.ledger.get(payment.id)).toMatchObject({
      status: 'verifying',
      attempts: 2,
      failure: null,
      requestHash: retry.requestHash,
    })
  })

  it('leases pending payments and in-flight ones whose owner lease ran out (database clock)', async () => {
    const pending = newPayment()
    const alive = newPayment()
    const dead = newPayment()
    await storage.ledger.claim(pending)
    await storage.ledger.claim(alive, 60_000)
    // An owner that never renews: its lease runs out at once.
    await storage.ledger.claim(dead, 0)
    await storage.ledger.transition(pending.id, ['verifying'], { status: 'settle_pending' })
    const ids = (await storage.ledger.leaseUnresolved({ leaseMs: 60_000, limit: 100 })).map(
      (r) => r.id,
    )
    expect(ids).toContain(pending.id)
    expect(ids).toContain(dead.id)
    // A living owner's payment is never taken, however old.
    expect(ids).not.toContain(alive.id)
    // Leased: no second reconciler, and no retry, gets it while the lease runs.
    const again = (await storage.ledger.leaseUnresolved({ leaseMs: 60_000, limit: 100 })).map(
      (r) => r.id,
    )
    expect(again).not.toContain(pending.id)
    expect(await storage.ledger.takeOver(pending.id, 1_000)).toBeUndefined()
    // staleAfterMs still adds an age on top of the lease when asked for.
    const old = newPayment()
    await storage.ledger.claim(old, 0)
    const stale = await storage.ledger.leaseUnresolved({
      staleAfterMs: 60_000,
      leaseMs: 60_000,
      limit: 100,
    })
    expect(stale.map((r) => r.id)).not.toContain(old.id)
  })

  it('keeps a renewed lease, and lets exactly one taker have a payment whose owner died', async () => {
    const payment = newPayment()
    await storage.ledger.claim(payment, 10_000)
    await storage.ledger.transition(payment.id, ['verifying'], { status: 'verified' })
    await storage.ledger.transition(payment.id, ['verified'], {
      status: 'settling',
      result: RESULT,
    })
    expect(await storage.ledger.renewLease(payment.id, 60_000)).toBe(true)
    expect((await storage.ledger.get(payment.id))?.leaseUntil.getTime()).toBeGreaterThan(
      Date.now() + 30_000,
    )
    expect(await storage.ledger.takeOver(payment.id, 1_000)).toBeUndefined()
    // The owner dies: nobody renews; once the lease ran out one taker of many wins.
    const dead = newPayment()
    await storage.ledger.claim(dead, 0)
    await storage.ledger.transition(dead.id, ['verifying'], { status: 'verified' })
    await storage.ledger.transition(dead.id, ['verified'], { status: 'settling', result: RESULT })
    const takers = await Promise.all(
      Array.from({ length: 5 }, () => storage.ledger.takeOver(dead.id, 60_000)),
    )
    const won = takers.filter((t) => t !== undefined)
    expect(won).toHaveLength(1)
    expect(won[0]).toMatchObject({ id: dead.id, status: 'settling' })
    // Leaving flight releases the lease: the next retry may look again at once, and a
    // heartbeat arriving late does not take it back.
    await storage.ledger.transition(dead.id, ['settling'], { status: 'settle_pending' })
    expect(await storage.ledger.renewLease(dead.id, 60_000)).toBe(false)
    expect(await storage.ledger.takeOver(dead.id, 60_000)).toMatchObject({ id: dead.id })
  })

  it('lets a retry re-claim a payment abandoned before settling, never one a living owner holds', async () => {
    const payment = newPayment()
    await storage.ledger.claim(payment, 60_000)
    expect(await storage.ledger.claim(payment)).toMatchObject({ claimed: false })
    const abandoned = newPayment()
    await storage.ledger.claim(abandoned, 0)
    await storage.ledger.transition(abandoned.id, ['verifying'], { status: 'verified' })
    // Another payload under the same nonce never takes it over.
    expect(
      await storage.ledger.claim({ ...abandoned, payloadHash: keccak256('0x09') }),
    ).toMatchObject({ claimed: false })
    expect(await storage.ledger.claim(abandoned)).toEqual({ claimed: true })
    expect(await storage.ledger.get(abandoned.id)).toMatchObject({
      status: 'verifying',
      attempts: 2,
    })
  })

  it('backs off a payment the reconciler could not resolve, so it never starves the others', async () => {
    const stuck = newPayment()
    const other = newPayment()
    for (const p of [stuck, other]) {
      await storage.ledger.claim(p)
      await storage.ledger.transition(p.id, ['verifying'], { status: 'settle_pending' })
    }
    const lease = () => storage.ledger.leaseUnresolved({ leaseMs: 0, limit: 100 })
    expect((await lease()).map((r) => r.id)).toEqual(expect.arrayContaining([stuck.id, other.id]))
    await storage.ledger.postpone(stuck.id, 60_000)
    const due = (await lease()).map((r) => r.id)
    expect(due).toContain(other.id)
    expect(due).not.toContain(stuck.id)
    expect(await storage.ledger.get(stuck.id)).toMatchObject({ reconcileAttempts: 1 })
    await storage.ledger.postpone(stuck.id, 0)
    expect((await lease()).map((r) => r.id)).toContain(stuck.id)
  })

  it('gives each due payment to exactly one of several concurrent reconcilers', async () => {
    const mine = new Set<string>()
    for (let i = 0; i < 6; i++) {
      const payment = newPayment()
      await storage.ledger.claim(payment)
      await storage.ledger.transition(payment.id, ['verifying'], { status: 'settle_pending' })
      mine.add(payment.id)
    }
    const leases = await Promise.all(
      Array.from({ length: 3 }, () =>
        storage.ledger.leaseUnresolved({ leaseMs: 60_000, limit: 100 }),
      ),
    )
    const taken = leases
      .flat()
      .map((r) => r.id)
      .filter((id) => mine.has(id))
    expect(taken).toHaveLength(6)
    expect(new Set(taken).size).toBe(6)
  })

  it('never lets a payment the chain failed be claimed again', async () => {
    const payment = newPayment()
    await storage.ledger.claim(payment)
    await storage.ledger.transition(payment.id, ['verifying'], {
      status: 'failed',
      failure: {
        kind: 'payment_required',
        code: 'authorization_canceled',
        message: 'canceled',
        final: true,
      },
    })
    expect(await storage.ledger.claim(payment)).toMatchObject({
      claimed: false,
      existing: { status: 'failed', failure: { code: 'authorization_canceled', final: true } },
    })
  })

  it('sums settled amounts per payTo exactly (numeric, not float)', async () => {
    const payTo = privateKeyToAccount(toHex(randomBytes(32))).address as Address
    for (const amount of [10_000n, 2n ** 70n]) {
      const payment = newPayment({ payTo, amount })
      await storage.ledger.claim(payment)
      await storage.ledger.transition(payment.id, ['verifying'], {
        status: 'settling',
        result: RESULT,
      })
      const tx = toHex(randomBytes(32))
      await storage.ledger.transition(payment.id, ['settling'], {
        status: 'settled',
        settlementTx: tx,
        settleResponse: { success: true, transaction: tx, network: 'eip155:8453' },
        receipt: await receiptFor(payment, tx),
      })
    }
    expect(await storage.ledger.settledTotal(payTo)).toBe(10_000n + 2n ** 70n)
  })

  it('binds a payment-identifier only once its payment verified: an unverified one neither takes nor blocks it', async () => {
    const identifier = `id_${randomBytes(12).toString('hex')}`
    const squat = newPayment({ identifier })
    const { payer } = squat
    expect(await storage.ledger.claim(squat)).toEqual({ claimed: true })
    // Claimed, carried, but not bound: nobody finds it under the id.
    expect(await storage.ledger.get(squat.id)).toMatchObject({ identifier, verifiedAt: null })
    expect(await storage.ledger.findByIdentifier(payer, identifier)).toBeUndefined()
    await storage.ledger.transition(squat.id, ['verifying'], {
      status: 'failed',
      failure: { kind: 'payment_required', code: 'invalid_signature', message: 'forged' },
    })
    expect(await storage.ledger.findByIdentifier(payer, identifier)).toBeUndefined()

    // The payer's own payment under the same id claims and binds it once verified.
    const genuine = newPayment({ payer, identifier })
    expect(await storage.ledger.claim(genuine)).toEqual({ claimed: true })
    expect(await storage.ledger.markVerified(genuine.id)).toBe('verified')
    expect(await storage.ledger.findByIdentifier(payer, identifier)).toMatchObject({
      id: genuine.id,
      status: 'verified',
    })
    expect((await storage.ledger.get(genuine.id))?.verifiedAt).toBeInstanceOf(Date)
    // A second mark is a compare-and-set that finds it moved.
    expect(await storage.ledger.markVerified(genuine.id)).toBe('moved')

    // Now bound, the id is refused to another payment that verifies later, which stays unbound.
    expect(await storage.ledger.claim(squat)).toEqual({ claimed: true })
    expect(await storage.ledger.markVerified(squat.id)).toBe('identifier_taken')
    expect(await storage.ledger.get(squat.id)).toMatchObject({
      status: 'verifying',
      verifiedAt: null,
    })
    expect(await storage.ledger.findByIdentifier(payer, identifier)).toMatchObject({
      id: genuine.id,
    })
    // Another payer's id space is its own.
    const stranger = newPayment({ identifier })
    await storage.ledger.claim(stranger)
    expect(await storage.ledger.markVerified(stranger.id)).toBe('verified')
  })

  it('prunes failed payments that never verified once expired, and nothing else', async () => {
    const nowSeconds = BigInt(Math.floor(Date.now() / 1000))
    const failure = {
      kind: 'payment_required' as const,
      code: 'invalid_signature',
      message: 'refused by verify',
    }
    const fail = async (payment: NewPayment, from: 'verifying' | 'verified') =>
      storage.ledger.transition(payment.id, [from], { status: 'failed', failure })
    // Failed at verify, expired long ago: pruned.
    const expired = newPayment({ validBefore: 1n })
    await storage.ledger.claim(expired)
    await fail(expired, 'verifying')
    // Failed at verify, expired 30 s ago: pruned past a 0 s grace, kept within 60 s.
    const recent = newPayment({ validBefore: nowSeconds - 30n })
    await storage.ledger.claim(recent)
    await fail(recent, 'verifying')
    // Failed at verify, still valid: its payer may fund the wallet and retry it.
    const valid = newPayment({ validBefore: nowSeconds + 300n })
    await storage.ledger.claim(valid)
    await fail(valid, 'verifying')
    // Verified, then failed (the RPC went down before settling): kept.
    const verified = newPayment({ validBefore: 1n })
    await storage.ledger.claim(verified)
    expect(await storage.ledger.markVerified(verified.id)).toBe('verified')
    await fail(verified, 'verified')
    // In flight, never verified yet: not failed, kept.
    const inFlight = newPayment({ validBefore: 1n })
    await storage.ledger.claim(inFlight)
    // Settled: kept.
    const settled = newPayment({ validBefore: 1n })
    await storage.ledger.claim(settled)
    await storage.ledger.transition(settled.id, ['verifying'], {
      status: 'settling',
      result: RESULT,
    })
    const tx = toHex(randomBytes(32))
    await storage.ledger.transition(settled.id, ['settling'], {
      status: 'settled',
      settlementTx: tx,
      settleResponse: { success: true, transaction: tx, network: 'eip155:8453' },
      receipt: await receiptFor(settled, tx),
    })
    expect((await storage.ledger.get(settled.id))?.verifiedAt).toBeInstanceOf(Date)

    expect(
      await storage.ledger.pruneUnverified({ graceSeconds: 60, limit: 1_000 }),
    ).toBeGreaterThanOrEqual(1)
    expect(await storage.ledger.get(expired.id)).toBeUndefined()
    expect(await storage.ledger.get(recent.id)).toBeDefined()
    expect(
      await storage.ledger.pruneUnverified({ graceSeconds: 0, limit: 1_000 }),
    ).toBeGreaterThanOrEqual(1)
    expect(await storage.ledger.get(recent.id)).toBeUndefined()
    for (const kept of [valid, verified, inFlight, settled]) {
      expect(await storage.ledger.get(kept.id), kept.id).toBeDefined()
    }
    expect(
      await storage.ledger.getReceipt((await storage.ledger.get(settled.id))?.receiptId ?? ''),
    ).toBeDefined()
  })
})

describe.each(backends)('upgrading a ledger to migration 6 on $name', ({ open }) => {
  it('releases the identifiers of payments that never verified, and keeps the others bound', async () => {
    const schema = `test_upgrade_${randomBytes(6).toString('hex')}`
    const storage = await open(schema)
    try {
      const q = `"${schema}".payments`
      const id = () => `id_${randomBytes(12).toString('hex')}`
      const squat = newPayment({ identifier: id() })
      const { payer } = squat
      const inFlight = newPayment({ payer, identifier: id() })
      const settled = newPayment({ payer, identifier: id() })
      for (const p of [squat, inFlight, settled]) await storage.ledger.claim(p)
      await storage.ledger.transition(squat.id, ['verifying'], {
        status: 'failed',
        failure: { kind: 'payment_required', code: 'invalid_signature', message: 'forged' },
      })
      await storage.ledger.transition(settled.id, ['verifying'], {
        status: 'settling',
        result: RESULT,
      })
      const tx = toHex(randomBytes(32))
      await storage.ledger.transition(settled.id, ['settling'], {
        status: 'settled',
        settlementTx: tx,
        settleResponse: { success: true, transaction: tx, network: 'eip155:8453' },
        receipt: await receiptFor(settled, tx),
      })
      // The ledger as migration 5 left it: every claim's identifier bound at once.
      await storage.sql.query(
        `UPDATE ${q} SET payment_identifier = COALESCE(payment_identifier, requested_identifier)`,
      )
      await storage.sql.query(`DROP INDEX "${schema}".payments_unverified_failed`)
      await storage.sql.query(`ALTER TABLE ${q} DROP COLUMN verified_at`)
      await storage.sql.query(`ALTER TABLE ${q} DROP COLUMN requested_identifier`)
      await storage.sql.query(`DELETE FROM "${schema}".schema_migrations WHERE version = 6`)

      expect(await migrate(storage.sql, schema)).toEqual([6])
      // The forged payment's id is free again; the in-flight one's waits for its verify.
      expect(await storage.ledger.findByIdentifier(payer, squat.identifier ?? '')).toBeUndefined()
      expect(
        await storage.ledger.findByIdentifier(payer, inFlight.identifier ?? ''),
      ).toBeUndefined()
      expect(await storage.ledger.get(inFlight.id)).toMatchObject({
        identifier: inFlight.identifier,
        verifiedAt: null,
      })
      expect(await storage.ledger.markVerified(inFlight.id)).toBe('verified')
      expect(await storage.ledger.findByIdentifier(payer, inFlight.identifier ?? '')).toMatchObject(
        {
          id: inFlight.id,
        },
      )
      // A settled payment verified: still bound, and marked so.
      expect(await storage.ledger.findByIdentifier(payer, settled.identifier ?? '')).toMatchObject({
        id: settled.id,
        status: 'settled',
      })
      expect((await storage.ledger.get(settled.id))?.verifiedAt).toBeInstanceOf(Date)
      expect((await storage.ledger.get(squat.id))?.verifiedAt).toBeNull()
    } finally {
      await storage.sql.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await storage.close()
    }
  }, 60_000)
})

describe.runIf(havePostgres)('migrations on a shared PostgreSQL', () => {
  it('apply exactly once when several instances start together', async () => {
    const schema = `test_migrate_${randomBytes(6).toString('hex')}`
    const instances = await Promise.all(
      Array.from({ length: 4 }, () => openStorage({ kind: 'postgres', url: DATABASE_URL, schema })),
    )
    try {
      const { rows } = await instances[0]!.sql.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM "${schema}".schema_migrations`,
      )
      expect(Number(rows[0]?.n)).toBe(MIGRATIONS.length)
    } finally {
      await instances[0]?.sql.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await Promise.all(instances.map((s) => s.close()))
    }
  })
})

describe.runIf(havePostgres)('a lost PostgreSQL connection', () => {
  it('is survived: killed connections are replaced, a down server is 503 ledger_unavailable, then it recovers', async () => {
    const target = new URL(DATABASE_URL)
    const proxy = await startTcpProxy(Number(target.port || 5432), target.hostname)
    const app = `psg_test_${randomBytes(4).toString('hex')}`
    const url = new URL(DATABASE_URL)
    url.host = `127.0.0.1:${proxy.port}`
    url.searchParams.set('application_name', app)
    const schema = `test_lost_${randomBytes(6).toString('hex')}`
    const reported: string[] = []
    const storage = await openStorage({
      kind: 'postgres',
      url: url.toString(),
      schema,
      pool: { connectionTimeoutMs: 1_000, queryTimeoutMs: 2_000 },
      onError: (_error, context) => reported.push(context),
    })
    const admin = new pg.Client({ connectionString: DATABASE_URL })
    await admin.connect()
    try {
      const payment = newPayment()
      await storage.ledger.claim(payment)
      // Several pooled connections, all idle now.
      await Promise.all(Array.from({ length: 4 }, () => storage.ledger.get(payment.id)))
      // A PostgreSQL restart or an idle-connection killer: the server ends every backend.
      const { rows } = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [app],
      )
      expect(rows.length).toBeGreaterThan(0)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(reported.length).toBeGreaterThan(0) // reported, not an uncaught 'error' event
      expect((await storage.ledger.get(payment.id))?.status).toBe('verifying')

      // The server unreachable: a typed 503 error, quickly, never a hang or a 500.
      await proxy.down()
      const started = Date.now()
      const down = await storage.ledger.get(payment.id).catch((error: unknown) => error)
      expect(down).toBeInstanceOf(AppError)
      expect(down).toMatchObject({ code: 'ledger_unavailable' })
      // The HTTP layer answers it 503 (the domain and adapters carry no status).
      expect(statusForCode((down as AppError).code)).toBe(503)
      expect(Date.now() - started).toBeLessThan(5_000)

      await proxy.up()
      expect((await storage.ledger.get(payment.id))?.status).toBe('verifying')
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await admin.end()
      await storage.close()
      await proxy.close()
    }
  }, 30_000)
})

describe('embedded storage on disk', () => {
  it('refuses a second opener of the same DATA_DIR while the first holds it', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = mkdtempSync(join(tmpdir(), 'psg-lock-'))
    try {
      const first = await openStorage({ kind: 'pglite', dataDir: join(dir, 'ledger') })
      await expect(openStorage({ kind: 'pglite', dataDir: join(dir, 'ledger') })).rejects.toThrow(
        /already open in this process/,
      )
      await first.close()
      // Another live process holds it (our parent stands in for one).
      writeFileSync(
        join(dir, 'ledger', PGLITE_LOCK_FILE),
        JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: 'then' }),
      )
      await expect(openStorage({ kind: 'pglite', dataDir: join(dir, 'ledger') })).rejects.toThrow(
        new RegExp(`in use by process ${process.ppid}`),
      )
      // A lock left by a process that is gone is taken over.
      writeFileSync(
        join(dir, 'ledger', PGLITE_LOCK_FILE),
        JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), startedAt: 'then' }),
      )
      const third = await openStorage({ kind: 'pglite', dataDir: join(dir, 'ledger') })
      await third.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)

  it('seeds a ledger by copying the template (only the postgres database), never by initdb', async () => {
    const { mkdtempSync, readdirSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = mkdtempSync(join(tmpdir(), 'psg-seed-'))
    try {
      for (const storage of [
        await openStorage({ kind: 'pglite', dataDir: undefined }),
        await openStorage({ kind: 'pglite', dataDir: join(dir, 'ledger') }),
      ]) {
        // initdb (what PGlite does on a directory without a cluster) makes template0 and
        // template1 too; the template has them dropped, so their absence shows it was copied.
        const { rows } = await storage.sql.query<{ datname: string }>(
          'SELECT datname FROM pg_database ORDER BY datname',
        )
        expect(rows.map((row) => row.datname)).toEqual(['postgres'])
        const applied = await storage.sql.query<{ version: number }>(
          `SELECT version FROM ${storage.schema}.schema_migrations ORDER BY version`,
        )
        expect(applied.rows.map((row) => Number(row.version))).toEqual(
          MIGRATIONS.map((migration) => migration.version),
        )
        await storage.close()
      }
      // The copy is the template's contents at the top of DATA_DIR, not a directory inside it.
      expect(readdirSync(join(dir, 'ledger'))).toEqual(
        expect.arrayContaining(['PG_VERSION', 'base', 'global', 'pg_wal']),
      )
      expect(readdirSync(join(dir, 'ledger', 'base'))).toEqual(['5'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)

  it('keeps the ledger across restarts in DATA_DIR', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = mkdtempSync(join(tmpdir(), 'psg-ledger-'))
    try {
      const payment = newPayment()
      const first = await openStorage({ kind: 'pglite', dataDir: join(dir, 'ledger') })
      await first.ledger.claim(payment)
      await first.close()
      const second = await openStorage({ kind: 'pglite', dataDir: join(dir, 'ledger') })
      expect((await second.ledger.get(payment.id))?.status).toBe('verifying')
      await second.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)
})
