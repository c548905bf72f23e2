import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import type { Socket } from 'node:net'
import { createServer } from 'node:net'
import { BASE_MAINNET } from '../../domain/network/network-profile.js'

/** Structural logger (pino's `info(obj, msg)` shape) so this adapter needs no logging library. */
export type DevnetLogger = {
  info(obj: Record<string, unknown>, msg: string): void
  warn(obj: Record<string, unknown>, msg: string): void
}

/** Options for {@link startAnvil}. */
export type StartAnvilOptions = {
  /** Chain id anvil reports; Base mainnet's 8453 by default. */
  chainId?: number
  /** Port to listen on (127.0.0.1); a free one is picked when omitted. */
  port?: number
  /** Path of the anvil binary; the one shipped in `@foundry-rs/anvil-linux-amd64` by default. */
  binaryPath?: string
  /**
   * A state file anvil starts from (`--load-state`): the devnet's prepared Base world (see
   * devnet-state.ts). Ignored with `forkUrl`.
   */
  loadStatePath?: string
  /** An RPC anvil forks (`--fork-url`), e.g. Base mainnet; its state is read on demand. */
  forkUrl?: string
  /** How long to wait for anvil to answer `eth_chainId`, in ms (default 10 000; 60 000 forking). */
  readyTimeoutMs?: number
  logger?: DevnetLogger
}

/** How anvil ended. `expected` is true only when {@link AnvilInstance.stop} caused it. */
export type AnvilExit = {
  code: number | null
  signal: NodeJS.Signals | null
  expected: boolean
  /** The tail of anvil's stderr/stdout, for the error message when it crashed. */
  output: string
}

/** A running anvil child process. */
export type AnvilInstance = {
  rpcUrl: string
  port: number
  /** PID of the anvil process itself (not of a wrapper). */
  pid: number
  chainId: number
  /** What it started from: a state file, a fork of another RPC, or an empty chain. */
  origin: { kind: 'state'; path: string } | { kind: 'fork'; url: string } | { kind: 'empty' }
  /** SIGTERM, then SIGKILL after a bounded wait; resolves once the process is gone. Idempotent. */
  stop(): Promise<void>
  /** Calls `listener` once when anvil exits (at once if it already has); returns an unsubscribe. */
  onExit(listener: (exit: AnvilExit) => void): () => void
}

/** Failure to start anvil, carrying its captured output. */
export class AnvilStartError extends Error {
  override readonly name = 'AnvilStartError'
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(output ? `${message}\n--- anvil output ---\n${output}` : message)
  }
}

/** The well-known anvil/hardhat test mnemonic; anvil's default accounts derive from it. */
export const ANVIL_TEST_MNEMONIC = 'test test test test test test test test test test test junk'

const DEFAULT_CHAIN_ID = BASE_MAINNET.chainId
const DEFAULT_READY_TIMEOUT_MS = 10_000
/** A fork first asks its upstream for the chain head: a slow provider takes its time. */
const FORK_READY_TIMEOUT_MS = 60_000
const POLL_INTERVAL_MS = 20
const STOP_GRACE_MS = 3_000
const OUTPUT_TAIL_CHARS = 4_096
const PORT_ATTEMPTS = 4

/** Resolves the npm-shipped anvil binary (only published for linux x64 in this project). */
export function resolveAnvilBinary(): string {
  try {
    return createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/bin/anvil')
  } catch (cause) {
    throw new AnvilStartError(
      `anvil binary not found: install @foundry-rs/anvil-linux-amd64 (linux x64 only; this is ${process.platform}/${process.arch}) or pass binaryPath`,
      String(cause),
    )
  }
}

/**
 * Starts anvil on 127.0.0.1 and resolves once it answers `eth_chainId` with the chain id.
 *
 * @example
 * const anvil = await startAnvil()
 * try { ... anvil.rpcUrl ... } finally { await anvil.stop() }
 */
