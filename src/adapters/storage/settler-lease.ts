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
}

/**
 * Claims the built-in facilitator's settlement account for this instance in the shared
 * ledger, so two instances never send transactions from one account (each keeps its own
 * local nonce counter: sharing would make them collide). The claim succeeds when the account
 * is free, its lease ran out (its instance died), or this same instance holds it (a restart).
 * Times are the database's clock.
 *
 * @throws {SettlerInUseError} when another living instance holds it.
 */
export async function holdSettlerLease(options: SettlerLeaseOptions): Promise<SettlerLease> {
  const table = `${quoteSchema(options.schema)}.settlers`
  const leaseMs = options.leaseMs ?? 30_000
  const settler = options.settler.toLowerCase()
  const lease = `now() + make_interval(secs => $3::float8 / 1000)`
  const { rows } = await options.sql.query<{ instance: string }>(
    `INSERT INTO ${table} (address, instance, lease_until) VALUES ($1, $2, ${lease})
     ON CONFLICT (address) DO UPDATE SET instance = EXCLUDED.instance, lease_until = EXCLUDED.lease_until
       WHERE ${table}.instance = EXCLUDED.instance OR ${table}.lease_until < now()
     RETURNING instance`,
    [settler, options.instance, leaseMs],
  )
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
  const renew = () =>
    options.sql
      .query(`UPDATE ${table} SET lease_until = ${lease} WHERE address = $1 AND instance = $2`, [
        settler,
        options.instance,
        leaseMs,
      ])
      .catch((error: unknown) => options.onRenewError?.(error))
  const timer = setInterval(renew, Math.max(1_000, Math.floor(leaseMs / 3)))
  timer.unref()
  return {
    async release() {
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
