import { randomUUID } from 'node:crypto'
import type { ServerType } from '@hono/node-server'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { ErrorBody } from '../errors.js'
import { startHttpServer } from '../http/server.js'
import type { Lifecycle } from './lifecycle.js'
import { logStartupFailure } from './startup-failure.js'

/**
 * What start-up waits for while a dependency is down (mainnet only: the devnet's anvil and
 * throwaway ledger are this process's own). The first wait starts a minimal server on
 * HOST:PORT so the instance says it is alive and not ready instead of refusing connections
 * (see `starting` below). {@link StartupWait.done} closes it before the real
 * app listens on the same port.
 */
export interface StartupWait {
  /**
   * Runs `attempt` until it succeeds. A failure `isOutage` says is an outage is logged (a
   * warning, never a stack) and retried after 1, 2, 4, 8, then every 10 s; any other failure
   * is thrown. Resolves never once the service is stopping (and then runs no attempt).
   */
  until<T>(
    what: string,
    attempt: () => Promise<T>,
    isOutage: (error: unknown) => boolean,
  ): Promise<T>
  /** Closes the waiting server, if one was started. */
  done(): Promise<void>
}

const MAX_BACKOFF_MS = 10_000

/** See {@link StartupWait}. */
export function startupWait(config: Config, logger: Logger, lifecycle: Lifecycle): StartupWait {
  let server: ServerType | undefined
  let listening: Promise<void> = Promise.resolve()
  let waitingFor = ''
  /** Starts the waiting server once; resolves when it listens (so what we log is true). */
  const serve = (): Promise<void> => {
    if (server) return listening
    let listened: () => void = () => {}
    listening = new Promise((resolve) => {
      listened = resolve
    })
    server = startHttpServer({
      fetch: (request) => starting(request, waitingFor, config.network.chainId),
      port: config.PORT,
      hostname: config.HOST,
      limits: {
        headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
        requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
      },
      onListening: () => listened(),
    })
    server.on('error', (error: NodeJS.ErrnoException) => {
      logStartupFailure(
        logger,
        error.code === 'EADDRINUSE'
          ? `port ${config.PORT} on ${config.HOST} is already in use`
          : `cannot listen on ${config.HOST}:${config.PORT}`,
        error,
        error.code === 'EADDRINUSE'
          ? "set PORT to a free one, or stop what listens there (another guard says where in its 'listening' line)"
          : 'check HOST and PORT',
        { host: config.HOST, port: config.PORT },
      )
      void lifecycle.exit(2)
    })
    lifecycle.onStop('starting server', () => close())
    return listening
  }
  const close = () =>
    new Promise<void>((resolve) => {
      const s = server
      server = undefined
      if (!s) return resolve()
      s.close(() => resolve())
      if ('closeAllConnections' in s) s.closeAllConnections()
    })

  return {
    async until(what, attempt, isOutage) {
      for (let tries = 0; ; tries++) {
        // Stopping (Ctrl-C during start-up): start nothing more. The ledger is being closed
        // under us, and the payment side started now would run its reconciler on it.
        if (lifecycle.stopping) return new Promise<never>(() => {})
        try {
          return await attempt()
        } catch (error) {
          if (!isOutage(error)) throw error
          if (lifecycle.stopping) return new Promise<never>(() => {})
          const delayMs = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** tries)
          waitingFor = what
          await serve()
          logger.warn(
            { waitingFor: what, retryInMs: delayMs, attempt: tries + 1, reason: describe(error) },
            `${what} is not reachable at start-up; retrying (the service answers 503 service_starting meanwhile)`,
          )
          await new Promise((resolve) => setTimeout(resolve, delayMs))
        }
      }
    },
    done: close,
  }
}

/**
 * The waiting server's answer, in the shapes the real routes document: `/healthz` 200 (the
 * process lives), `/readyz` 503 `not_ready` with a `startup` check naming what it waits for,
 * anything else 503 `service_starting`; both with `Retry-After`.
 */
function starting(request: Request, waitingFor: string, chainId: number): Response {
  const path = new URL(request.url).pathname
  // Every answer, as the app's: never sniffed as something else (src/http/security-headers.ts).
  const nosniff = { 'X-Content-Type-Options': 'nosniff' }
  if (path === '/healthz') {
    return Response.json({ status: 'ok', environment: 'mainnet', chainId }, { headers: nosniff })
  }
  const problem = `waiting for ${waitingFor}`
  const headers = { 'Retry-After': '5', ...nosniff }
  const error = (code: ErrorBody['error'], message: string): ErrorBody => ({
    error: code,
    message,
    issues: code === 'not_ready' ? [{ path: 'startup', message: problem }] : [],
    requestId: randomUUID(),
  })
  if (path === '/readyz') {
    return Response.json(
      {
        ...error('not_ready', `not ready: startup (${problem})`),
        status: 'not_ready',
        checks: { startup: { ok: false, problem } },
      },
      { status: 503, headers },
    )
  }
  return Response.json(
    error('service_starting', `the service is starting (${problem}); retry shortly`),
    { status: 503, headers },
  )
}

/** The failure's message, one line. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]?.slice(0, 300) ?? ''
}
