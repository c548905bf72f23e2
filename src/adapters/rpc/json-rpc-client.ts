import http from 'node:http'
import https from 'node:https'
import type { RpcObserver, RpcOutcome } from '../fetch/observed-fetch.js'
import { splitUrlCredentials } from '../fetch/url-credentials.js'

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
/**
 * Default most calls per JSON-RPC batch. Ten is within every public Base RPC's batch limit we
 * know of, and a read-only preflight's wave (9 calls for a transfer) fits in one exchange.
 */
export const DEFAULT_MAX_BATCH = 10
/** Longest part of an error page kept for classification. */
const MAX_ERROR_BODY_CHARS = 2048
/**
 * HTTP statuses with which a node refuses a batch as such (bad request, method or media type,
 * body too large, not implemented): the calls are then sent one by one, and batching stops.
 */
const BATCH_REFUSED_STATUS = new Set([400, 404, 405, 413, 415, 422, 501])

/**
 * A single JSON-RPC error answering a batch says "no batches" when it is an invalid-request or
 * method-not-found error or names batches; anything else (a rate limit, say) is the node's
 * trouble and fails the calls like any transport failure, without ending batching.
 */
function refusesBatch(reply: object): boolean {
  const error = (reply as { error?: { code?: unknown; message?: unknown } }).error
  if (error === undefined || error === null || typeof error !== 'object') return false
  if (error.code === -32600 || error.code === -32601) return true
  return typeof error.message === 'string' && /batch/i.test(error.message)
}

/** One call waiting for its batch. */
interface Queued {
  id: number
  method: string
  params: readonly unknown[]
  resolve: (result: unknown) => void
  reject: (error: Error) => void
}

/** What one HTTP exchange produced: the parsed reply, or why there is none. */
type Exchange =
  | { ok: true; reply: unknown }
  | { ok: false; outcome: RpcOutcome; error: RpcTransportError; status?: number }

/**
 * A small JSON-RPC client over `node:http`/`node:https` with a keep-alive agent (bounded sockets,
 * LIFO so a warm socket is reused first). One deadline per exchange covers connecting, the
 * headers and the whole reply body, so a node that sends headers and stalls is a timeout, not a
 * hang; a reply over `maxReplyBytes` (declared or streamed) aborts the exchange. No retries.
 *
 * Calls sent in the same turn of the event loop (a preflight's wave is sent at once) travel as
 * one JSON-RPC batch of at most `maxBatch` calls: one HTTP exchange instead of one per call,
 * which is most of the CPU a preflight costs here and on the node. Each call still resolves
 * or fails on its own (its own result or JSON-RPC error); a transport failure fails the calls
 * of that exchange. A lone call goes as a plain request. A node that refuses batches (a single
 * error for the batch that says so, see {@link refusesBatch}, or one of
 * {@link BATCH_REFUSED_STATUS}) gets the calls one by one from then on. `maxBatch: 1` turns
 * batching off.
 * Each call is reported to `observe` (method, outcome, seconds of its exchange) for metrics.
 */
export function createJsonRpcClient(options: {
  url: string
  timeoutMs: number
  maxReplyBytes?: number
  maxSockets?: number
  maxBatch?: number
  observe?: RpcObserver
}): JsonRpcClient {
  const endpoint = openEndpoint(options)
  const dispatch: Dispatch = {
    endpoint,
    observe: options.observe,
    maxBatch: Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH),
    nextId: 0,
    queue: [],
  }
  return {
    send: (method, params) => sendCall(dispatch, method, params),
    close() {
      endpoint.agent.destroy()
    },
  }
}

/** One RPC origin: its pooled agent, the request every exchange makes, and the bounds. */
interface Endpoint {
  /** The configured URL, credentials included, for the logs' error messages. */
  url: string
  transport: typeof http | typeof https
  agent: http.Agent
  requestOptions: http.RequestOptions
  headers: Record<string, string>
  maxBytes: number
  timeoutMs: number
}

/** Checks the URL and opens its keep-alive agent (bounded, LIFO). */
function openEndpoint(options: {
  url: string
  timeoutMs: number
  maxReplyBytes?: number
  maxSockets?: number
}): Endpoint {
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
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
  }
  if (authorization !== undefined) headers.authorization = authorization
  return {
    url: options.url,
    transport,
    agent,
    requestOptions: {
      agent,
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port,
      path: `${target.pathname}${target.search}`,
      method: 'POST',
    },
    headers,
    maxBytes: options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES,
    timeoutMs: options.timeoutMs,
  }
}

