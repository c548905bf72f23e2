import type { PaymentLedger } from '../../domain/payment/payment-ledger.js'
import { migrate } from './migrations.js'
import { openPglite, openPostgres, type PostgresOptions } from './sql-client.js'
import { createSqlPaymentLedger } from './sql-payment-ledger.js'
import type { SqlClient, StorageErrorListener } from './sql-port.js'

/** Where the ledger lives. */
export type StorageSetup =
  /** A PostgreSQL server shared by every instance (`DATABASE_URL`). */
  | {
      kind: 'postgres'
      url: string
      schema?: string
      /** Pool settings: connection and query timeouts (defaults 5 s and 10 s). */
      pool?: Omit<PostgresOptions, 'onError'>
      onError?: StorageErrorListener
    }
  /** Embedded PGlite in `dataDir`, or in memory when `dataDir` is undefined. */
  | { kind: 'pglite'; dataDir: string | undefined; schema?: string }

/** An open, migrated ledger. */
export interface Storage {
  kind: SqlClient['kind']
  schema: string
  ledger: PaymentLedger
  sql: SqlClient
  close(): Promise<void>
}

/** Default schema holding the service's tables. */
export const DEFAULT_SCHEMA = 'pre_send_guard'

/** Opens the ledger and applies pending migrations. */
export async function openStorage(setup: StorageSetup): Promise<Storage> {
  const schema = setup.schema ?? DEFAULT_SCHEMA
  const sql =
    setup.kind === 'postgres'
      ? await openPostgres(setup.url, {
          ...setup.pool,
          ...(setup.onError ? { onError: setup.onError } : {}),
        })
      : await openPglite(setup.dataDir)
  try {
    await migrate(sql, schema)
  } catch (error) {
    await sql.close()
    throw error
  }
  const ledger = createSqlPaymentLedger(sql, schema)
  return { kind: sql.kind, schema, ledger, sql, close: () => sql.close() }
}
