import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { rm, stat } from 'node:fs/promises'
import { hostname } from 'node:os'
import { resolve } from 'node:path'
import {
  openCluster,
  pgliteSqlClient,
  startPglite,
  sweepThrowawayDirs,
  throwawayDataDir,
} from './pglite-files.js'
import type { PgliteThread } from './pglite-thread.js'
import type { SqlClient, StorageErrorListener } from './sql-port.js'

/** Name of the lock file PGlite's data directory is guarded by. */
export const PGLITE_LOCK_FILE = 'pre-send-guard.lock'

/**
 * Embedded PostgreSQL (PGlite) on files in `dataDir`, or a throwaway ledger when `dataDir` is
 * undefined (a fresh temporary directory, removed on close: gone like an in-memory one, but
 * without holding its files in memory). A `dataDir` without a cluster gets a copy of the
 * template cluster (see pglite-files.ts). PGlite is one process's database: a lock file in
 * the directory makes a second process on it refuse to start instead of corrupting it.
 */
export async function openPglite(dataDir: string | undefined): Promise<SqlClient> {
  const throwaway = dataDir === undefined
  // PGlite's thread loads PGlite while the directory is found, locked and seeded. The file
  // work here is synchronous (a few system calls): at start-up the main thread is busy loading
  // code, and each asynchronous step would wait for it; the seeding is the thread's.
  const starter = startPglite()
  let db: PgliteThread
  let release: () => Promise<void>
  try {
    if (throwaway) void sweepThrowawayDirs(isAbandoned)
    const dir = dataDir ?? throwawayDataDir()
    mkdirSync(dir, { recursive: true })
    const unlock = lockDirectory(dir)
    release = async () => {
      await unlock()
      if (throwaway) await rm(dir, { recursive: true, force: true })
    }
    try {
      db = await openCluster(starter, dir)
    } catch (error) {
      await release()
      throw error
    }
  } catch (error) {
    await starter.abandon()
    throw error
  }
  return pgliteSqlClient(
    db,
    once(async () => {
      try {
        await db.close()
      } finally {
        await release()
      }
    }),
  )
}

/** A throwaway ledger's directory whose process is gone (or that never got a lock). */
async function isAbandoned(dir: string): Promise<boolean> {
  const lock = resolve(dir, PGLITE_LOCK_FILE)
  if (lockedHere.has(lock)) return false
  const owner = readOwner(lock)
  if (owner) return owner.pid !== process.pid && !isAlive(owner)
  // No lock yet: either being created this moment, or left half-made long ago.
  const { mtimeMs } = await stat(dir)
  return Date.now() - mtimeMs > 60_000
}

/** Options for {@link openPostgres}. */
export interface PostgresOptions {
  maxConnections?: number
  /** Giving up on opening a connection (ms): a down server answers 503 quickly, not late. */
  connectionTimeoutMs?: number
  /** Client-side limit on one query (ms), and the server's `statement_timeout`. */
  queryTimeoutMs?: number
  onError?: StorageErrorListener
}

/** A PostgreSQL server through a `pg` pool, shared by every instance of the service. */
export async function openPostgres(
  connectionString: string,
  options: PostgresOptions = {},
): Promise<SqlClient> {
  const queryTimeoutMs = options.queryTimeoutMs ?? 10_000
  // Loaded only here: a service on the embedded ledger never needs the driver.
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({
    connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    query_timeout: queryTimeoutMs,
    statement_timeout: queryTimeoutMs,
    // A transaction left open by a dead request must not hold row locks for ever.
    idle_in_transaction_session_timeout: queryTimeoutMs * 3,
    keepAlive: true,
  })
  const report: StorageErrorListener = options.onError ?? (() => {})
  // An idle pooled connection dropped by the server (restart, failover, idle kill) is emitted
  // here; without a listener Node treats it as uncaught and the process dies. The pool has
  // already discarded the connection; the next query opens a new one.
  pool.on('error', (error) => report(error, 'idle PostgreSQL connection lost'))
  // Fail at start-up, with the server's message, rather than on the first paid call.
  try {
    await pool.query('SELECT 1')
  } catch (error) {
    await pool.end().catch(() => {})
    throw error
  }
  return {
    kind: 'postgres',
    query: async <Row>(sql: string, params: readonly unknown[] = []) => {
      const result = await pool.query(sql, [...params])
      return { rows: result.rows as Row[] }
    },
    async transaction(fn) {
      const client = await pool.connect()
      // A checked-out connection has no pool listener: an error emitted while we hold it
      // would otherwise crash the process. The failing query rejects on its own.
      const onClientError = (error: Error) => report(error, 'PostgreSQL connection lost')
      client.on('error', onClientError)
      let broken: Error | undefined
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
        await client.query('ROLLBACK').catch((rollback: unknown) => {
          broken = rollback instanceof Error ? rollback : new Error(String(rollback))
        })
        throw error
      } finally {
        client.removeListener('error', onClientError)
        // A connection whose ROLLBACK failed is unusable: destroy it rather than pool it.
        client.release(broken)
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

/** Lock files this process holds: a second open in the same process is refused too. */
const lockedHere = new Set<string>()

interface LockOwner {
  pid: number
  host: string
  startedAt: string
}

/**
 * Takes `dataDir`'s lock file (exclusive create). A lock left by a process that is gone (same
 * host, pid not running, or our own pid after a container restart) is taken over; one held by
 * a live process refuses with a message naming it. Returns the release function.
 */
function lockDirectory(dataDir: string): () => Promise<void> {
  const path = resolve(dataDir, PGLITE_LOCK_FILE)
  if (lockedHere.has(path)) {
    throw new Error(`the ledger in ${dataDir} is already open in this process`)
  }
  const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = openSync(path, 'wx')
      try {
        writeSync(handle, JSON.stringify(me))
      } finally {
        closeSync(handle)
      }
      lockedHere.add(path)
      return once(async () => {
        lockedHere.delete(path)
        await rm(path, { force: true })
      })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = readOwner(path)
    if (owner && isAlive(owner)) {
      throw new Error(
        `the ledger in ${dataDir} is in use by process ${owner.pid} on ${owner.host} (since ${owner.startedAt}); PGlite allows one process per DATA_DIR: stop it, use another DATA_DIR, or set DATABASE_URL to share a PostgreSQL ledger. If no such process exists, delete ${path}`,
      )
    }
    rmSync(path, { force: true })
  }
  throw new Error(`cannot take the ledger lock ${path}`)
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string') return undefined
    return { pid: owner.pid, host: owner.host, startedAt: String(owner.startedAt) }
  } catch {
    return undefined // unreadable or half-written: treated as stale
  }
}

function isAlive(owner: LockOwner): boolean {
  // Another host's process cannot be checked from here: assume it is alive.
  if (owner.host !== hostname()) return true
  if (owner.pid === process.pid) return false // ours from a previous life (pid 1 in a container)
  try {
    process.kill(owner.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