function transportError(
  endpoint: Endpoint,
  kind: TransportFailure,
  message: string,
  extra?: string,
): RpcTransportError {
  return new RpcTransportError(kind, message, endpoint.url, extra)
}

/** An exchange without a JSON-RPC answer; `status` for an HTTP error status. */
function failed(outcome: RpcOutcome, error: RpcTransportError, status?: number): Exchange {
  return status === undefined
    ? { ok: false, outcome, error }
    : { ok: false, outcome, error, status }
}

/** One HTTP POST of `body`, its reply read within the deadline and parsed as JSON. */
function exchange(endpoint: Endpoint, body: string): Promise<Exchange> {
  return new Promise<Exchange>((resolve) => {
    let settled = false
    const finish = (result: Exchange) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      // A socket that failed mid-exchange must not go back to the pool.
      if (!result.ok) req.destroy()
      resolve(result)
    }
    const req = endpoint.transport.request(
      {
        ...endpoint.requestOptions,
        headers: { ...endpoint.headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => readReply(endpoint, res, finish, () => settled),
    )
    const timer = setTimeout(
      () =>
        finish(
          failed(
            'timeout',
            transportError(endpoint, 'timeout', `no full reply within ${endpoint.timeoutMs} ms`),
          ),
        ),
      endpoint.timeoutMs,
    )
    req.on('error', (error) =>
      finish(failed('network_error', transportError(endpoint, 'network', error.message))),
    )
    req.end(body)
  })
}

/**
 * Reads a reply body up to the byte cap (declared or streamed) and hands `finish` what the
 * exchange produced; `settled` says the exchange has already ended (a deadline, a failure).
 */
function readReply(
  endpoint: Endpoint,
  res: http.IncomingMessage,
  finish: (result: Exchange) => void,
  settled: () => boolean,
): void {
  const { maxBytes } = endpoint
  const declared = Number(res.headers['content-length'])
  if (declared > maxBytes) {
    finish(
      failed(
        'network_error',
        transportError(
          endpoint,
          'too_large',
          `reply of ${declared} bytes exceeds the ${maxBytes}-byte cap`,
        ),
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
        failed(
          'network_error',
          transportError(endpoint, 'too_large', `reply exceeds the ${maxBytes}-byte cap`),
        ),
      )
      return
    }
    chunks.push(chunk)
  })
  res.on('error', (error) =>
    finish(failed('network_error', transportError(endpoint, 'network', error.message))),
  )
  res.on('aborted', () =>
    finish(failed('network_error', transportError(endpoint, 'network', 'reply aborted'))),
  )
  res.on('end', () => {
    if (settled()) return
    const text =
      chunks.length === 1
        ? (chunks[0] as Buffer).toString('utf8')
        : Buffer.concat(chunks).toString('utf8')
    finish(parseReply(endpoint, res.statusCode ?? 0, res.statusMessage, text))
  })
}

/** A whole reply as the exchange's result: an HTTP error, a body that is not JSON, or JSON. */
function parseReply(
  endpoint: Endpoint,
  status: number,
  statusMessage: string | undefined,
  text: string,
): Exchange {
  if (status < 200 || status > 299) {
    return failed(
      'http_error',
      transportError(
        endpoint,
        'http',
        `HTTP ${status} ${statusMessage ?? ''}`.trim(),
        text.slice(0, MAX_ERROR_BODY_CHARS),
      ),
      status,
    )
  }
  let reply: unknown
  try {
    reply = JSON.parse(text)
  } catch {
    return failed('network_error', transportError(endpoint, 'garbage', 'reply is not JSON'))
  }
  return { ok: true, reply }
}

/** Where calls go, who counts them, and the batching state. */
interface Dispatch {
  endpoint: Endpoint
  observe: RpcObserver | undefined
  /** Most calls per batch; 1 from the first batch the node refuses. */
  maxBatch: number
  nextId: number
  /** The calls of this turn of the event loop, sent together by {@link flush}. */
  queue: Queued[]
}

/** Queues one call for this turn's batch (or sends it alone when batching is off). */
function sendCall(d: Dispatch, method: string, params: readonly unknown[]): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    d.nextId = d.nextId >= Number.MAX_SAFE_INTEGER ? 1 : d.nextId + 1
    const call: Queued = { id: d.nextId, method, params, resolve, reject }
    if (d.maxBatch === 1) {
      void single(d, call)
      return
    }
    // The calls of this turn of the event loop go together once its microtasks have run.
    if (d.queue.length === 0) setImmediate(flush, d)
    d.queue.push(call)
  })
}

