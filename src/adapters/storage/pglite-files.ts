import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  accessSync,
  existsSync,
  constants as fsConstants,
  mkdtempSync,
  readFileSync,
  statSync,
} from 'node:fs'
import { mkdir, readdir, rename, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import v8 from 'node:v8'
import { MIGRATIONS, migrate } from './migrations.js'
import { type PgliteStarter, type PgliteThread, startPgliteThread } from './pglite-thread.js'
import type { SqlClient } from './sql-port.js'

/**
 * How the service runs PGlite, and where its files come from. Measured (see bench/startup.ts
 * and the README): PGlite's defaults hold 700+ MB for an empty in-memory
 * ledger, because (1) creating a cluster runs initdb in a second WebAssembly instance whose
 * memory stays with the process, (2) an in-memory data directory keeps its ~40 MB of files in
 * JavaScript buffers, (3) PostgreSQL's default 128 MB of shared buffers is touched at start,
 * and (4) V8 recompiles PostgreSQL's hot functions with its optimising tier. Here: the
 * cluster is created once, in a short-lived child process, and copied; data always lives in
 * files; shared buffers are 2 MB (the ledger's working set is a few pages); WebAssembly stays
 * on V8's baseline compiler. An open ledger then costs about 70 MB instead of 700.
 *
 * Start-up (the devnet's ledger is on the critical path of `npm start`): PGlite runs in a
 * worker thread (pglite-thread.ts), which loads it, seeds the data directory (one `cp`) and
 * starts PostgreSQL, all beside the main thread's loading of the rest of the service; and the
 * template holds only the `postgres` database PGlite uses (template0 and template1 are
 * dropped: 393 files, not 993).
 */

/**
 * PostgreSQL's settings for the embedded ledger beyond PGlite's own: a small shared memory.
 * PGlite's shared memory is part of its WebAssembly memory and is touched at start, so every
 * MB of it is a MB of idle RSS. Shared buffers of 2 MB (256 pages; WAL buffers follow) where
 * 8 MB held 6 MB more: a page past them is read back from the data directory's files (the
 * system's page cache, or /dev/shm for a throwaway ledger). PGlite runs PostgreSQL's
 * single-user mode, one session, so the per-connection tables sized for the default 100
 * connections are 3 MB for nothing: 4, the least the 3 superuser slots allow (the lock table
 * still has 64 locks a transaction times 4). `SHOW shared_memory_size`: 15 MB -> 6 MB.
 */
const EXTRA_START_PARAMS: readonly string[] = [
  '-c',
  'shared_buffers=2MB',
  '-c',
  'max_connections=4',
]

/**
 * What a template's contents depend on besides PGlite's version and the migrations; bump it
 * when {@link makeTemplate} changes what it makes (2: template0 and template1 dropped).
 */
const TEMPLATE_LAYOUT = 2

const require = createRequire(import.meta.url)
/** PGlite's CommonJS entry; the ledger's thread and the child that runs initdb load it by path. */
const PGLITE_ENTRY = require.resolve('@electric-sql/pglite')
/** The installed PGlite's package directory (`.../node_modules/@electric-sql/pglite`). */
const PGLITE_PACKAGE = dirname(dirname(PGLITE_ENTRY))

let baselineOnly = false
/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) for this process: PostgreSQL's 9 MB
 * module is then compiled once, quickly, and never again by the optimising tier, which
 * roughly halves both its code memory and PGlite's start-up CPU. The ledger's few queries per
 * paid call do not need optimised code. Must run before the module is compiled; V8's flags
 * are the process's, so this covers the ledger's thread too. It only concerns WebAssembly
 * (PGlite is the only WebAssembly in the service).
 */
function useBaselineWasmCompiler(): void {
  if (baselineOnly) return
  v8.setFlagsFromString('--liftoff-only')
  baselineOnly = true
}

/**
 * Starts the ledger's thread, which loads PGlite at once; {@link openCluster} then opens it on
 * a data directory.
 */
export function startPglite(): PgliteStarter {
  useBaselineWasmCompiler()
  return startPgliteThread(PGLITE_ENTRY)
}

/**
 * Opens PGlite, started by {@link startPglite}, on the cluster in `dataDir`. A directory
 * without a cluster is first given a copy of the template (see {@link ledgerTemplate}) by the
 * thread; an existing cluster is left alone.
 */
export async function openCluster(starter: PgliteStarter, dataDir: string): Promise<PgliteThread> {
  const seedFrom = hasCluster(dataDir) ? undefined : await ledgerTemplate()
  return starter.open({ dataDir, seedFrom, extraStartParams: EXTRA_START_PARAMS })
}

/** The SQL interface over PGlite's thread; `close` is the caller's. */
export function pgliteSqlClient(db: PgliteThread, close: () => Promise<void>): SqlClient {
  return { kind: 'pglite', query: db.query, transaction: db.transaction, close }
}

/** Whether `dir` holds a PostgreSQL cluster. */
function hasCluster(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'))
}

/** Prefix of throwaway ledgers' directories in the system's temporary directory. */
export const THROWAWAY_PREFIX = 'pre-send-guard-ledger-'

/**
 * Where throwaway ledgers live: `/dev/shm` (memory-backed) where it is writable, else the
 * temporary directory. A throwaway ledger lives as long as its process, like the devnet's
 * chain, so it needs no disk; seeding it from the template is ~400 file creations, which
 * take a good part of a second on a virtual disk and a few dozen ms in memory
 * (bench/startup.ts reports its size beside the service's RSS).
 */
