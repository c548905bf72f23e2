import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A JSON-RPC proxy on loopback that holds every reply `latencyMs` (as a remote RPC would)
 * and counts HTTP requests (a JSON-RPC batch is one), calls (`methods`: one per call, batched
 * or not) and sequential waves: a request that arrives while none is in
 * flight starts a new wave, so requests sent together share a wave and a request that waited
 * for an earlier reply starts another (with latency > 0; at 0 ms the count is a lower bound).
 * Forwards over a keep-alive agent so the proxy itself stays cheap. The idea of
 * test/support/counting-rpc.ts, with configurable latency and no test-only faults.
 */
export async function startLatencyRpc(upstream: string, options: { latencyMs: number }) {
  const target = new URL(upstream)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 })
  let latencyMs = options.latencyMs
  let requests = 0
  let waves = 0
  let inFlight = 0
  const methods: string[] = []
  const bodies: Buffer[] = []
  const server = http.createServer((req, res) => {
    if (inFlight === 0) waves++
    inFlight++
    requests++
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      // One method per call: a JSON-RPC batch names several.
      const named = [...body.toString('utf8').matchAll(/"method"\s*:\s*"([A-Za-z0-9_]+)"/g)]
      for (const match of named) methods.push(match[1] ?? 'unknown')
      if (named.length === 0) methods.push('unknown')
      bodies.push(body)
      const forward = http.request(
        {
          agent,
          hostname: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (upstreamRes) => {
          const reply: Buffer[] = []
          upstreamRes.on('data', (chunk: Buffer) => reply.push(chunk))
          upstreamRes.on('end', () => {
            const wait = latencyMs
            const send = () => {
              inFlight--
              res.writeHead(upstreamRes.statusCode ?? 502, { 'content-type': 'application/json' })
              res.end(Buffer.concat(reply))
            }
            if (wait > 0) setTimeout(send, wait)
            else send()
          })
        },
      )
      forward.on('error', () => {
        inFlight--
        res.destroy()
      })
      forward.end(body)
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests
    },
    get waves() {
      return waves
    },
    methods,
    /** Request bodies as received, since the last reset. */
    bodies,
    setLatency(ms: number) {
      latencyMs = ms
    },
    reset() {
      requests = 0
      waves = 0
      methods.length = 0
      bodies.length = 0
    },
    async close() {
      server.closeAllConnections()
      agent.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** A JSON-RPC call as recorded: one of a batch, or a request's only call. */
export type RecordedCall = { jsonrpc?: string; id?: unknown; method: string; params: unknown[] }

/** The calls of recorded request bodies (`bodies` above), whether each travelled alone or in a batch. */
export function callsOf(bodies: readonly Buffer[]): RecordedCall[] {
  return bodies.flatMap((body) => {
    const message = JSON.parse(body.toString('utf8')) as RecordedCall | RecordedCall[]
    return Array.isArray(message) ? message : [message]
  })
}
