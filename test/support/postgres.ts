import pg from 'pg'

/** CI's PostgreSQL (trust auth, database `test`); override with TEST_DATABASE_URL. */
export const DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** Whether a connection to {@link DATABASE_URL} opens within 2 s. */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    await client.end()
    return true
  } catch {
    return false
  }
}

/**
 * Whether the PostgreSQL tests run. CI always has PostgreSQL: there a missing server fails the
 * suite instead of skipping it; elsewhere they run when the server is reachable.
 */
export async function postgresAvailable(): Promise<boolean> {
  if (process.env.CI) return true
  const reachable = await postgresReachable()
  if (!reachable) {
    // Never a silent skip: say what is missing and how to run them.
    console.warn(
      `SKIPPED the PostgreSQL tests: nothing answers at ${new URL(DATABASE_URL).host}; start PostgreSQL there (database test) or set TEST_DATABASE_URL`,
    )
  }
  return reachable
}
