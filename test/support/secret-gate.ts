import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the gate does with one authorised request. */
export type GateMode =
  /** Forward to the upstream (prefix and query stripped). */
  | 'forward'
  /** 500 whose JSON body echoes the full request URL and Authorization header. */
  | 'echo'
  /** 200 with a non-JSON body that echoes the request, as a confused upstream would. */
  | 'garbage'

/** Options of {@link startSecretGate}. */
export interface SecretGateOptions {
  /** Where authorised requests go, e.g. `http://127.0.0.1:8545`. */
  upstream: string
  /** The path prefix the client must use (the key in the path), e.g. `/v2/KEY`. */
  prefix: string
  /** The exact query the client must send (without `?`), or '' for none. */
  query: string
  /** The exact Authorization header the client must send. */
  authorization: string
  /** Per request, after the prefix is stripped: what to do. Default: forward. */
  mode?: (path: string) => GateMode
}

/**
 * A hosted provider's front door on loopback: it accepts only requests that carry the key in
 * the path, the query and the credentials exactly, so a test proves the service really used
 * every secret, and it can answer with errors that echo them back (as real upstreams do).
 */
export async function startSecretGate(options: SecretGateOptions) {
  const stats = { forwarded: 0, echoed: 0, garbage: 0, refused: [] as string[] }
  let mode = options.mode ?? (() => 'forward' as const)
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const raw = req.url ?? '/'
    const [pathname = '/', query = ''] = raw.split(/\?(.*)/s)
    const echo = `request ${req.method} ${raw} authorization=${req.headers.authorization ?? ''}`
    if (
      !pathname.startsWith(options.prefix) ||
      query !== options.query ||
      req.headers.authorization !== options.authorization
    ) {
      stats.refused.push(`${req.method} ${raw} ${req.headers.authorization ?? '(no auth)'}`)
      res.writeHead(401, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: `unauthorised: ${echo}` }))
      return
    }
    const path = pathname.slice(options.prefix.length) || '/'
    const action = mode(path)
    if (action === 'echo') {
      stats.echoed++
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: `upstream failure for ${echo}` }))
      return
    }
    if (action === 'garbage') {
      stats.garbage++
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(`<html>garbage for ${echo}</html>`)
      return
    }
    stats.forwarded++
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'authorization', 'content-length'].includes(name))
        headers.set(name, value)
    }
    try {
      const upstream = await fetch(`${options.upstream}${path}`, {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      })
      const out: Record<string, string> = {}
      upstream.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'content-encoding') out[name] = value
      })
      res.writeHead(upstream.status, out)
      res.end(Buffer.from(await upstream.arrayBuffer()))
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' })
      res.end(`gate cannot reach its upstream: ${String(error)}`)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    stats,
    setMode(next: (path: string) => GateMode) {
      mode = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** `Authorization: Basic` for `user:password`. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
}
