import { randomBytes } from 'node:crypto'
import { privateKeyToAddress } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { holdSettlerLease, SettlerInUseError } from '../../src/adapters/storage/settler-lease.js'
import { DATABASE_URL, postgresAvailable } from '../support/postgres.js'
import { startTcpProxy } from '../support/tcp-proxy.js'

// The settler lease (one instance per settlement key): a holder whose lease ran out while the
// database was unreachable, and that another instance claimed, notices (its renewal matches
// no row) and does not settle until it holds the account again. Never two holders at once.

const havePostgres = await postgresAvailable()
const LEASE_MS = 3_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const opened: Storage[] = []
afterAll(async () => {
  for (const storage of opened) {
    await storage.sql.query(`DROP SCHEMA IF EXISTS "${storage.schema}" CASCADE`).catch(() => {})
    await storage.close()
  }
})
const settler = () => privateKeyToAddress(`0x${randomBytes(32).toString('hex')}`)

/** Samples `held()` of both leases every 50 ms until stopped: how often both held at once. */
function watchBoth(a: { held(): boolean }, b: () => { held(): boolean } | undefined) {
  let both = 0
  let samples = 0
  const timer = setInterval(() => {
    samples++
    if (a.held() && b()?.held()) both++
  }, 50)
  return {
    stop() {
      clearInterval(timer)
      return { both, samples }
    },
  }
}

const until = async (what: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!what()) {
    if (Date.now() > deadline) return false
    await sleep(50)
  }
  return true
}

describe('a settler lease taken over while its holder could not renew it (PGlite)', () => {
  it('is noticed on the next renewal, and held again once the other released it', async () => {
    const storage = await openStorage({ kind: 'pglite', dataDir: undefined, schema: 'lease' })
    opened.push(storage)
    const account = settler()
    const lost: string[] = []
    const first = await holdSettlerLease({
      sql: storage.sql,
      schema: storage.schema,
      settler: account,
      instance: 'a',
      leaseMs: LEASE_MS,
      onLost: () => lost.push('lost'),
      onRegained: () => lost.push('regained'),
    })
    expect(first.held()).toBe(true)
    await expect(
      holdSettlerLease({
        sql: storage.sql,
        schema: storage.schema,
        settler: account,
        instance: 'b',
      }),
    ).rejects.toBeInstanceOf(SettlerInUseError)
    // What a cut longer than the lease leaves behind: the lease ran out, "b" claimed it.
    await storage.sql.query(
      `UPDATE "${storage.schema}".settlers SET lease_until = now() - interval '1 second'`,
    )
    const second = await holdSettlerLease({
      sql: storage.sql,
      schema: storage.schema,
      settler: account,
      instance: 'b',
      leaseMs: LEASE_MS,
    })
    expect(await until(() => !first.held(), 2 * LEASE_MS)).toBe(true)
    expect(lost).toEqual(['lost'])
    expect(second.held()).toBe(true)
    // Still "b"'s for as long as it renews: "a" stays out.
    await sleep(LEASE_MS)
    expect(first.held()).toBe(false)
    await second.release()
    expect(await until(() => first.held(), 2 * LEASE_MS)).toBe(true)
    expect(lost).toEqual(['lost', 'regained'])
    await first.release()
  }, 30_000)
})

describe.runIf(havePostgres)('a settler lease over a PostgreSQL cut longer than the lease', () => {
  it('stops settling before anyone can claim it, notices the take-over, never two holders', async () => {
    const url = new URL(DATABASE_URL)
    const proxy = await startTcpProxy(Number(url.port || 5432), url.hostname)
    const viaProxy = new URL(DATABASE_URL)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    const schema = `test_settler_${randomBytes(4).toString('hex')}`
    const a = await openStorage({ kind: 'postgres', url: viaProxy.href, schema })
    const b = await openStorage({ kind: 'postgres', url: DATABASE_URL, schema })
    opened.push(b, a)
    const account = settler()
    const events: string[] = []
    const first = await holdSettlerLease({
      sql: a.sql,
      schema,
      settler: account,
      instance: 'a',
      leaseMs: LEASE_MS,
      onLost: () => events.push('lost'),
      onRegained: () => events.push('regained'),
    })
    let second: Awaited<ReturnType<typeof holdSettlerLease>> | undefined
    const watch = watchBoth(first, () => second)
    try {
      await proxy.down()
      // "a" stops settling on its own, a whole renewal interval before its lease can run out.
      expect(await until(() => !first.held(), LEASE_MS)).toBe(true)
      // "b" claims the account once the lease ran out in the database.
      const claimed = Date.now()
      for (;;) {
        try {
          second = await holdSettlerLease({
            sql: b.sql,
            schema,
            settler: account,
            instance: 'b',
            leaseMs: LEASE_MS,
          })
          break
        } catch (error) {
          expect(error).toBeInstanceOf(SettlerInUseError)
          expect(Date.now() - claimed).toBeLessThan(3 * LEASE_MS)
          await sleep(100)
        }
      }
      await proxy.up()
      // Back on the database: "a"'s renewal matches no row; it stays out while "b" holds.
      expect(await until(() => events.includes('lost'), 3 * LEASE_MS)).toBe(true)
      await sleep(LEASE_MS)
      expect(first.held()).toBe(false)
      expect(second.held()).toBe(true)
      await second.release()
      expect(await until(() => first.held(), 3 * LEASE_MS)).toBe(true)
      expect(events).toEqual(['lost', 'regained'])
    } finally {
      const { both, samples } = watch.stop()
      expect(samples).toBeGreaterThan(10)
      expect(both).toBe(0)
      await first.release()
      await proxy.close()
    }
  }, 60_000)
})
