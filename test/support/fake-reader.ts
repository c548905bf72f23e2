import http, { type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the fake answers for one request. `delayMs` holds the answer back (a slow reader). */
export type FakeReply = { delayMs?: number } & (
  | {
      kind: 'page'
      content: string
      title?: string | null
      /** The final URL reported; defaults to the requested URL. */
      url?: string | null
      warning?: string
    }
  | {
      kind: 'error'
      status: number
      name?: string
      message?: string
      headers?: Record<string, string>
    }
  | { kind: 'raw'; status: number; body: string | Buffer; contentType?: string }
  | {
      /** Headers and `prefix` at once, then one byte of `drip` every `intervalMs` until closed. */
      kind: 'drip'
      prefix: string
      intervalMs: number
      drip?: string
    }
)

/** One request the fake received. */
export interface FakeReaderRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown
  /** `body.url` when it was a string. */
  url: string | undefined
}

/** A Jina-Reader-shaped HTTP server on loopback. */
export interface FakeReader {
  baseUrl: string
  received: FakeReaderRequest[]
  /** Replies keyed by the exact `url` in the request body; `fallback` answers the rest. */
  replies: Map<string, FakeReply>
  fallback: (url: string) => FakeReply
  close(): Promise<void>
}

/** A successful page for `url`, as the default answer. */
export const defaultPage = (url: string): FakeReply => ({
  kind: 'page',
  title: 'Fake page',
  content: `# Fake page\n\nThis is the content of ${url}.`,
})

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeReader(): Promise<FakeReader> {
  const received: FakeReaderRequest[] = []
  const replies = new Map<string, FakeReply>()
  const fake: Omit<FakeReader, 'baseUrl' | 'close'> = { received, replies, fallback: defaultPage }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {}
      const url =
        body !== null &&
        typeof body === 'object' &&
        typeof (body as { url?: unknown }).url === 'string'
          ? (body as { url: string }).url
          : undefined
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        url,
      })
      const reply = (url !== undefined ? replies.get(url) : undefined) ?? fake.fallback(url ?? '')
      const send = () => {
        if (res.destroyed) return
        writeReply(res, reply, url ?? '')
      }
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref()
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}

function writeReply(res: http.ServerResponse, reply: FakeReply, url: string): void {
  switch (reply.kind) {
    case 'page': {
      const data: Record<string, unknown> = {
        title: reply.title === undefined ? 'Fake page' : reply.title,
        description: '',
        url: reply.url === undefined ? url : reply.url,
        content: reply.content,
        usage: { tokens: Math.ceil(reply.content.length / 4) },
      }
      if (reply.warning !== undefined) data.warning = reply.warning
      json(res, 200, { code: 200, status: 20000, data })
      return
    }
    case 'error':
      json(
        res,
        reply.status,
        {
          data: null,
          code: reply.status,
          name: reply.name ?? 'FakeError',
          status: reply.status * 100 + 1,
          message: reply.message ?? `fake error ${reply.status}`,
          readableMessage: `${reply.name ?? 'FakeError'}: ${reply.message ?? `fake error ${reply.status}`}`,
        },
        reply.headers,
      )
      return
    case 'raw':
      res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'text/plain' })
      res.end(reply.body)
      return
    case 'drip': {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
      res.flushHeaders()
      res.write(reply.prefix)
      const timer = setInterval(() => {
        if (!res.destroyed) res.write(reply.drip ?? 'a')
      }, reply.intervalMs)
      timer.unref()
      res.on('close', () => clearInterval(timer))
    }
  }
}

function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
  res.end(JSON.stringify(body))
}
