import { mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { Lifecycle } from './lifecycle.js'

/**
 * One running instance as the buyer CLI finds it (packages/client/src/cli/running-guards.ts
 * reads the same shape): which process serves where, since when.
 */
export interface InstanceRecord {
  pid: number
  url: string
  /** ISO 8601; the CLI picks the newest live instance. */
  startedAt: string
  environment: 'devnet' | 'mainnet'
}

/**
 * Records this instance in `dir` (one file per process, named by its pid) once it listens,
 * so a failed start never appears, and removes the file on the way out, on a signal or on
 * `process.exit`. A `kill -9` leaves the file behind: readers check the pid and probe the URL,
 * and drop records whose process is gone. Best effort: a read-only checkout records nothing
 * (the CLI then falls back to PORT, PRE_SEND_GUARD_URL or --url).
 */
export function recordInstance(
  dir: string,
  record: InstanceRecord,
  lifecycle: Lifecycle,
  logger: Pick<Logger, 'debug'>,
): void {
  const file = join(dir, `${record.pid}.json`)
  try {
    mkdirSync(dir, { recursive: true })
    // Written whole, then renamed: a reader never sees half a record.
    const scratch = `${file}.${process.hrtime.bigint()}.tmp`
    writeFileSync(scratch, `${JSON.stringify(record)}\n`)
    renameSync(scratch, file)
  } catch (error) {
    logger.debug({ err: error, dir }, 'cannot record this instance for the CLI to find')
    return
  }
  const remove = () => {
    try {
      unlinkSync(file)
    } catch {
      // Already gone.
    }
  }
  // The HTTP server stops first (registered later, run earlier): the record goes before that.
  lifecycle.onStop('instance record', async () => remove())
  process.once('exit', remove)
}
