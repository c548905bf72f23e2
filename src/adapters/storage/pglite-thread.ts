import { Worker } from 'node:worker_threads'
import type { SqlQueryable } from './sql-port.js'

/**
 * PGlite in a worker thread. PostgreSQL compiled to WebAssembly runs synchronously on the
 * thread that owns it: on the main thread its start (~0.3 s of CPU) held up the loading of the
 * rest of the service at start-up, and each statement of a paid call held up every other
 * request for its duration. In its own thread it starts beside the code loading and answers
 * beside the requests. The main thread keeps nothing of PGlite but this message channel.
 *
 * The worker is a short CommonJS script run with `eval` (no file to bundle or resolve): it
 * loads PGlite's CommonJS entry by absolute path and serves `open` (seeding the data directory
 * from the template first when it holds no cluster), `query`, `begin`/`end` (one PGlite
 * transaction each, so PGlite's own lock orders them against other statements) and `close`.
 * Rows and parameters cross as structured clones (Date, bigint and bytes survive).
 */
export interface PgliteThread extends SqlQueryable {
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>
  close(): Promise<void>
}

const WORKER_SOURCE = `
const { execFileSync } = require('node:child_process')
const { cpSync, existsSync } = require('node:fs')
const { join } = require('node:path')
const { parentPort, workerData } = require('node:worker_threads')
const { PGlite } = require(workerData.entry)
const hasCluster = (dir) => existsSync(join(dir, 'PG_VERSION'))
// GNU cp keeps runs of zeros as holes (the WAL segment is half zeros; holes cost no memory in
// /dev/shm); Node's copy is the fallback where cp differs. "from/." is from's contents.
const seed = (from, to) => {
  try {
    execFileSync('cp', ['-R', '--sparse=always', '--', from + '/.', to], { env: {}, stdio: 'ignore' })
  } catch {}
  if (!hasCluster(to)) cpSync(from, to, { recursive: true })
  if (!hasCluster(to)) throw new Error('copying the ledger template to ' + to + ' left no cluster')
}
const fail = (error) => ({
  message: String((error && error.message) || error),
  ...(error && typeof error.code === 'string' ? { code: error.code } : {}),
})
let db
const transactions = new Map()
const reply = (id, work) =>
  work.then(
    (rows) => parentPort.postMessage({ id, rows }),
    (error) => parentPort.postMessage({ id, error: fail(error) }),
  )
parentPort.on('message', (m) => {
  if (m.op === 'open') {
    const startParams = [...PGlite.defaultStartParams, ...m.extraStartParams]
    const opening = Promise.resolve().then(() => {
      if (!hasCluster(m.dataDir)) {
        // Never let PGlite run initdb here (seconds, and 600 MB that stay): copy the template.
        if (!m.seedFrom) throw new Error('no cluster in ' + m.dataDir + ' and no template')
        seed(m.seedFrom, m.dataDir)
      }
      return PGlite.create({ dataDir: m.dataDir, startParams })
    })
    return reply(m.id, opening.then((opened) => {
      db = opened
      return []
    }))
  }
  if (m.op === 'query') {
    const on = m.tx === undefined ? db : transactions.get(m.tx)?.tx
    if (!on) return reply(m.id, Promise.reject(new Error('no such transaction')))
    return reply(m.id, on.query(m.sql, m.params).then((result) => result.rows))
  }
  if (m.op === 'begin') {
    const open = { tx: undefined, begun: false }
    const ended = new Promise((resolve, reject) => { open.settle = { resolve, reject } })
    open.done = db.transaction((tx) => {
      open.tx = tx
      open.begun = true
      transactions.set(m.tx, open)
      parentPort.postMessage({ id: m.id, rows: [] })
      return ended
    })
    // A failed BEGIN never reaches the callback: the begin is answered with its error.
    open.done.catch((error) => {
      if (!open.begun) parentPort.postMessage({ id: m.id, error: fail(error) })
    })
    return
  }
  if (m.op === 'end') {
    const open = transactions.get(m.tx)
    if (!open) return reply(m.id, Promise.reject(new Error('no such transaction')))
    transactions.delete(m.tx)
    if (m.commit) open.settle.resolve()
    else open.settle.reject(new Error('rolled back'))
    return reply(m.id, open.done.then(() => [], (error) => (m.commit ? Promise.reject(error) : [])))
  }
  if (m.op === 'close') return reply(m.id, db ? db.close().then(() => []) : Promise.resolve([]))
})
`

