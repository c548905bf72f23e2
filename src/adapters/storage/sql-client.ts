import { mkdir } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'

/** Runs one parameterised statement ($1, $2, ...) and returns its rows. */
export interface SqlQueryable {
  query<Row>(sql: string, params?: readonly unknown[]): Promise<{ rows: Row[] }>
}

/**
 * The SQL both storage backends share: PostgreSQL's dialect, spoken by PGlite (Postgres
 * compiled to WASM, embedded) and by a real server through `pg`.
 */
export interface SqlClient extends SqlQueryable {
  kind: 'pglite' | 'postgres'
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/**
 * Embedded PostgreSQL (PGlite) persisted in `dataDir`, or in memory when `dataDir` is
 * undefined. One process owns the directory; PGlite serialises statements itself.
 */
export async function openPglite(dataDir: string | undefined): Promise<SqlClient> {
  if (dataDir) await mkdir(dataDir, { recursive: true })
  const db = dataDir ? await PGlite.create(dataDir) : await PGlite.create()
  return {
    kind: 'pglite',
    query: async <Row>(sql: string, params: readonly unknown[] = []) => {
      const result = await db.query<Row>(sql, [...params])
      return { rows: result.rows }
    },
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          query: async <Row>(sql: string, params: readonly unknown[] = []) => {
            const result = await tx.query<Row>(sql, [...params])
            return { rows: result.rows }
          },
        }),
      ),
    close: once(() => db.close()),
  }
}

/** A PostgreSQL server through a `pg` pool, shared by every instance of the service. */
export async function openPostgres(
  connectionString: string,
  maxConnections = 10,
): Promise<SqlClient> {
  const pool = new pg.Pool({ connectionString, max: maxConnections })
  // Fail at start-up, with the server's message, rather than on the first paid call.
  await pool.query('SELECT 1')
  return {
    kind: 'postgres',
    query: async <Row>(sql: string, params: readonly unknown[] = []) => {
      const result = await pool.query(sql, [...params])
      return { rows: result.rows as Row[] }
    },
    async transaction(fn) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const value = await fn({
          query: async <Row>(sql: string, params: readonly unknown[] = []) => {
            const result = await client.query(sql, [...params])
            return { rows: result.rows as Row[] }
          },
        })
        await client.query('COMMIT')
        return value
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        throw error
      } finally {
        client.release()
      }
    },
    close: once(() => pool.end()),
  }
}

/** Closing twice is harmless (pg's pool throws on a second `end`). */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined
  return () => {
    closing ??= close()
    return closing
  }
}
