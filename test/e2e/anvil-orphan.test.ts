import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { type GuardProcess, spawnGuard } from '../support/guard-process.js'
import { freePort } from '../support/net.js'

// A devnet service killed with SIGKILL (a crash, an OOM kill, `kill -9` of its process group)
// leaves no anvil behind (issue 29): anvil runs in its own process group, so the service's
// exit and signal hooks stop it, and a watchdog outside both groups stops it when the service
// dies in a way no hook can see.

const guards: GuardProcess[] = []
afterAll(async () => {
  await Promise.all(guards.map((g) => g.stop()))
})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A devnet service, listening; its own PID and its anvil's, from its log lines. */
async function devnetService() {
  const guard = spawnGuard({ PORT: String(await freePort()), LOG_LEVEL: 'info' })
  guards.push(guard)
  const started = await guard.waitForLine((l) => typeof l.anvilPid === 'number', 60_000)
  await guard.waitForLine((l) => String(l.msg).startsWith('pre-send-guard listening'), 60_000)
  const anvilPid = started.anvilPid as number
  expect(alive(anvilPid)).toBe(true)
  // The spawned node process is the service (the compiled one, no tsx parent in between).
  const servicePid = guard.child.pid
  if (servicePid === undefined) throw new Error('no pid')
  const children = readFileSync(`/proc/${servicePid}/task/${servicePid}/children`, 'utf8')
  expect(children.trim().split(/\s+/).map(Number)).toContain(anvilPid)
  return { guard, anvilPid, servicePid }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs
  while (Date.now() < until) {
    if (!alive(pid)) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return !alive(pid)
}

describe('the devnet anvil never outlives its service', () => {
  it('after SIGKILL of the service process', async () => {
    const { anvilPid, servicePid } = await devnetService()
    process.kill(servicePid, 'SIGKILL')
    expect(await gone(anvilPid, 5_000)).toBe(true)
  }, 90_000)

  it('after SIGKILL of its whole process group', async () => {
    const { guard, anvilPid } = await devnetService()
    const group = guard.child.pid
    if (group === undefined) throw new Error('no pid')
    process.kill(-group, 'SIGKILL')
    expect(await gone(anvilPid, 5_000)).toBe(true)
  }, 90_000)
})
