import type { Address } from 'viem'
import { quoteSchema } from './migrations.js'
import type { SqlClient } from './sql-port.js'

/** Another running instance settles with the same key: their transaction nonces would collide. */
export class SettlerInUseError extends Error {
  override name = 'SettlerInUseError'
  constructor(
    readonly settler: Address,
    readonly holder: string,
    readonly until: Date,
  ) {
    super(
      `SETTLEMENT_PRIVATE_KEY: its account ${settler} already settles for another running instance (${holder}, lease until ${until.toISOString()}); instances sharing one ledger need one settlement key each, or their transaction nonces collide. Give this instance its own key (fund it with ETH for gas), or set INSTANCE_ID to the stopped instance's id to replace it`,
    )
  }
}

/** A held settler lease: renewed in the background, released on close. */
export interface SettlerLease {
  /**
   * True while the account is surely this instance's to send from: the last renewal the
   * ledger accepted leaves more than a third of the lease (one renewal interval) to run, on
   * our clock. False from the first renewal that is late by a whole interval (the database is
   * unreachable), and for good once a renewal matched no row (another instance took the
   * account over after its lease ran out), until this instance claims it again. Settle only
   * while true: two instances never send from one key.
   */
  held(): boolean
  release(): Promise<void>
}

/** Options for {@link holdSettlerLease}. */
export interface SettlerLeaseOptions {
  sql: SqlClient
  schema: string
  settler: Address
  /** This instance's stable identity: a restart under the same id takes its lease back at once. */
  instance: string
  /** Lease length (ms, default 30 s); renewed every third of it. */
  leaseMs?: number
  onRenewError?: (error: unknown) => void
  /** The lease was lost: a renewal matched no row (another instance holds the account). */
  onLost?: () => void
  /** A lost lease was claimed again (its holder released it or died). */
  onRegained?: () => void
}

/**
 * Claims the built-in facilitator's settlement account for this instance in the shared
 * ledger, so two instances never send transactions from one account (each keeps its own
 * local nonce counter: sharing would make them collide). The claim succeeds when the account
 * is free, its lease ran out (its instance died), or this same instance holds it (a restart).
 * Times are the database's clock.
 *
 * Once held, the lease is renewed every third of its length. A renewal that matches no row
 * means the lease ran out while the database was unreachable and another instance claimed
 * the account: {@link SettlerLease.held} is false from then on, and each later renewal tries
 * to claim the account again (it succeeds once that instance released it or died).
 *
 * @throws {SettlerInUseError} when another living instance holds it.
 */
export async function holdSettlerLease(options: SettlerLeaseOptions): Promise<SettlerLease> {
  const table = `${quoteSchema(options.schema)}.settlers`
  const leaseMs = options.leaseMs ?? 30_000
  const intervalMs = Math.max(1_000, Math.floor(leaseMs / 3))
  const settler = options.settler.toLowerCase()
  const lease = `now() + make_interval(secs => $3::float8 / 1000)`
  const claim = () =>
    options.sql.query<{ instance: string }>(
      `INSERT INTO ${table} (address, instance, lease_until) VALUES ($1, $2, ${lease})
       ON CONFLICT (address) DO UPDATE SET instance = EXCLUDED.instance, lease_until = EXCLUDED.lease_until
         WHERE ${table}.instance = EXCLUDED.instance OR ${table}.lease_until < now()
       RETURNING instance`,
      [settler, options.instance, leaseMs],
    )
  // When the lease surely runs out, on our clock: the database counts from its own `now()`,
  // a moment after we asked, so counting from before we asked is conservative.
  let asked = Date.now()
  const { rows } = await claim()
  if (rows.length === 0) {
    const { rows: held } = await options.sql.query<{
      instance: string
      lease_until: Date | string
    }>(`SELECT instance, lease_until FROM ${table} WHERE address = $1`, [settler])
    throw new SettlerInUseError(
      options.settler,
      held[0]?.instance ?? 'unknown',
      new Date(held[0]?.lease_until ?? Date.now()),
    )
  }
  let heldUntil = asked + leaseMs
  let lost = false
  let running = false
  let released = false
  const renew = async () => {
    // A renewal still waiting on the database is not doubled.
    if (running || released) return
    running = true
    asked = Date.now()
    try {
      if (lost) {
        if ((await claim()).rows.length > 0 && !released) {
          lost = false
          heldUntil = asked + leaseMs
          options.onRegained?.()
        }
        return
      }
      const { rows: renewed } = await options.sql.query(
        `UPDATE ${table} SET lease_until = ${lease} WHERE address = $1 AND instance = $2
         RETURNING address`,
        [settler, options.instance, leaseMs],
      )
      if (renewed.length > 0) {
        heldUntil = Math.max(heldUntil, asked + leaseMs)
      } else if (!released) {
        lost = true
        heldUntil = 0
        options.onLost?.()
      }
    } catch (error) {
      options.onRenewError?.(error)
    } finally {
      running = false
    }
  }
  const timer = setInterval(() => void renew(), intervalMs)
  timer.unref()
  return {
    held: () => !lost && !released && Date.now() < heldUntil - intervalMs,
    async release() {
      released = true
      clearInterval(timer)
      await options.sql
        .query(`DELETE FROM ${table} WHERE address = $1 AND instance = $2`, [
          settler,
          options.instance,
        ])
        .catch((error: unknown) => options.onRenewError?.(error))
    },
  }
}
