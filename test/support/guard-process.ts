import { type ChildProcess, spawn } from 'node:child_process'
import { tmpdir } from 'node:os'

const ROOT = new URL('../..', import.meta.url).pathname
const TSX = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname

/** The service as a real `tsx src/main.ts` process, everything it prints kept verbatim. */
export interface GuardProcess {
  child: ChildProcess
  /** Everything written to stdout so far. */
  stdout(): string
  /** Everything written to stderr so far. */
  stderr(): string
  /** stdout's JSON lines, parsed (a line that is not JSON is `{raw}`). */
  lines(): Record<string, unknown>[]
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
  /** Waits (bounded) for a log line; fails at once if the process exits first. */
  waitForLine(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs: number,
  ): Promise<Record<string, unknown>>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>
}

/**
 * Spawns the service in its own process group with a fresh shell's environment plus `env`:
 * `tsx src/main.ts` by default, or `entry` (e.g. node with flags on the compiled `dist/`).
 */
export function spawnGuard(
  env: Record<string, string>,
  entry: { command: string; args: string[] } = { command: TSX, args: ['src/main.ts'] },
): GuardProcess {
  const child = spawn(entry.command, entry.args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  let exitCode: number | null | undefined
  // 'exit' can come before the last of the output is read from the pipe (a long last line, a
  // loaded machine): resolve once stdout has ended too, bounded, since a grandchild that
  // inherited the pipe could hold it open.
  const stdoutEnded = new Promise<void>((resolve) => child.stdout?.once('end', resolve))
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code
      const bound = new Promise<void>((r) => setTimeout(r, 2000).unref())
      void Promise.race([stdoutEnded, bound]).then(() => resolve(code))
    }),
  )
  const lines = () =>
    stdout
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>
        } catch {
          return { raw: line }
        }
      })
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    lines,
    exited,
    async waitForLine(predicate, timeoutMs) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = lines().find(predicate)
        if (found) return found
        if (exitCode !== undefined || Date.now() > deadline) {
          throw new Error(
            `${exitCode !== undefined ? `exited (${exitCode})` : 'timed out'} before the expected log line; stdout:\n${stdout}\nstderr:\n${stderr}`,
          )
        }
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    async stop(graceMs = 10_000) {
      if (exitCode !== undefined || !child.pid) return
      process.kill(-child.pid, 'SIGTERM')
      const timer = setTimeout(() => {
        if (exitCode === undefined && child.pid) process.kill(-child.pid, 'SIGKILL')
      }, graceMs)
      await exited
      clearTimeout(timer)
    },
  }
}
