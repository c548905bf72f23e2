import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/client/src/cli/cli.js'
import { EXIT } from '../../packages/client/src/cli/cli-output.js'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt } from '../../scripts/build.mjs'
import { freePort } from '../support/net.js'

// Issue 29 item 1: the CLI finds the guard the user runs. A first `npm start`, a second one
// started and then killed with SIGKILL (its record stays behind), a third that fails on the
// first one's port: the CLI still finds the first, and says so. The records go to a scratch
// directory (PRE_SEND_GUARD_INSTANCES), never the checkout's own.

const ROOT = new URL('../..', import.meta.url).pathname
const scratch = mkdtempSync(join(tmpdir(), 'psg-running-'))
const instances = join(scratch, 'instances')
const children: ChildProcess[] = []

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

interface Started {
  child: ChildProcess
  /** The "listening" line's URL, once it logs one. */
  listening: Promise<string>
  exited: Promise<number | null>
}

function npmStart(port: number, name: string): Started {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      PORT: String(port),
      DATA_DIR: join(scratch, name),
      PRE_SEND_GUARD_INSTANCES: instances,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = out.match(/"url":"(http:\/\/[^"]+)"[^\n]*pre-send-guard listening/)
      if (match?.[1]) resolve(match[1])
    })
    void exited.then((code) =>
      reject(new Error(`npm start exited (${code}) before listening:\n${out}`)),
    )
  })
  listening.catch(() => undefined)
  return { child, listening, exited }
}

const records = () =>
  existsSync(instances) ? readdirSync(instances).filter((f) => f.endsWith('.json')) : []

describe('the CLI finds the guard the user runs', () => {
  beforeAll(() => ensureBuilt(), 180_000)
  afterAll(() => {
    for (const child of children)
      if (child.pid && alive(child.pid)) process.kill(-child.pid, 'SIGKILL')
    rmSync(scratch, { recursive: true, force: true })
  })

  it('after a second start killed with SIGKILL and a failed start on a taken port, finds the first', async () => {
    const firstPort = await freePort()
    const first = npmStart(firstPort, 'first')
    const firstUrl = await first.listening
    expect(records()).toHaveLength(1)
    const firstRecord = JSON.parse(readFileSync(join(instances, records()[0] ?? ''), 'utf8'))
    expect(firstRecord).toMatchObject({ url: firstUrl, environment: 'devnet' })

    const second = npmStart(await freePort(), 'second')
    const secondUrl = await second.listening
    expect(records()).toHaveLength(2)
    const secondRecord = records().find((f) => f !== `${firstRecord.pid}.json`) ?? ''
    const secondPid = Number(secondRecord.replace('.json', ''))
    // Newer than the first: without the liveness check the CLI would pick it.
    if (second.child.pid) process.kill(-second.child.pid, 'SIGKILL')
    await second.exited
    // The service process itself is gone once the kernel has reaped it (a loaded machine can
    // take a moment after npm's own exit); only then is it dead to anyone who looks.
    for (let i = 0; i < 100 && alive(secondPid); i++) await new Promise((r) => setTimeout(r, 50))
    expect(alive(secondPid)).toBe(false)
    expect(records()).toHaveLength(2)

    const failed = npmStart(firstPort, 'failed')
    expect(await failed.exited).not.toBe(0)
    await expect(failed.listening).rejects.toThrow(/exited/)

    const out: string[] = []
    const err: string[] = []
    const code = await runCli(['discover', '--json'], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: { PRE_SEND_GUARD_INSTANCES: instances },
    })
    expect(code, err.join('')).toBe(EXIT.ok)
    expect(JSON.parse(out.join('')).environment).toBe('devnet')
    expect(err.join('')).toContain(
      `guard: ${firstUrl} (the newest running \`npm start\` here: pid ${firstRecord.pid}`,
    )
    expect(err.join('')).not.toContain(secondUrl)
    // The killed instance's record was dropped; the first one's stays while it runs.
    expect(records()).toEqual([`${firstRecord.pid}.json`])

    // Stopped on purpose (Ctrl-C): its record goes with it.
    if (first.child.pid) process.kill(-first.child.pid, 'SIGINT')
    await first.exited
    expect(records()).toEqual([])
  }, 120_000)
})
