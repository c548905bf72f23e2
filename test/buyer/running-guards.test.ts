import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { findRunningGuard } from '../../packages/client/src/cli/running-guards.js'
import { freePort } from '../support/net.js'

// The records `npm start` leaves for the CLI, read the way the CLI reads them: the newest
// instance whose process lives and whose URL answers as a guard; dead ones are dropped.

const servers: Server[] = []
const dir = mkdtempSync(join(tmpdir(), 'psg-instances-'))
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

/** A real HTTP server answering /healthz as the guard does. */
async function healthz(environment = 'devnet'): Promise<string> {
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'application/json')
    if (request.url === '/healthz') {
      response.end(JSON.stringify({ status: 'ok', environment, chainId: 8453 }))
    } else {
      response.statusCode = 404
      response.end('{}')
    }
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
  return Number(child.stdout.toString())
}

const record = (pid: number, url: string, startedAt: string) =>
  writeFileSync(
    join(dir, `${pid}.json`),
    JSON.stringify({ pid, url, startedAt, environment: 'devnet' }),
  )

describe('findRunningGuard', () => {
  it('picks the newest live instance that answers, drops dead records, keeps silent live ones', async () => {
    const older = await healthz()
    const newer = await healthz()
    const dead = deadPid()
    const silent = `http://127.0.0.1:${await freePort()}`
    // Live: this process. The newest record is dead (its URL even answers: a pid check is
    // what rejects it), the next newest lives but nothing answers at its URL.
    record(process.pid, older, '2026-01-01T00:00:01.000Z')
    record(dead, newer, '2026-01-01T00:00:04.000Z')
    writeFileSync(join(dir, '1.json'), 'not json')
    writeFileSync(join(dir, 'notes.txt'), 'ignored')
    const silentPid = process.ppid
    record(silentPid, silent, '2026-01-01T00:00:03.000Z')

    const found = await findRunningGuard({ dir, probeTimeoutMs: 1_000 })
    expect(found).toEqual({ url: older, pid: process.pid, startedAt: '2026-01-01T00:00:01.000Z' })
    expect(existsSync(join(dir, `${dead}.json`))).toBe(false)
    expect(existsSync(join(dir, `${silentPid}.json`))).toBe(true)

    // A newer live one that answers wins.
    const newest = await healthz('mainnet')
    rmSync(join(dir, `${silentPid}.json`))
    record(silentPid, newest, '2026-01-01T00:00:05.000Z')
    expect((await findRunningGuard({ dir }))?.url).toBe(newest)
  })

  it('is undefined when there is no directory or nothing lives', async () => {
    expect(await findRunningGuard({ dir: join(dir, 'missing') })).toBeUndefined()
    const empty = mkdtempSync(join(tmpdir(), 'psg-instances-empty-'))
    try {
      const pid = deadPid()
      writeFileSync(
        join(empty, `${pid}.json`),
        JSON.stringify({ pid, url: await healthz(), startedAt: new Date().toISOString() }),
      )
      expect(await findRunningGuard({ dir: empty })).toBeUndefined()
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})
