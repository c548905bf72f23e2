import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { accessSync, constants as fsConstants, statSync } from 'node:fs'
import { access, copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import v8 from 'node:v8'
import type { PGlite } from '@electric-sql/pglite'
import { MIGRATIONS, migrate } from './migrations.js'
import type { SqlClient } from './sql-client.js'

/**
 * How the service runs PGlite, and where its files come from. Measured (see bench/startup.ts
 * and the README): PGlite's defaults hold 700+ MB for an empty in-memory
 * ledger, because (1) creating a cluster runs initdb in a second WebAssembly instance whose
 * memory stays with the process, (2) an in-memory data directory keeps its ~40 MB of files in
 * JavaScript buffers, (3) PostgreSQL's default 128 MB of shared buffers is touched at start,
 * and (4) V8 recompiles PostgreSQL's hot functions with its optimising tier. Here: the
 * cluster is created once, in a short-lived child process, and copied; data always lives in
 * files; shared buffers are 8 MB (the ledger's working set is a few pages); WebAssembly stays
 * on V8's baseline compiler. An open ledger then costs about 70 MB instead of 700.
 *
 * Start-up (the devnet's ledger is on the critical path of `npm start`): PGlite's JavaScript
 * is loaded only when a ledger is opened, while its directory is being seeded; the seeding
 * is one `cp` process, off this process's busy main thread; and the template holds only the
 * `postgres` database PGlite uses (template0 and template1 are dropped: 393 files, not 993).
 */

/** PostgreSQL's settings for the embedded ledger beyond PGlite's own: small shared buffers. */
const EXTRA_START_PARAMS: readonly string[] = ['-c', 'shared_buffers=8MB']

/**
 * What a template's contents depend on besides PGlite's version and the migrations; bump it
 * when {@link makeTemplate} changes what it makes (2: template0 and template1 dropped).
 */
const TEMPLATE_LAYOUT = 2

let pgliteLoading: Promise<typeof import('@electric-sql/pglite')> | undefined
/** PGlite's module, loaded on first use (not at start-up, where it would delay everything). */
function loadPglite(): Promise<typeof import('@electric-sql/pglite')> {
  pgliteLoading ??= import('@electric-sql/pglite')
  return pgliteLoading
}

/** Starts loading PGlite's module now, so that it loads beside other work (seeding). */
export function preloadPglite(): void {
  loadPglite().catch(() => undefined)
}

const require = createRequire(import.meta.url)
/** PGlite's CommonJS entry; the child that runs initdb loads it by path. */
const PGLITE_ENTRY = require.resolve('@electric-sql/pglite')
/** The installed PGlite's package directory (`.../node_modules/@electric-sql/pglite`). */
const PGLITE_PACKAGE = dirname(dirname(PGLITE_ENTRY))

let baselineOnly = false
/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) for this process: PostgreSQL's 9 MB
 * module is then compiled once, quickly, and never again by the optimising tier, which
 * roughly halves both its code memory and PGlite's start-up CPU. The ledger's few queries per
 * paid call do not need optimised code. Must run before the module is compiled; it only
 * concerns WebAssembly (PGlite is the only WebAssembly in the service).
 */
function useBaselineWasmCompiler(): void {
  if (baselineOnly) return
  v8.setFlagsFromString('--liftoff-only')
  baselineOnly = true
}

/** Opens PGlite on files in `dataDir`, which must hold a cluster (see {@link seedDataDir}). */
export async function createPglite(dataDir: string): Promise<PGlite> {
  const { PGlite } = await loadPglite()
  useBaselineWasmCompiler()
  return PGlite.create({
    dataDir,
    startParams: [...PGlite.defaultStartParams, ...EXTRA_START_PARAMS],
  })
}

/** The SQL interface over one PGlite instance; `close` is the caller's. */
export function pgliteSqlClient(db: PGlite, close: () => Promise<void>): SqlClient {
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
    close,
  }
}

/** Whether `dir` holds a PostgreSQL cluster. */
async function hasCluster(dir: string): Promise<boolean> {
  return access(join(dir, 'PG_VERSION')).then(
    () => true,
    () => false,
  )
}

/**
 * Gives `dataDir` a migrated cluster when it has none, by copying the template (created once
 * per PGlite version and set of migrations); an existing cluster is left alone.
 */
export async function seedDataDir(dataDir: string): Promise<void> {
  if (await hasCluster(dataDir)) return
  const template = await ledgerTemplate()
  // `cp` runs beside this process, whose main thread is busy loading code at start-up; the
  // copy in this process (libuv's thread pool) is the fallback where `cp` differs (not GNU).
  if (!(await copyWithCp(template, dataDir))) await copyTree(template, dataDir)
}

/**
 * Copies the tree `from` into `to` (which exists) with GNU `cp`, keeping runs of zeros as
 * holes (the WAL segment is half zeros, and holes cost no memory in /dev/shm). False when it
 * could not (no GNU `cp`): the caller copies another way, over whatever was copied.
 */
function copyWithCp(from: string, to: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(
      'cp',
      // `from/.` (not path.join's `from`): the contents of `from`, not `from` inside `to`.
      ['-R', '--sparse=always', '--', `${from}/.`, to],
      { env: {}, timeout: 60_000 },
      (error) => resolve(error === null ? hasCluster(to) : false),
    )
  })
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
export async function throwawayDataDir(): Promise<string> {
  return mkdtemp(join(throwawayHome(), THROWAWAY_PREFIX))
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

async function findOrMakeTemplate(): Promise<string> {
  const { version } = JSON.parse(await readFile(join(PGLITE_PACKAGE, 'package.json'), 'utf8')) as {
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
    if (await hasCluster(join(home, name))) return join(home, name)
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
    const db = await createPglite(scratch)
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
      if (!(await hasCluster(target))) throw error
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
async function dropUnusedDatabases(db: PGlite): Promise<void> {
  await db.exec(
    `UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`,
  )
  await db.exec('DROP DATABASE template0')
  await db.exec('DROP DATABASE template1')
  await db.exec('CHECKPOINT')
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

/**
 * Copies a directory tree with many copies in flight (libuv's thread pool does them), several
 * times faster than `fs.cp` on a cluster's hundreds of small files: the fallback for `cp`.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const files: string[] = []
  const walk = async (relative: string): Promise<void> => {
    await mkdir(join(to, relative), { recursive: true })
    const entries = await readdir(join(from, relative), { withFileTypes: true })
    await Promise.all(
      entries.map((entry) => {
        const path = join(relative, entry.name)
        if (entry.isDirectory()) return walk(path)
        files.push(path)
        return undefined
      }),
    )
  }
  await walk('')
  let next = 0
  const worker = async () => {
    while (next < files.length) {
      const path = files[next++] as string
      await copyFile(join(from, path), join(to, path))
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
}
