import http from 'node:http'
import https from 'node:https'
import type { RpcObserver } from '../http/observed-fetch.js'
import { splitUrlCredentials } from '../http/url-credentials.js'

/** The node answered, with a JSON-RPC error object: its code, its words and its data. */
export class JsonRpcError extends Error {
  override name = 'JsonRpcError'
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message)
  }
}

/** How an exchange failed without a JSON-RPC answer. */
export type TransportFailure = 'timeout' | 'network' | 'http' | 'too_large' | 'garbage'

/**
 * The exchange failed below JSON-RPC: deadline, connection, an HTTP error status, an oversized
 * or unparseable reply. `shortMessage` never quotes the URL (it may reach an answer); `message`
 * and `url` do, for the logs.
 */
export class RpcTransportError extends Error {
  override name = 'RpcTransportError'
  constructor(
    readonly kind: TransportFailure,
    /** What went wrong, without the URL: the part an answer may quote. */
    readonly shortMessage: string,
    readonly url: string,
    /** The start of the reply body, for HTTP errors (a node's "method not supported" page). */
    readonly body?: string,
  ) {
    // The full message names the endpoint for the logs, as viem's errors do; the logger scrubs
    // the configured secrets (a key in the URL) from every line.
    super(`${shortMessage}\nURL: ${url}`)
  }
}

/** Sends one JSON-RPC request and resolves its `result`. */
export type JsonRpcSend = (method: string, params: readonly unknown[]) => Promise<unknown>

export interface JsonRpcClient {
  send: JsonRpcSend
  /** Closes idle pooled connections (in-flight requests finish). */
  close(): void
}

/** Default bound on pooled sockets per RPC origin: more requests queue on the agent. */
export const DEFAULT_MAX_SOCKETS = 64
/** Default reply bound: our replies are headers, code blobs and simulations; more is garbage. */
export const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024
/** Longest part of an error page kept for classification. */
const MAX_ERROR_BODY_CHARS = 2048

/**
 * A small JSON-RPC client over `node:http`/`node:https` with a keep-alive agent (bounded sockets,
 * LIFO so a warm socket is reused first). One deadline per request covers connecting, the
 * headers and the whole reply body, so a node that sends headers and stalls is a timeout, not a
 * hang; a reply over `maxReplyBytes` (declared or streamed) aborts the exchange. No retries.
 * Each request is reported to `observe` (method, outcome, seconds) for metrics.
 */
export function createJsonRpcClient(options: {
  url: string
  timeoutMs: number
  maxReplyBytes?: number
  maxSockets?: number
  observe?: RpcObserver
}): JsonRpcClient {
  const { url, authorization } = splitUrlCredentials(options.url)
  const target = new URL(url)
  const secure = target.protocol === 'https:'
  if (!secure && target.protocol !== 'http:') {
    throw new Error(`RPC URL must be http(s), not ${target.protocol}`)
  }
  const transport = secure ? https : http
  const agent = new transport.Agent({
    keepAlive: true,
    maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS,
    maxFreeSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS,
    scheduling: 'lifo',
  })
  const maxBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES
  const { timeoutMs, observe } = options
  const requestOptions = {
    agent,
    protocol: target.protocol,
    hostname: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port,
    path: `${target.pathname}${target.search}`,
    method: 'POST',
  }
  const baseHeaders: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
  }
  if (authorization !== undefined) baseHeaders.authorization = authorization
  let nextId = 0

  const send: JsonRpcSend = (method, params) => {
    nextId = nextId >= Number.MAX_SAFE_INTEGER ? 1 : nextId + 1
    const id = nextId
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params })
    const started = observe ? performance.now() : 0
    return new Promise<unknown>((resolve, reject) => {
      let settled = false
      const finish = (outcome: Parameters<RpcObserver>[1], error?: Error, result?: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (observe) observe(method, outcome, (performance.now() - started) / 1000)
        if (error) {
          // A socket that failed mid-exchange must not go back to the pool.
          req.destroy()
          reject(error)
        } else resolve(result)
      }
      const transportError = (kind: TransportFailure, message: string, extra?: string) =>
        new RpcTransportError(kind, message, options.url, extra)

      const req = transport.request(
        {
          ...requestOptions,
          headers: { ...baseHeaders, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const declared = Number(res.headers['content-length'])
          if (declared > maxBytes) {
            finish(
              'network_error',
              transportError(
                'too_large',
                `reply of ${declared} bytes exceeds the ${maxBytes}-byte cap`,
              ),
            )
            return
          }
          const chunks: Buffer[] = []
          let size = 0
          res.on('data', (chunk: Buffer) => {
            size += chunk.length
            if (size > maxBytes) {
              finish(
                'network_error',
                transportError('too_large', `reply exceeds the ${maxBytes}-byte cap`),
              )
              return
            }
            chunks.push(chunk)
          })
          res.on('error', (error) =>
            finish('network_error', transportError('network', error.message)),
          )
          res.on('aborted', () =>
            finish('network_error', transportError('network', 'reply aborted')),
          )
          res.on('end', () => {
            if (settled) return
            const text =
              chunks.length === 1
                ? (chunks[0] as Buffer).toString('utf8')
                : Buffer.concat(chunks).toString('utf8')
            const status = res.statusCode ?? 0
            if (status < 200 || status > 299) {
              finish(
                'http_error',
                transportError(
                  'http',
                  `HTTP ${status} ${res.statusMessage ?? ''}`.trim(),
                  text.slice(0, MAX_ERROR_BODY_CHARS),
                ),
              )
              return
            }
            let reply: unknown
            try {
              reply = JSON.parse(text)
            } catch {
              finish('network_error', transportError('garbage', 'reply is not JSON'))
              return
            }
            const message = reply as { id?: unknown; result?: unknown; error?: unknown } | null
            if (message === null || typeof message !== 'object' || message.id !== id) {
              finish('network_error', transportError('garbage', 'reply is not a JSON-RPC answer'))
              return
            }
            if (message.error !== undefined) {
              const e = message.error as { code?: unknown; message?: unknown; data?: unknown }
              const code = typeof e?.code === 'number' ? e.code : 0
              const words = typeof e?.message === 'string' ? e.message : 'JSON-RPC error'
              finish('rpc_error', new JsonRpcError(code, words, e?.data))
              return
            }
            if (!('result' in message)) {
              finish('network_error', transportError('garbage', 'reply has no result'))
              return
            }
            finish('ok', undefined, message.result)
          })
        },
      )
      const timer = setTimeout(
        () => finish('timeout', transportError('timeout', `no full reply within ${timeoutMs} ms`)),
        timeoutMs,
      )
      req.on('error', (error) => finish('network_error', transportError('network', error.message)))
      req.end(body)
    })
  }

  return {
    send,
    close() {
      agent.destroy()
    },
  }
}