export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const chainId = opts.chainId ?? DEFAULT_CHAIN_ID
  const binary = opts.binaryPath ?? resolveAnvilBinary()
  const readyTimeoutMs =
    opts.readyTimeoutMs ?? (opts.forkUrl ? FORK_READY_TIMEOUT_MS : DEFAULT_READY_TIMEOUT_MS)
  const origin: AnvilInstance['origin'] = opts.forkUrl
    ? { kind: 'fork', url: opts.forkUrl }
    : opts.loadStatePath
      ? { kind: 'state', path: opts.loadStatePath }
      : { kind: 'empty' }
  // A port picked by us can be taken by someone else before anvil binds it; retry with a
  // fresh one. A caller-chosen port is not retried: the caller asked for exactly that one.
  const attempts = opts.port === undefined ? PORT_ATTEMPTS : 1
  let lastError: unknown
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = opts.port ?? (await findFreePort())
    try {
      const instance = await launch({ binary, port, chainId, readyTimeoutMs, origin })
      opts.logger?.info({ pid: instance.pid, port, chainId }, 'anvil started')
      return instance
    } catch (error) {
      lastError = error
      const portTaken =
        error instanceof AnvilStartError && /address already in use|EADDRINUSE/i.test(error.output)
      if (!portTaken) throw error
      opts.logger?.warn({ port, attempt }, 'anvil port taken, retrying with another port')
    }
  }
  throw lastError
}

/** Asks the OS for a free loopback port by binding port 0, then releases it for anvil. */
async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))))
    })
  })
}

type LaunchParams = {
  binary: string
  port: number
  chainId: number
  readyTimeoutMs: number
  origin: AnvilInstance['origin']
}

async function launch({ binary, port, chainId, readyTimeoutMs, origin }: LaunchParams) {
  const args = [
    '--chain-id',
    String(chainId),
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--mnemonic',
    ANVIL_TEST_MNEMONIC,
    '--silent',
    ...(origin.kind === 'fork' ? ['--fork-url', origin.url] : []),
    ...(origin.kind === 'state' ? ['--load-state', origin.path] : []),
  ]
  // Detached into its own process group: a terminal's Ctrl+C reaches only the service, which
  // owns shutdown and stops anvil by PID. Otherwise anvil could die first and look like a crash.
  // The orphan hooks below still kill it if this process exits any way but SIGKILL.
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS)
  }
  // Reading both pipes also keeps a chatty anvil from blocking on a full pipe buffer.
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)

  let exited: AnvilExit | undefined
  let stopping = false
  const listeners = new Set<(exit: AnvilExit) => void>()
  const exitPromise = new Promise<AnvilExit>((resolve) => {
    // 'close', not 'exit': it fires once stdio has drained, so `output` holds anvil's last words.
    child.once('close', (code, signal) => {
      exited = { code, signal, expected: stopping, output }
      untrack(child)
      resolve(exited)
      for (const listener of listeners) listener(exited)
      listeners.clear()
    })
  })
  // A persistent listener: an unhandled 'error' event (spawn or kill failure) would crash us.
  const spawnError = new Promise<Error>((resolve) => {
    child.on('error', (error) => {
      keep(Buffer.from(`\n[spawn error] ${error.message}\n`))
      resolve(error)
    })
  })

  if (child.pid === undefined) {
    const error = await spawnError
    throw new AnvilStartError(`cannot spawn anvil (${binary}): ${error.message}`, output)
  }
  const pid = child.pid
  track(child)
  const guard = watchdog(pid)
  // anvil gone on its own or stopped: its watchdog has nothing left to do.
  void exitPromise.then(() => guard?.kill('SIGKILL'))

  const rpcUrl = `http://127.0.0.1:${port}`
  const stop = async (): Promise<void> => {
    if (exited) return
    stopping = true
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
    await exitPromise
    clearTimeout(timer)
  }

  try {
    await waitUntilReady({ rpcUrl, chainId, readyTimeoutMs, exitPromise })
  } catch (error) {
    await stop()
    const message = error instanceof Error ? error.message : String(error)
    throw new AnvilStartError(message, output)
  }

  return {
    rpcUrl,
    port,
    pid,
    chainId,
    origin,
    stop,
    onExit(listener: (exit: AnvilExit) => void): () => void {
      if (exited) {
        const done = exited
        queueMicrotask(() => listener(done))
        return () => {}
      }
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  } satisfies AnvilInstance
}

type ReadyParams = {
  rpcUrl: string
  chainId: number
  readyTimeoutMs: number
  exitPromise: Promise<AnvilExit>
}

