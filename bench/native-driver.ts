import { execFile, execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * `bench/native-driver.cc` from a bench: built with g++ into `dist/bench/` (once per change of
 * its source), fed prebuilt requests, its answers read back. It costs a few hundredths of a
 * millisecond of CPU per request where a `node:http` client costs a tenth or more, so on 2
 * cores shared with the service and its node the bench's own load takes little from them.
 */

/** One answer as the driver saw it; status 0: the connection failed or closed first. */
export interface DriverAnswer {
  status: number
  /** From when the request was due (a new connection's set-up included) to its last byte. */
  ms: number
  retryAfter: boolean
  bytes: number
  /** Whether the request opened its connection (the set-up, accept included, is in `ms`). */
  fresh: boolean
  /** The request's index in `requests`. */
  request: number
}

export interface DriverRun {
  answers: DriverAnswer[]
  /** Connections the driver opened. */
  connections: number
  /** The driver process's own CPU (user + system), ms. */
  cpuMs: number
  /** From the first request to the last answer, s. */
  seconds: number
}

let binary: string | undefined
/** The driver's executable, built from its source when that changed. */
export function nativeDriver(): string {
  if (binary) return binary
  const source = fileURLToPath(new URL('native-driver.cc', import.meta.url))
  const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 16)
  const built = join(dirname(source), '..', 'dist', 'bench', `native-driver-${hash}`)
  if (!existsSync(built)) {
    mkdirSync(dirname(built), { recursive: true })
    try {
      execFileSync('g++', ['-O2', '-std=c++17', '-o', built, source], { stdio: 'inherit' })
    } catch (error) {
      throw new Error(
        'cannot build bench/native-driver.cc with g++ (apt-get install g++), or run the bench with its node:http driver (BURST_DRIVER=http, SERVICE_BENCH_DRIVER=http)',
        { cause: error },
      )
    }
  }
  binary = built
  return built
}

/** A JSON POST to `url` as the bytes the driver sends. */
export function postBytes(url: URL, body: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(body))
  const head =
    `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
    `content-length: ${payload.length}\r\n\r\n`
  return Buffer.concat([Buffer.from(head), payload])
}

let scratch: string | undefined
function scratchDir(): string {
  if (!scratch) {
    const dir = mkdtempSync(join(tmpdir(), 'psg-driver-'))
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
    scratch = dir
  }
  return scratch
}

/**
 * Runs the driver against `base` for `seconds`, sending `requests` in turn: `open`, `param`
 * requests per second on a fixed schedule (every answer awaited); `closed`, `param` clients,
 * each sending its next request when its answer arrived (a 503 included, at once).
 */
export async function runNativeDriver(
  base: string,
  mode: 'open' | 'closed',
  param: number,
  seconds: number,
  requests: readonly Buffer[],
  /** CPUs the driver runs on (`taskset -c`), e.g. `1`; all when absent. */
  cpus?: string,
): Promise<DriverRun> {
  const parts: Buffer[] = []
  for (const request of requests) {
    const length = Buffer.alloc(4)
    length.writeUInt32LE(request.length)
    parts.push(length, request)
  }
  const file = join(scratchDir(), 'requests')
  writeFileSync(file, Buffer.concat(parts))
  const url = new URL(base)
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      cpus === undefined ? nativeDriver() : 'taskset',
      [
        ...(cpus === undefined ? [] : ['-c', cpus, nativeDriver()]),
        url.hostname,
        url.port,
        mode,
        String(param),
        String(seconds),
        file,
      ],
      { maxBuffer: 256 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  )
  const answers: DriverAnswer[] = []
  let connections = 0
  let cpuMs = 0
  let elapsed = 0
  for (const line of out.split('\n')) {
    if (!line) continue
    if (line.startsWith('#')) {
      // "# connections <n> cpu_us <us> elapsed_us <us>"
      const [, , opened, , cpu, , us] = line.split(' ')
      connections = Number(opened)
      cpuMs = Number(cpu) / 1000
      elapsed = Number(us) / 1e6
      continue
    }
    const [status, us, retryAfter, bytes, fresh, request] = line.split(' ').map(Number) as number[]
    answers.push({
      status: status as number,
      ms: (us as number) / 1000,
      retryAfter: retryAfter === 1,
      bytes: bytes as number,
      fresh: fresh === 1,
      request: request as number,
    })
  }
  return { answers, connections, cpuMs, seconds: elapsed }
}