export function throwawayHome(): string {
  if (throwawayHomeFound === undefined) {
    throwawayHomeFound = tmpdir()
    try {
      accessSync(SHARED_MEMORY_DIR, fsConstants.W_OK)
      if (statSync(SHARED_MEMORY_DIR).isDirectory()) throwawayHomeFound = SHARED_MEMORY_DIR
    } catch {
      // No writable /dev/shm (not Linux, or a locked-down container): the temporary directory.
    }
  }
  return throwawayHomeFound
}

const SHARED_MEMORY_DIR = '/dev/shm'
let throwawayHomeFound: string | undefined

/** A fresh directory for a throwaway ledger (removed by its closer). */
export function throwawayDataDir(): string {
  return mkdtempSync(join(throwawayHome(), THROWAWAY_PREFIX))
}

/**
 * Removes throwaway ledgers whose process is gone (killed before it could remove its own):
 * `isStale` decides from the directory's lock file. Errors are ignored: another process may
 * be removing the same directory.
 */
export async function sweepThrowawayDirs(
  isStale: (dir: string) => Promise<boolean>,
): Promise<void> {
  const home = throwawayHome()
  const entries = await readdir(home).catch(() => [] as string[])
  await Promise.all(
    entries
      .filter((name) => name.startsWith(THROWAWAY_PREFIX))
      .map(async (name) => {
        const dir = join(home, name)
        if (await isStale(dir).catch(() => false)) {
          await rm(dir, { recursive: true, force: true }).catch(() => undefined)
        }
      }),
  )
}

let templateBeingMade: Promise<string> | undefined

/**
 * The directory of a freshly created, migrated cluster, made once and kept beside PGlite
 * (`node_modules/.cache/pre-send-guard/`, or the temporary directory when that is not
 * writable). Its name carries a hash of PGlite's version, the start parameters and the
 * migrations, so any change makes a new one. `npm install` makes it (scripts/build.mjs).
 */
export function ledgerTemplate(): Promise<string> {
  templateBeingMade ??= findOrMakeTemplate().catch((error: unknown) => {
    templateBeingMade = undefined
    throw error
  })
  return templateBeingMade
}

/** Finds the template synchronously (a start-up's main thread is busy); makes it if missing. */
async function findOrMakeTemplate(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(PGLITE_PACKAGE, 'package.json'), 'utf8')) as {
    version: string
  }
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        version,
        params: EXTRA_START_PARAMS,
        layout: TEMPLATE_LAYOUT,
        migrations: MIGRATIONS,
      }),
    )
    .digest('hex')
    .slice(0, 16)
  const name = `ledger-template-${version}-${key}`
  const homes = [join(dirname(dirname(PGLITE_PACKAGE)), '.cache', 'pre-send-guard'), tmpdir()]
  for (const home of homes) {
    if (hasCluster(join(home, name))) return join(home, name)
  }
  let lastError: unknown
  for (const home of homes) {
    try {
      await mkdir(home, { recursive: true })
      return await makeTemplate(join(home, name))
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}

/**
 * Creates the template at `target`: initdb in a child process (its ~600 MB of WebAssembly
 * memory leaves with it), then our migrations in this process, then an atomic rename, so a
 * half-made template is never used and concurrent makers do not collide.
 */
async function makeTemplate(target: string): Promise<string> {
  const scratch = `${target}.making-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    await mkdir(scratch, { recursive: true })
    await runInitdb(scratch)
    const starter = startPglite()
    const db = await openCluster(starter, scratch).catch(async (error: unknown) => {
      await starter.abandon()
      throw error
    })
    try {
      await migrate(
        pgliteSqlClient(db, () => db.close()),
        DEFAULT_TEMPLATE_SCHEMA,
      )
      await dropUnusedDatabases(db)
    } finally {
      await db.close()
    }
    try {
      await rename(scratch, target)
    } catch (error) {
      // Another process made it first: use theirs.
      if (!hasCluster(target)) throw error
    }
    return target
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined)
  }
}

/**
 * Drops template0 and template1: PGlite works in the `postgres` database and the ledger never
 * creates a database, so they are two thirds of the files every throwaway ledger would copy.
 */
async function dropUnusedDatabases(db: PgliteThread): Promise<void> {
  await db.query(
    `UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`,
  )
  await db.query('DROP DATABASE template0')
  await db.query('DROP DATABASE template1')
  await db.query('CHECKPOINT')
}

/** The schema the template is migrated for (the service's default). */
const DEFAULT_TEMPLATE_SCHEMA = 'pre_send_guard'

/** Runs PGlite's initdb on `dir` in a separate Node process with no environment. */
function runInitdb(dir: string): Promise<void> {
  const script = `const { PGlite } = require(${JSON.stringify(PGLITE_ENTRY)});
PGlite.create({ dataDir: process.argv[1] }).then((db) => db.close()).catch((error) => {
  process.stderr.write(String(error && error.stack || error)); process.exit(1)
})`
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script, dir],
      { env: {}, timeout: 300_000, maxBuffer: 1 << 20 },
      (error, _stdout, stderr) =>
        error
          ? reject(new Error(`creating the ledger template failed: ${stderr || error.message}`))
          : resolve(),
    )
  })
}
