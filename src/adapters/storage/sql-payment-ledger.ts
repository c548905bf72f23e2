import type { PaymentPayload, SettleResponse } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import type {
  ClaimResult,
  LeaseOptions,
  MarkVerifiedResult,
  NewPayment,
  PaymentFailure,
  PaymentLedger,
  PaymentRecord,
  PaymentStatus,
  PaymentUpdate,
  SettlementRevert,
} from '../../domain/payment/payment-ledger.js'
import {
  DEFAULT_PAYMENT_LEASE_MS,
  IN_FLIGHT_STATUSES,
} from '../../domain/payment/payment-ledger.js'
import type { PreflightResult } from '../../domain/preflight/run-preflight.js'
import type { Receipt } from '../../domain/receipt/receipt.js'
import { LedgerUnavailableError } from '../../errors.js'
import { quoteSchema } from './migrations.js'
import type { SqlClient } from './sql-port.js'

/**
 * A `payments` row as `db.query` gives it back. The hex columns are typed as the `Address` and
 * `Hex` values this ledger writes into them (from a `NewPayment` and the settle outcome, typed
 * and checked before they reach it), the way `status` is typed as the statuses it writes.
 */
interface PaymentRow {
  id: string
  network: string
  asset: Address
  payer: Address
  nonce: Hex
  pay_to: Address
  amount: string
  valid_before: string
  payload_hash: Hex
  payload: string
  request_hash: Hex
  status: PaymentStatus
  attempts: number
  result: string | null
  settlement_tx: Hex | null
  settle_response: string | null
  receipt_id: string | null
  failure: string | null
  created_at: Date | string
  updated_at: Date | string
  next_check_at: Date | string
  reconcile_attempts: number
  lease_until: Date | string
  /** The identifier the payment carries: bound (`payment_identifier`) or waiting for verify. */
  identifier: string | null
  verified_at: Date | string | null
}

const COLUMNS = `id, network, asset, payer, nonce, pay_to, amount::text AS amount,
  valid_before::text AS valid_before, payload_hash, payload, request_hash, status, attempts, result,
  settlement_tx, settle_response, receipt_id, failure, created_at, updated_at, next_check_at,
  reconcile_attempts, lease_until, COALESCE(payment_identifier, requested_identifier) AS identifier,
  verified_at`

/** Statuses a payment reaches only once it verified. */
const VERIFIED_STATUSES = ['verified', 'settling', 'settled', 'settle_pending'] as const

/** PostgreSQL's SQLSTATE for a unique violation. */
const UNIQUE_VIOLATION = '23505'

/** Milliseconds as a PostgreSQL interval, for durations passed as `$n` parameters. */
const ms = (param: string) => `make_interval(secs => ${param}::float8 / 1000)`

/**
 * The ledger over SQL (PGlite or PostgreSQL); `schema` must already be migrated. Every
 * storage failure surfaces as a {@link LedgerUnavailableError} (503 `ledger_unavailable`).
 */
export function createSqlPaymentLedger(db: SqlClient, schema: string): PaymentLedger {
  return guarded(createLedger(db, schema))
}

