import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http'
import type { Duplex } from 'node:stream'
import { type ServerType, serve } from '@hono/node-server'
import type { ErrorBody, ErrorCode } from '../errors.js'
import type { PreflightDoor } from './preflight-door.js'

/** Limits of the Node HTTP server in front of the app, set on purpose rather than left to Node. */
export interface HttpServerLimits {
  /**
   * Time to receive a request's headers (ms). A client trickling headers is cut off with a
   * JSON 408 `request_timeout`.
   */
  headersTimeoutMs: number
  /**
   * Time to receive a whole request, body included (ms); the answer's time does not count.
   * A slow body is cut off with a JSON 408 `request_timeout` instead of holding a socket for
   * Node's 300 s default.
   */
  requestTimeoutMs: number
  /** How long an idle keep-alive connection is kept open (ms). */
  keepAliveTimeoutMs: number
}

/**
 * Node's bound on the request line and headers together. Larger than Node's 16 KiB default on
 * purpose: a PAYMENT-SIGNATURE just over 16 KiB must reach the app, which refuses it with a
 * JSON 431 `headers_too_large`; past this bound the server itself answers the same JSON 431.
 */
export const MAX_HEADER_BYTES = 64 * 1024

/** Options for {@link startHttpServer}. */
export interface StartHttpServerOptions {
  fetch: (request: Request) => Response | Promise<Response>
  port: number
  hostname: string
  limits: HttpServerLimits
  /**
   * Sheds preflights before the app sees them (`createApp`'s `preflightDoor`): started once
   * listening, stopped on close.
   */
  door?: PreflightDoor
  onListening?: (info: { address: string; port: number }) => void
}

/**
 * Serves the app on Node's HTTP server with explicit timeouts, a 64 KiB header bound, and
 * every refusal the server makes before the app sees the request (headers too large, too
 * slow, malformed) written in the service's JSON error shape instead of Node's empty bodies.
 */
export function startHttpServer(options: StartHttpServerOptions): ServerType {
  const { limits, door } = options
  const server = serve(
    {
      fetch: options.fetch,
      // The door answers a preflight it sheds itself; every other request goes to the app.
      ...(door
        ? {
            createServer: ((serverOptions: ServerOptions, app: RequestListener) =>
              createServer(serverOptions, (req, res) => {
                if (!door.shed(req, res)) app(req, res)
              })) as typeof createServer,
          }
        : {}),
      port: options.port,
      hostname: options.hostname,
      serverOptions: {
        maxHeaderSize: MAX_HEADER_BYTES,
        requestTimeout: limits.requestTimeoutMs,
        // Node requires headersTimeout <= requestTimeout.
        headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        // Node looks for timed-out requests on this interval (default 30 s): often enough
        // that a timeout is enforced close to its value.
        connectionsCheckingInterval: 1_000,
      },
    },
    (info) => {
      door?.start()
      options.onListening?.(info)
    },
  ) as Server
  if (door) server.on('close', () => door.stop())
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket),
  )
  return server
}

const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
}

/** Node's refusals before the app, in our codes. */
export function classifyClientError(error: NodeJS.ErrnoException): {
  status: 400 | 408 | 431
  code: ErrorCode
  message: string
} {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'headers_too_large',
        message: `the request headers exceed ${MAX_HEADER_BYTES} bytes (a PAYMENT-SIGNATURE may be at most 16384)`,
      }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return {
        status: 408,
        code: 'request_timeout',
        message: 'the request (headers and body) did not arrive in time; send it again',
      }
    default:
      return {
        status: 400,
        code: 'malformed_request',
        message: `the request is not valid HTTP/1.1 (${error.code ?? 'parse error'})`,
      }
  }
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
    socket.destroy()
    return
  }
  const { status, code, message } = classifyClientError(error)
  const body: ErrorBody = { error: code, message, issues: [] }
  const json = JSON.stringify(body)
  socket.end(
    `HTTP/1.1 ${status} ${REASON_PHRASES[status]}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  )
}
