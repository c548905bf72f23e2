import { type ChildProcess, spawn } from 'node:child_process'
import { tmpdir } from 'node:os'

// @ts-expect-error: a plain-JavaScript script without type declarations
import { MAIN } from '../../scripts/build.mjs'

const ROOT = new URL('../..', import.meta.url).pathname

/**
 * The service as a real process, everything it prints kept verbatim: the compiled
 * `dist/src/main.js` that `npm start` runs (src/main.ts bundled by scripts/build.mjs; the global
 * setup, test/support/build-client.ts, builds it when a source changed). Not `tsx src/main.ts`:
 * that spent 4-5 s of CPU compiling at every start (docs/performance.md, "The suite's wall time").
 */
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
 * node on the compiled `dist/src/main.js` by default, or `entry`.
 */
export function spawnGuard(
  env: Record<string, string>,
  entry: { command: string; args: string[] } = { command: process.execPath, args: [MAIN] },
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
