/**
 * The SQL storage port: what the ledger, the migrations and the settler lease need from a
 * database, and what both backends (PGlite, PostgreSQL) provide. A leaf, so the backends and
 * the client that opens them never import each other in a circle.
 */

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

/** Where a storage backend reports trouble that no caller is waiting on (a dropped idle link). */
export type StorageErrorListener = (error: Error, context: string) => void
