import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'

// The embedded ledger's PGlite runs in a worker thread (src/adapters/storage/pglite-thread.ts):
// what crosses the thread boundary, and what PGlite's own transaction semantics must keep.
describe('the embedded ledger in its thread', () => {
  let storage: Storage
  beforeAll(async () => {
    storage = await openStorage({ kind: 'pglite', dataDir: undefined, schema: 'thread_test' })
    await storage.sql.query(
      'CREATE TABLE thread_test.t (k text PRIMARY KEY, v numeric, at timestamptz, b bytea)',
    )
  }, 60_000)
  afterAll(() => storage?.close())

  it('carries parameters and rows as values: numeric, timestamps, bytes', async () => {
    const at = new Date('2026-11-23T00:00:00.123Z')
    await storage.sql.query('INSERT INTO thread_test.t VALUES ($1, $2, $3, $4)', [
      'values',
      '123456789012345678901234567890.5',
      at,
      new Uint8Array([0, 1, 255]),
    ])
    const { rows } = await storage.sql.query<{ v: string; at: Date; b: Uint8Array }>(
      'SELECT v, at, b FROM thread_test.t WHERE k = $1',
      ['values'],
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]?.v).toBe('123456789012345678901234567890.5')
    expect(rows[0]?.at).toBeInstanceOf(Date)
    expect(rows[0]?.at.getTime()).toBe(at.getTime())
    expect([...(rows[0]?.b ?? [])]).toEqual([0, 1, 255])
  })

  it("passes PostgreSQL's error and its SQLSTATE back", async () => {
    await storage.sql.query("INSERT INTO thread_test.t (k) VALUES ('dup')")
    const failure = await storage.sql.query("INSERT INTO thread_test.t (k) VALUES ('dup')").then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error).message).toMatch(/duplicate key/)
    expect((failure as { code?: string }).code).toBe('23505')
  })

  it('rolls a transaction back when its function throws, and commits it otherwise', async () => {
    await expect(
      storage.sql.transaction(async (tx) => {
        await tx.query("INSERT INTO thread_test.t (k) VALUES ('rolled-back')")
        throw new Error('changed my mind')
      }),
    ).rejects.toThrow('changed my mind')
    const committed = await storage.sql.transaction(async (tx) => {
      await tx.query("INSERT INTO thread_test.t (k) VALUES ('committed')")
      return 'done'
    })
    expect(committed).toBe('done')
    const { rows } = await storage.sql.query<{ k: string }>(
      "SELECT k FROM thread_test.t WHERE k IN ('rolled-back', 'committed')",
    )
    expect(rows.map((row) => row.k)).toEqual(['committed'])
  })

  it('holds a statement from outside until an open transaction ends, so it sees the commit', async () => {
    let outside: Promise<{ rows: { n: number }[] }> | undefined
    await storage.sql.transaction(async (tx) => {
      await tx.query("INSERT INTO thread_test.t (k) VALUES ('inside')")
      outside = storage.sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM thread_test.t WHERE k = 'inside'",
      )
      // Give the outside statement every chance to run early.
      await new Promise((resolve) => setTimeout(resolve, 50))
      await tx.query("UPDATE thread_test.t SET v = 1 WHERE k = 'inside'")
    })
    expect((await outside)?.rows[0]?.n).toBe(1)
  })

  it('runs concurrent transactions one at a time: no lost update', async () => {
    await storage.sql.query("INSERT INTO thread_test.t (k, v) VALUES ('counter', 0)")
    await Promise.all(
      Array.from({ length: 20 }, () =>
        storage.sql.transaction(async (tx) => {
          const { rows } = await tx.query<{ v: string }>(
            "SELECT v FROM thread_test.t WHERE k = 'counter'",
          )
          await tx.query("UPDATE thread_test.t SET v = $1 WHERE k = 'counter'", [
            Number(rows[0]?.v) + 1,
          ])
        }),
      ),
    )
    const { rows } = await storage.sql.query<{ v: string }>(
      "SELECT v FROM thread_test.t WHERE k = 'counter'",
    )
    expect(rows[0]?.v).toBe('20')
  })

  it('refuses statements after close with an error, never a hang', async () => {
    const other = await openStorage({ kind: 'pglite', dataDir: undefined })
    await other.close()
    await expect(other.sql.query('SELECT 1')).rejects.toThrow(/closed/)
  }, 30_000)
})

describe('a process with an open embedded ledger', () => {
  it('is not kept alive by the idle thread, and exits when its work is done', () => {
    const openStorageModule = fileURLToPath(
      new URL('../../src/adapters/storage/open-storage.ts', import.meta.url),
    )
    const script = `
      const { openStorage } = await import(${JSON.stringify(openStorageModule)})
      const storage = await openStorage({ kind: 'pglite', dataDir: undefined })
      const { rows } = await storage.sql.query('SELECT 41 + 1 AS answer')
      console.log('answer', rows[0].answer)
      // No close: the process must still end on its own.
    `
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 60_000 },
    )
    expect(run.error).toBeUndefined()
    expect(run.stdout).toContain('answer 42')
    expect(run.status).toBe(0)
  }, 90_000)
})