function createLedger(db: SqlClient, schema: string): PaymentLedger {
  const payments = `${quoteSchema(schema)}.payments`
  const receipts = `${quoteSchema(schema)}.receipts`
  const reverts = `${quoteSchema(schema)}.settlement_reverts`

  const get = async (id: string): Promise<PaymentRecord | undefined> => {
    const { rows } = await db.query<PaymentRow>(
      `SELECT ${COLUMNS} FROM ${payments} WHERE id = $1`,
      [id],
    )
    return rows[0] ? toRecord(rows[0]) : undefined
  }

  const findByIdentifier = async (
    payer: Address,
    identifier: string,
  ): Promise<PaymentRecord | undefined> => {
    const { rows } = await db.query<PaymentRow>(
      `SELECT ${COLUMNS} FROM ${payments} WHERE payer = $1 AND payment_identifier = $2`,
      [payer, identifier],
    )
    return rows[0] ? toRecord(rows[0]) : undefined
  }

  return {
    async claim(payment: NewPayment, leaseMs = DEFAULT_PAYMENT_LEASE_MS): Promise<ClaimResult> {
      const values = [
        payment.id,
        payment.network,
        payment.asset,
        payment.payer,
        payment.nonce,
        payment.payTo,
        payment.amount.toString(),
        payment.validBefore.toString(),
        payment.payloadHash,
        JSON.stringify(payment.payload),
        payment.requestHash,
        leaseMs,
        payment.identifier ?? null,
      ]
      // Whoever inserts first owns the payment; the unique authorization turns others away. The
      // payment-identifier only waits here (`requested_identifier`): it binds once the payment
      // verified (`markVerified`), so a payment that never verifies reserves nothing.
      const inserted = await db.query(
        `INSERT INTO ${payments} (id, network, asset, payer, nonce, pay_to, amount, valid_before,
           payload_hash, payload, request_hash, status, lease_until, requested_identifier)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'verifying', now() + ${ms('$12')},
           $13)
         ON CONFLICT DO NOTHING RETURNING id`,
        values,
      )
      if (inserted.rows.length > 0) return { claimed: true }
      // A payment that failed may be tried again (after funding the wallet, say); one retry
      // wins. Not one the chain decided (canceled, used elsewhere, expired): it can never settle.
      // Nor one in flight whose owner lives; but one still verifying or verified whose owner's
      // lease ran out was abandoned before anything was sent, so it starts over here. The
      // same payment only (same payload hash): another payload under this nonce never takes it.
      const reclaimed = await db.query(
        `UPDATE ${payments} SET status = 'verifying', attempts = attempts + 1, pay_to = $6,
           amount = $7, valid_before = $8, payload_hash = $9, payload = $10, request_hash = $11,
           result = NULL, settlement_tx = NULL, settle_response = NULL, failure = NULL,
           updated_at = now(), next_check_at = now(), reconcile_attempts = 0,
           lease_until = now() + ${ms('$12')}, requested_identifier = $13
         WHERE id = $1
           AND ((status = 'failed' AND (failure IS NULL OR failure NOT LIKE '%"final":true%'))
             OR (status IN ('verifying', 'verified') AND lease_until <= now()
               AND payload_hash = $9 AND request_hash = $11))
           AND network = $2 AND asset = $3 AND payer = $4 AND nonce = $5
         RETURNING id`,
        values,
      )
      if (reclaimed.rows.length > 0) return { claimed: true }
      const existing = await get(payment.id)
      if (!existing) throw new Error(`payment ${payment.id} conflicts but cannot be read`)
      return { claimed: false, existing }
    },

    async transition(id, from, update: PaymentUpdate): Promise<boolean> {
      const statusParams = from.map((_, i) => `$${i + 10}`).join(', ')
      const params = [
        id,
        update.status,
        update.result === undefined ? null : JSON.stringify(update.result),
        update.settlementTx ?? null,
        update.settleResponse === undefined ? null : JSON.stringify(update.settleResponse),
        update.failure === undefined ? null : JSON.stringify(update.failure),
        update.receipt?.id ?? null,
        (IN_FLIGHT_STATUSES as readonly string[]).includes(update.status),
        (VERIFIED_STATUSES as readonly string[]).includes(update.status),
        ...from,
      ]
      // Out of flight, nobody works on the payment any more: its lease is released. A status
      // only a verified payment reaches records that it verified (if nothing did before).
      const sql = `UPDATE ${payments} SET status = $2, result = COALESCE($3, result),
          settlement_tx = COALESCE($4, settlement_tx), settle_response = COALESCE($5, settle_response),
          failure = COALESCE($6, failure), receipt_id = COALESCE($7, receipt_id), updated_at = now(),
          lease_until = CASE WHEN $8::boolean THEN lease_until ELSE LEAST(lease_until, now()) END,
          verified_at = CASE WHEN $9::boolean THEN COALESCE(verified_at, now()) ELSE verified_at END
        WHERE id = $1 AND status IN (${statusParams}) RETURNING id`
      const receipt = update.receipt
      if (!receipt) {
        const { rows } = await db.query(sql, params)
        return rows.length > 0
      }
      // The receipt and the settled status are one fact: store both or neither.
      return db.transaction(async (tx) => {
        const { rows } = await tx.query(sql, params)
        if (rows.length === 0) return false
        await tx.query(`INSERT INTO ${receipts} (id, payment_id, receipt) VALUES ($1, $2, $3)`, [
          receipt.id,
          id,
          JSON.stringify(receipt),
        ])
        return true
      })
    },

    async markVerified(id: string): Promise<MarkVerifiedResult> {
      try {
        const { rows } = await db.query(
          `UPDATE ${payments} SET status = 'verified', updated_at = now(),
             verified_at = COALESCE(verified_at, now()),
             payment_identifier = COALESCE(payment_identifier, requested_identifier)
           WHERE id = $1 AND status = 'verifying' RETURNING id`,
          [id],
        )
        return rows.length > 0 ? 'verified' : 'moved'
      } catch (error) {
        // The unique (payer, payment_identifier) index: another verified payment of this payer
        // holds the id (a concurrent one may have bound it a moment ago). The statement failed
        // as a whole: the payment is still `verifying`, unbound.
        if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return 'identifier_taken'
        throw error
      }
    },

    async announceSettlement(id, previous, transaction): Promise<boolean> {
      const { rows } = await db.query(
        `UPDATE ${payments} SET settlement_tx = $3, updated_at = now()
         WHERE id = $1 AND status IN ('settling', 'settle_pending')
           AND settlement_tx IS NOT DISTINCT FROM $2
         RETURNING id`,
        [id, previous, transaction],
      )
      return rows.length > 0
    },

    get,
    findByIdentifier,

    // Only a lease still held is renewed: one released (the payment left flight) or run out
    // (someone may have taken over) stays so, even if a renewal was already on its way.
    async renewLease(id: string, leaseMs: number): Promise<boolean> {
      const { rows } = await db.query(
        `UPDATE ${payments} SET lease_until = GREATEST(lease_until, now() + ${ms('$2')})
         WHERE id = $1 AND status IN ('verifying', 'verified', 'settling', 'settle_pending')
           AND lease_until > now()
         RETURNING id`,
        [id, leaseMs],
      )
      return rows.length > 0
    },

    async takeOver(id: string, leaseMs: number): Promise<PaymentRecord | undefined> {
      const { rows } = await db.query<PaymentRow>(
        `UPDATE ${payments} SET lease_until = now() + ${ms('$2')}
         WHERE id = $1 AND status IN ('settling', 'settle_pending') AND lease_until <= now()
         RETURNING ${COLUMNS}`,
        [id, leaseMs],
      )
      return rows[0] ? toRecord(rows[0]) : undefined
    },

    async leaseUnresolved(options: LeaseOptions): Promise<PaymentRecord[]> {
      const inFlight = IN_FLIGHT_STATUSES.map((s) => `'${s}'`).join(', ')
      // One statement, on the database's clock: pick the due rows no one else holds, and push
      // their next check past the lease so a second instance's reconciler skips them.
      const { rows } = await db.query<PaymentRow>(
        `UPDATE ${payments} SET next_check_at = now() + ${ms('$2')}, lease_until = now() + ${ms('$2')}
         WHERE id IN (
           SELECT id FROM ${payments}
           WHERE next_check_at <= now() AND lease_until <= now() AND NOT (id = ANY($4::text[]))
             AND (status = 'settle_pending'
               OR (status IN (${inFlight}) AND updated_at <= now() - ${ms('$1')}))
           ORDER BY next_check_at
           LIMIT $3
           FOR UPDATE SKIP LOCKED)
         RETURNING ${COLUMNS}`,
        [
          options.staleAfterMs ?? 0,
          options.leaseMs,
          options.limit,
          [...(options.excludeIds ?? [])],
        ],
      )
      return rows.map(toRecord).sort((a, b) => a.nextCheckAt.getTime() - b.nextCheckAt.getTime())
    },

    async postpone(id: string, delayMs: number): Promise<void> {
      await db.query(
        `UPDATE ${payments} SET next_check_at = now() + ${ms('$2')},
           reconcile_attempts = reconcile_attempts + 1, lease_until = LEAST(lease_until, now())
         WHERE id = $1`,
        [id, delayMs],
      )
    },

    async getReceipt(id: string): Promise<Receipt | undefined> {
      const { rows } = await db.query<{ receipt: string }>(
        `SELECT receipt FROM ${receipts} WHERE id = $1`,
        [id],
      )
      return rows[0] ? (JSON.parse(rows[0].receipt) as Receipt) : undefined
    },

    async settledTotal(payTo: Address): Promise<bigint> {
      const { rows } = await db.query<{ total: string }>(
        `SELECT COALESCE(SUM(amount), 0)::text AS total FROM ${payments}
         WHERE status = 'settled' AND lower(pay_to) = lower($1)`,
        [payTo],
      )
      return BigInt(rows[0]?.total ?? '0')
    },

    async recordSettlementRevert(revert: SettlementRevert): Promise<void> {
      // Once per transaction: the request path and the reconciler may both see it.
      await db.query(
        `INSERT INTO ${reverts} (transaction, payment_id, payer) VALUES (lower($1), $2, lower($3))
         ON CONFLICT (transaction) DO NOTHING`,
        [revert.transaction, revert.paymentId, revert.payer],
      )
    },

    async settlementRevertsWithin(payer: Address, withinMs: number): Promise<number> {
      const { rows } = await db.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM ${reverts}
         WHERE payer = lower($1) AND reverted_at > now() - ${ms('$2')}`,
        [payer, withinMs],
      )
      return Number(rows[0]?.n ?? '0')
    },

    async unresolvedCount(): Promise<number> {
      const { rows } = await db.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM ${payments} WHERE status IN ('verifying', 'verified', 'settling', 'settle_pending')`,
      )
      return Number(rows[0]?.n ?? '0')
    },

    async pruneUnverified({ graceSeconds, limit }): Promise<number> {
      // valid_before is unix seconds; the authorization expired on the database's clock. A
      // failed row that never verified was never settling: it has no result, transaction or
      // receipt (checked anyway: such a row is never deleted).
      const { rows } = await db.query(
        `DELETE FROM ${payments} WHERE id IN (
           SELECT id FROM ${payments}
           WHERE status = 'failed' AND verified_at IS NULL
             AND valid_before < floor(extract(epoch FROM now())) - $1::numeric
             AND result IS NULL AND settlement_tx IS NULL AND receipt_id IS NULL
           LIMIT $2)
         RETURNING id`,
        [graceSeconds, limit],
      )
      return rows.length
    },

    close: () => db.close(),
  }
}