/** Polls `eth_chainId` until it answers, anvil exits, or the deadline passes - whichever first. */
async function waitUntilReady({ rpcUrl, chainId, readyTimeoutMs, exitPromise }: ReadyParams) {
  const deadline = Date.now() + readyTimeoutMs
  let exit: AnvilExit | undefined
  void exitPromise.then((e) => {
    exit = e
  })
  let lastProblem = 'no answer yet'
  while (Date.now() < deadline) {
    if (exit) {
      throw new Error(
        `anvil exited before it was ready (code ${exit.code}, signal ${exit.signal}) at ${rpcUrl}`,
      )
    }
    // Race the probe against anvil's exit: something else may hold the port and never answer.
    const probe = new AbortController()
    const answer = await Promise.race([
      queryChainId(rpcUrl, Math.min(1_000, deadline - Date.now()), probe.signal),
      exitPromise.then(() => ({ problem: 'anvil exited' })),
    ])
    probe.abort()
    if ('problem' in answer) {
      lastProblem = answer.problem
    } else if (answer.result === `0x${chainId.toString(16)}`) {
      return
    } else {
      // Something answered, but not our anvil (or not with our chain id): do not keep waiting.
      throw new Error(`unexpected eth_chainId answer at ${rpcUrl}: ${answer.body.slice(0, 200)}`)
    }
    await Promise.race([sleep(POLL_INTERVAL_MS), exitPromise])
  }
  if (exit) {
    throw new Error(`anvil exited before it was ready (code ${exit.code}, signal ${exit.signal})`)
  }
  throw new Error(`anvil did not answer at ${rpcUrl} within ${readyTimeoutMs} ms (${lastProblem})`)
}

async function queryChainId(
  rpcUrl: string,
  timeoutMs: number,
  cancel: AbortSignal,
): Promise<{ result: unknown; body: string } | { problem: string }> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.any([cancel, AbortSignal.timeout(Math.max(1, timeoutMs))]),
    })
    const body = await response.text()
    const parsed: unknown = JSON.parse(body)
    const result =
      typeof parsed === 'object' && parsed !== null && 'result' in parsed
        ? parsed.result
        : undefined
    return { result, body }
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

// ---------------------------------------------------------------------------------------------
// Orphan protection: anvil must not outlive this process.

const live = new Set<ChildProcess>()
const CLEANUP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
let hooksInstalled = false

function killAllSync(): void {
  for (const child of live) {
    // SIGKILL: during 'exit' nothing asynchronous runs, so a graceful wait is impossible.
    child.kill('SIGKILL')
  }
  live.clear()
}

function onSignal(signal: NodeJS.Signals): void {
  // When the application handles this signal itself, it owns shutdown (and will stop anvil,
  // or exit and trigger the 'exit' hook); killing anvil now would look like a crash to it.
  if (process.listenerCount(signal) > 1) return
  killAllSync()
  // Re-raise with the default disposition so the process still dies by this signal.
  process.removeListener(signal, onSignal)
  process.kill(process.pid, signal)
}

function track(child: ChildProcess): void {
  live.add(child)
  if (hooksInstalled) return
  hooksInstalled = true
  process.on('exit', killAllSync)
  for (const signal of CLEANUP_SIGNALS) process.on(signal, onSignal)
}

function untrack(child: ChildProcess): void {
  live.delete(child)
}

/**
 * The one death the hooks above cannot see is this process's own SIGKILL (a crash, an OOM
 * kill, `kill -9` of its process group). A tiny watchdog outside our process group holds the
 * read end of a pipe only we write to: when we die, the pipe closes and it kills anvil (if
 * that PID is still an anvil). On a normal stop anvil is gone first and the watchdog just
 * exits with us.
 */
function watchdog(pid: number): ChildProcess | undefined {
  const script = `cat >/dev/null; [ "$(cat /proc/${pid}/comm 2>/dev/null)" = anvil ] && kill -KILL ${pid} 2>/dev/null; exit 0`
  try {
    const guard = spawn('/bin/sh', ['-c', script], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    })
    guard.on('error', () => undefined)
    guard.unref()
    // Our end of its stdin is never written and never closed before we die, and must not keep
    // this process alive.
    const stdin = guard.stdin as Socket | null
    stdin?.on('error', () => undefined)
    stdin?.unref()
    return guard
  } catch {
    // No /bin/sh: the exit and signal hooks still cover every death but SIGKILL.
    return undefined
  }
}
