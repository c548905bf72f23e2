import { readdir, readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Where `npm start` records each running guard of a checkout, relative to the project (see
 * scripts/start.mjs and src/service/instance-record.ts); `PRE_SEND_GUARD_INSTANCES` names
 * another directory.
 */
export const INSTANCES_DIR = 'node_modules/.cache/pre-send-guard/instances'

/** A guard `npm start` runs, found alive: its process lives and its URL answers `/healthz`. */
export interface RunningGuard {
  url: string
  pid: number
  /** ISO 8601, as the instance recorded it. */
  startedAt: string
}

/** Options for {@link findRunningGuard}. */
export interface FindRunningGuardOptions {
  /** The directory of records; {@link INSTANCES_DIR} (relative to the working directory) by default. */
  dir?: string
  fetch?: typeof globalThis.fetch
  /** How long one `/healthz` probe may take, in ms (default 1 500). */
  probeTimeoutMs?: number
}

/**
 * The newest running guard of this checkout: among the recorded instances, the most recently
 * started whose process is alive and whose URL answers `/healthz` as a guard. Records of
 * processes that are gone (a `kill -9`, a crash) are deleted on the way; a record whose process
 * lives but whose URL does not answer (still starting, or a reused pid) is skipped, not deleted.
 * Never throws: no directory, no record or no live one is `undefined`.
 */
export async function findRunningGuard(
  options: FindRunningGuardOptions = {},
): Promise<RunningGuard | undefined> {
  const dir = options.dir ?? INSTANCES_DIR
  let names: string[]
  try {
    names = (await readdir(dir)).filter((name) => /^[0-9]+\.json$/.test(name))
  } catch {
    return undefined
  }
  const records: RunningGuard[] = []
  for (const name of names) {
    const record = parseRecord(await readFile(join(dir, name), 'utf8').catch(() => ''))
    if (!record) continue
    if (!processAlive(record.pid)) {
      await unlink(join(dir, name)).catch(() => undefined)
      continue
    }
    records.push(record)
  }
  records.sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))
  const fetchImpl = options.fetch ?? globalThis.fetch
  for (const record of records) {
    if (await answersAsGuard(record.url, fetchImpl, options.probeTimeoutMs ?? 1_500)) return record
  }
  return undefined
}

function parseRecord(text: string): RunningGuard | undefined {
  try {
    const value = JSON.parse(text) as Partial<Record<keyof RunningGuard, unknown>>
    const { url, pid, startedAt } = value
    if (
      typeof url === 'string' &&
      /^https?:\/\/\S+$/.test(url) &&
      typeof pid === 'number' &&
      Number.isSafeInteger(pid) &&
      pid > 0 &&
      typeof startedAt === 'string' &&
      !Number.isNaN(Date.parse(startedAt))
    ) {
      return { url, pid, startedAt }
    }
  } catch {
    // Not a record (a half-written or foreign file): ignored.
  }
  return undefined
}

/** Whether a process with this pid exists (EPERM: it exists, owned by someone else). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Whether `url` answers `GET /healthz` 200 with the guard's `{status: "ok", environment}`. */
async function answersAsGuard(
  url: string,
  fetchImpl: typeof globalThis.fetch,
  timeoutMs: number,
): Promise<boolean> {
  try {
    const response = await fetchImpl(`${url.replace(/\/+$/, '')}/healthz`, {
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (response.status !== 200) return false
    const body = (await response.json()) as { status?: unknown; environment?: unknown }
    return body.status === 'ok' && (body.environment === 'devnet' || body.environment === 'mainnet')
  } catch {
    return false
  }
}

/** The guard's URL and what named it (said when nothing answers there). */
export interface GuardUrl {
  url: string
  from: '--url' | 'PRE_SEND_GUARD_URL' | 'PORT' | 'npm start' | 'default'
  /** With `from: 'npm start'`: the running instance it is. */
  instance?: RunningGuard
}
