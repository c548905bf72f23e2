import type { Server } from 'node:http'
import type { ServerType } from '@hono/node-server'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import { type AcceptHandles, addAcceptHandles } from '../http/accept-handles.js'
import type { GuardApp } from '../http/create-app.js'
import { startHttpServer } from '../http/server.js'
import { publicOrigin } from '../secrets.js'
import { type ChainConnection, devnetAccountList } from './chain.js'
import { recordInstance } from './instance-record.js'
import type { Lifecycle } from './lifecycle.js'
import type { StartupClock } from './startup-clock.js'
import { logStartupFailure } from './startup-failure.js'

/**
 * Start-up's listen step: serves `fetch` on HOST:PORT with the configured limits and says
 * where. A port in use (or any listen error) stops the service with exit code 2. Once
 * listening, `ACCEPT_HANDLES` handles accept on the socket (see `addAcceptHandles`). On the way
 * out every handle stops accepting, in-flight requests finish (bounded by 5 s) and idle
 * keep-alive sockets are not waited on.
 */
export function listen(
  /** The app, and the door that sheds preflights before it (`createApp`'s `preflightDoor`). */
  app: Pick<GuardApp, 'fetch' | 'preflightDoor'>,
  config: Config,
  chain: ChainConnection,
  logger: Logger,
  lifecycle: Lifecycle,
  /** Start-up's steps, logged with the "listening" line (ms since the process started). */
  clock?: StartupClock,
): ServerType {
  const { devnet, environment } = chain
  let accepting: Promise<AcceptHandles | undefined> = Promise.resolve(undefined)
  const server = startHttpServer({
    fetch: app.fetch,
    door: app.preflightDoor,
    port: config.PORT,
    hostname: config.HOST,
    limits: {
      headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    },
    onListening: (info) => {
      accepting = addAcceptHandles(server as Server, config.ACCEPT_HANDLES).then(
        (handles) => {
          logger.debug({ acceptHandles: handles.count }, 'accepting connections')
          return handles
        },
        (error: unknown) => {
          // Serving on one handle is what Node does by default: slower to accept a burst only.
          logger.warn(
            { err: error, acceptHandles: 1 },
            `cannot add accepting handles (ACCEPT_HANDLES=${config.ACCEPT_HANDLES}); accepting on one`,
          )
          return undefined
        },
      )
      const url = `http://${info.address.includes(':') ? `[${info.address}]` : info.address}:${info.port}`
      if (config.PRE_SEND_GUARD_INSTANCES) {
        // Listening on every interface: the CLI on this machine reaches it over loopback.
        const reachable =
          info.address === '0.0.0.0' ? '127.0.0.1' : info.address === '::' ? '[::1]' : undefined
        recordInstance(
          config.PRE_SEND_GUARD_INSTANCES,
          {
            pid: process.pid,
            url: reachable ? `http://${reachable}:${info.port}` : url,
            startedAt: new Date().toISOString(),
            environment,
          },
          lifecycle,
          logger,
        )
      }
      if (devnet) {
        logger.warn(
          {
            environment: 'devnet',
            rpcUrl: devnet.rpcUrl,
            chainId: config.network.chainIdHex,
            anvilPid: devnet.pid,
            accounts: devnetAccountList(devnet),
          },
          `DEVNET: this is a LOCAL anvil chain shaped like ${config.network.label} (chain id ${config.network.chainId}), NOT ${config.network.label}. Devnet RPC ${devnet.rpcUrl}. No real money moves. Set BASE_RPC_URL for ${config.network.name === 'base' ? 'mainnet' : config.network.label}. Try the whole paid flow: npm run demo`,
        )
      } else {
        logger.info(
          { environment: 'mainnet', rpcUrl: publicOrigin(chain.rpcUrl) },
          `connected to ${config.network.label}`,
        )
      }
      logger.info(
        { url, environment, ...(clock ? { startupMs: clock.read() } : {}) },
        `pre-send-guard listening on ${url}`,
      )
    },
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
  lifecycle.onStop(
    'HTTP server',
    () =>
      // Let in-flight requests finish, but never wait on idle keep-alive sockets or forever.
      new Promise<void>((resolve) => {
        // Every handle stops accepting at once; the connections the extra handles accepted are
        // the server's (its idle and 5 s cuts reach them) and are waited for like its own.
        void Promise.all([
          new Promise<void>((closed) => server.close(() => closed())),
          accepting.then((handles) => handles?.close()),
        ]).then(() => resolve())
        if ('closeIdleConnections' in server) server.closeIdleConnections()
        setTimeout(() => {
          if ('closeAllConnections' in server) server.closeAllConnections()
          resolve()
        }, 5000).unref()
      }),
  )
  return server
}