function toRecord(row: PaymentRow): PaymentRecord {
  return {
    id: row.id,
    network: row.network,
    asset: row.asset,
    payer: row.payer,
    nonce: row.nonce,
    payTo: row.pay_to,
    amount: BigInt(row.amount),
    validBefore: BigInt(row.valid_before),
    payloadHash: row.payload_hash,
    payload: JSON.parse(row.payload) as PaymentPayload,
    requestHash: row.request_hash,
    status: row.status,
    attempts: Number(row.attempts),
    result: row.result === null ? null : (JSON.parse(row.result) as PreflightResult),
    settlementTx: row.settlement_tx,
    settleResponse:
      row.settle_response === null ? null : (JSON.parse(row.settle_response) as SettleResponse),
    receiptId: row.receipt_id,
    failure: row.failure === null ? null : storedFailure(row.failure),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    nextCheckAt: new Date(row.next_check_at),
    reconcileAttempts: Number(row.reconcile_attempts),
    leaseUntil: new Date(row.lease_until),
    verifiedAt: row.verified_at === null ? null : new Date(row.verified_at),
    ...(row.identifier === null ? {} : { identifier: row.identifier }),
  }
}

/**
 * Turns every storage failure into a {@link LedgerUnavailableError}: a lost connection, a
 * timeout or a refused statement is the ledger being unavailable (503), never a 500. The
 * original message is kept, the original error is the cause.
 */