/** Sends the queued calls in batches of at most `maxBatch` (a lone call as a plain request). */
function flush(d: Dispatch): void {
  const calls = d.queue
  d.queue = []
  for (let i = 0; i < calls.length; i += d.maxBatch) {
    const part = calls.slice(i, i + d.maxBatch)
    void (part.length === 1 ? single(d, part[0] as Queued) : batch(d, part))
  }
}

/** One call as a plain (unbatched) request. */
async function single(d: Dispatch, call: Queued): Promise<void> {
  const started = performance.now()
  const done = await exchange(
    d.endpoint,
    JSON.stringify({ jsonrpc: '2.0', id: call.id, method: call.method, params: call.params }),
  )
  const seconds = (performance.now() - started) / 1000
  if (!done.ok) return failAll(d, [call], done.outcome, done.error, seconds)
  const message = done.reply
  if (!isAnswer(message) || message.id !== call.id) {
    return failAll(
      d,
      [call],
      'network_error',
      transportError(d.endpoint, 'garbage', 'reply is not a JSON-RPC answer'),
      seconds,
    )
  }
  answer(d, call, message, seconds)
}

/** Calls as one batch; the node's refusal of batches sends them singly and ends batching. */
async function batch(d: Dispatch, calls: readonly Queued[]): Promise<void> {
  const started = performance.now()
  const done = await exchange(
    d.endpoint,
    JSON.stringify(
      calls.map((c) => ({ jsonrpc: '2.0', id: c.id, method: c.method, params: c.params })),
    ),
  )
  const seconds = (performance.now() - started) / 1000
  const refused = done.ok
    ? isAnswer(done.reply) && refusesBatch(done.reply)
    : done.status !== undefined && BATCH_REFUSED_STATUS.has(done.status)
  if (refused) {
    d.maxBatch = 1
    await Promise.all(calls.map((call) => single(d, call)))
    return
  }
  if (!done.ok) return failAll(d, calls, done.outcome, done.error, seconds)
  if (!Array.isArray(done.reply)) {
    const error = transportError(
      d.endpoint,
      'garbage',
      'reply to a batch is not a JSON-RPC batch answer',
    )
    return failAll(d, calls, 'network_error', error, seconds)
  }
  const byId = new Map<unknown, unknown>()
  for (const message of done.reply) if (isAnswer(message)) byId.set(message.id, message)
  for (const call of calls) {
    const message = byId.get(call.id)
    if (message === undefined) {
      const error = transportError(d.endpoint, 'garbage', 'the batch answer lacks this call')
      failAll(d, [call], 'network_error', error, seconds)
    } else answer(d, call, message, seconds)
  }
}

function isAnswer(message: unknown): message is { id: unknown } {
  return message !== null && typeof message === 'object' && !Array.isArray(message)
}

/** Settles one call from its JSON-RPC answer (`message`, already matched by id). */
function answer(d: Dispatch, call: Queued, message: unknown, seconds: number): void {
  const m = message as { result?: unknown; error?: unknown }
  if (m.error !== undefined) {
    const e = m.error as { code?: unknown; message?: unknown; data?: unknown }
    const code = typeof e?.code === 'number' ? e.code : 0
    const words = typeof e?.message === 'string' ? e.message : 'JSON-RPC error'
    d.observe?.(call.method, 'rpc_error', seconds)
    // An answer, not a fault of ours: a stack of this reply handler tells nothing, and a
    // revert answer is routine (a probe of an EOA), so none is captured.
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    const error = new JsonRpcError(code, words, e?.data)
    Error.stackTraceLimit = limit
    call.reject(error)
    return
  }
  if (!('result' in m)) {
    d.observe?.(call.method, 'network_error', seconds)
    call.reject(transportError(d.endpoint, 'garbage', 'reply has no result'))
    return
  }
  d.observe?.(call.method, 'ok', seconds)
  call.resolve(m.result)
}

/** Fails `calls` with one error, each counted with `outcome`. */
function failAll(
  d: Dispatch,
  calls: readonly Queued[],
  outcome: RpcOutcome,
  error: Error,
  seconds: number,
): void {
  for (const call of calls) {
    d.observe?.(call.method, outcome, seconds)
    call.reject(error)
  }
}