type Reply = { id: number; rows?: unknown[]; error?: { message: string; code?: string } }
type Pending = { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }

/** Where and how the thread opens PGlite. */
export interface PgliteOpening {
  dataDir: string
  /** A cluster to copy into `dataDir` first when it holds none (else that is an error). */
  seedFrom: string | undefined
  /** PostgreSQL settings beyond PGlite's defaults. */
  extraStartParams: readonly string[]
}

/** A worker thread with PGlite's module loading or loaded, not yet on a data directory. */
export interface PgliteStarter {
  /** Opens PGlite in the thread (seeding `dataDir` first when it holds no cluster). */
  open(opening: PgliteOpening): Promise<PgliteThread>
  /** Stops the thread when it will not be opened (or its opening failed). */
  abandon(): Promise<void>
}

/** An error from PostgreSQL (or PGlite) in the worker, with its SQLSTATE when it had one. */
function workerError(error: { message: string; code?: string }): Error {
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {})
}

/** The ledger thread's young generation (V8's semi-spaces and new large objects), in MB. */
const LEDGER_THREAD_YOUNG_GENERATION_MB = 3

/**
 * Starts the worker thread and has it load PGlite (`entry`: its CommonJS entry) at once, so
 * that the loading runs beside whatever the caller does before {@link PgliteStarter.open}
 * (seeding the data directory). The thread keeps the process alive only while a request is
 * waiting on it.
 */
export function startPgliteThread(entry: string): PgliteStarter {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { entry },
    // None of this process's options (`--input-type=module` would make the script a module,
    // a loader such as tsx would load into the thread); no environment for PostgreSQL.
    execArgv: [],
    env: {},
    // The thread's JavaScript allocates little (PGlite's glue, one message per statement), but
    // V8 sizes a new isolate's young generation as for the main thread: 8 MB of idle RSS for
    // nothing. 3 MB is a 1 MB semi-space; start-up and a paid call's statements are unchanged
    // (bench/startup.ts, docs/performance.md "Start-up and idle memory").
    resourceLimits: { maxYoungGenerationSizeMb: LEDGER_THREAD_YOUNG_GENERATION_MB },
  })
  worker.unref()
  const pending = new Map<number, Pending>()
  let nextId = 1
  let nextTx = 1
  let stopped: Error | undefined
  const stop = (error: Error) => {
    stopped ??= error
    for (const waiter of pending.values()) waiter.reject(stopped)
    pending.clear()
  }
  worker.on('message', (reply: Reply) => {
    const waiter = pending.get(reply.id)
    if (!waiter) return
    pending.delete(reply.id)
    if (pending.size === 0) worker.unref()
    if (reply.error) waiter.reject(workerError(reply.error))
    else waiter.resolve(reply.rows ?? [])
  })
  worker.on('error', (error) =>
    stop(new Error(`the embedded ledger's thread failed: ${error.message}`)),
  )
  worker.on('exit', (code) =>
    stop(new Error(`the embedded ledger's thread stopped (code ${code})`)),
  )

  const call = (message: Record<string, unknown>): Promise<unknown[]> => {
    if (stopped) return Promise.reject(stopped)
    const id = nextId++
    return new Promise((resolve, reject) => {
      if (pending.size === 0) worker.ref()
      pending.set(id, { resolve, reject })
      worker.postMessage({ ...message, id })
    })
  }
  const query = async <Row>(sql: string, params: readonly unknown[] = [], tx?: number) => ({
    rows: (await call({ op: 'query', sql, params: [...params], tx })) as Row[],
  })
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      try {
        if (!stopped) await call({ op: 'close' })
      } finally {
        stop(new Error('the embedded ledger is closed'))
        await worker.terminate()
      }
    })()
    return closing
  }
  const thread: PgliteThread = {
    query: (sql, params) => query(sql, params),
    async transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      const tx = nextTx++
      await call({ op: 'begin', tx })
      let result: T
      try {
        result = await fn({ query: (sql, params) => query(sql, params, tx) })
      } catch (error) {
        await call({ op: 'end', tx, commit: false }).catch(() => undefined)
        throw error
      }
      await call({ op: 'end', tx, commit: true })
      return result
    },
    close,
  }
  return {
    async open({ dataDir, seedFrom, extraStartParams }) {
      await call({ op: 'open', dataDir, seedFrom, extraStartParams: [...extraStartParams] })
      return thread
    },
    abandon: close,
  }
}