function guarded(ledger: PaymentLedger): PaymentLedger {
  const wrap =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args)
      } catch (error) {
        if (error instanceof LedgerUnavailableError) throw error
        const message = error instanceof Error ? error.message : String(error)
        throw new LedgerUnavailableError(`the payment ledger failed (${name}): ${message}`, error)
      }
    }
  return {
    claim: wrap('claim', ledger.claim),
    transition: wrap('transition', ledger.transition),
    markVerified: wrap('markVerified', ledger.markVerified),
    get: wrap('get', ledger.get),
    findByIdentifier: wrap('findByIdentifier', ledger.findByIdentifier),
    renewLease: wrap('renewLease', ledger.renewLease),
    takeOver: wrap('takeOver', ledger.takeOver),
    announceSettlement: wrap('announceSettlement', ledger.announceSettlement),
    leaseUnresolved: wrap('leaseUnresolved', ledger.leaseUnresolved),
    postpone: wrap('postpone', ledger.postpone),
    getReceipt: wrap('getReceipt', ledger.getReceipt),
    settledTotal: wrap('settledTotal', ledger.settledTotal),
    unresolvedCount: wrap('unresolvedCount', ledger.unresolvedCount),
    recordSettlementRevert: wrap('recordSettlementRevert', ledger.recordSettlementRevert),
    settlementRevertsWithin: wrap('settlementRevertsWithin', ledger.settlementRevertsWithin),
    pruneUnverified: wrap('pruneUnverified', ledger.pruneUnverified),
    close: ledger.close,
  }
}

/**
 * A stored failure. Rows written before failures carried `kind` hold the HTTP status they
 * were answered with (402 for a payment problem): read as the same kind.
 */
function storedFailure(text: string): PaymentFailure {
  const stored = JSON.parse(text) as PaymentFailure & { status?: number }
  const { status, ...failure } = stored
  if (failure.kind !== undefined) return failure
  return { ...failure, kind: status === 402 ? 'payment_required' : 'error' }
}
