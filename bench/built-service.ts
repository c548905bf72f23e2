// The built service as a bench starts it (bench/service.ts, bench/burst.ts): `node <args>` on
// a port, a throwaway DATA_DIR, only PATH and HOME from the environment, its log on /dev/null
// and its stderr kept for the error when it does not come up.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Settings a bench gives a service variant, written as space-separated `NAME=value` pairs
 * (`MAX_PREFLIGHTS_IN_FLIGHT=32 NODE_OPTIONS=--max-semi-space-size=32`): a value runs from the
 * first `=` to the next space, so it may hold `=` itself.
 */
export function envPairs(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=')
        return at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)]
      }),
  )
}

/** A started service: its process, base URL, and how to stop it (data directory removed). */
export interface BuiltService {
  child: ChildProcess
  pid: number
  base: string
  stop(): Promise<void>
}

/**
 * Spawns `node ...args` with PORT=`port` and `env`, and resolves once `GET /healthz` answers
 * 200 (120 s at most; an exit or the deadline rejects with its stderr).
 */
export async function startBuiltService(options: {
  port: number
  args: readonly string[]
  env?: Record<string, string>
}): Promise<BuiltService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'psg-bench-service-'))
  const child = spawn(process.execPath, [...options.args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      PORT: String(options.port),
      DATA_DIR: dataDir,
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))])
    if (child.exitCode === null) child.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  }
  const base = `http://127.0.0.1:${options.port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) {
      rmSync(dataDir, { recursive: true, force: true })
      throw new Error(`service exited at start: ${stderr}`)
    }
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`service not up in 120 s: ${stderr}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return { child, pid: child.pid as number, base, stop }
}
