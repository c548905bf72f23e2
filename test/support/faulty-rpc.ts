import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the proxy does to requests for the faulted method. */
export type RpcFault =
  | { kind: 'result'; result: unknown }
  | { kind: 'error'; code: number; message: string }
  | { kind: 'stall' }
  | { kind: 'drip' }

/**
 * A real JSON-RPC proxy on loopback in front of a node: every method is forwarded except the
 * one being faulted, which gets a garbage result, an error, or a reply that stalls after the
 * headers. Lets a test break one read of the preflight at a time. JSON-RPC batches are taken
 * apart: each call is forwarded or faulted on its own, and the answers come back as a batch.
 */
export async function startFaultyRpc(
  upstream: string,
  options: {
    /** Loopback port to listen on (default: any free one). */
    port?: number
    /** Source of [0, 1) draws for a fault's `rate` (default Math.random; a soak passes a seeded one). */
    random?: () => number
  } = {},
) {
  const random = options.random ?? Math.random
  let fault: { method: string; fault: RpcFault; rate: number } | undefined
  const seen: { method: string; params: unknown[] }[] = []
  const sockets = new Set<import('node:net').Socket>()
  type Message = { id: unknown; method: string; params?: unknown[] }
  const forward = async (messages: Message[]) => {
    const reply = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(messages),
    })
    return (await reply.json()) as unknown[]
  }
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const parsed = JSON.parse(body) as Message | Message[]
    // A JSON-RPC batch is faulted call by call; a stall or drip holds the whole exchange.
    const batch = Array.isArray(parsed)
    const messages = batch ? parsed : [parsed]
    for (const m of messages) seen.push({ method: m.method, params: m.params ?? [] })
    const faulted = messages.filter(
      (m) =>
        fault !== undefined &&
        (fault.method === '*' || m.method === fault.method) &&
        (fault.rate >= 1 || random() < fault.rate),
    )
    if (faulted.length === 0) {
      const forwarded = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }).catch(() => undefined)
      // The node itself is gone: the caller sees a dropped connection, as from a dead RPC.
      if (!forwarded) return void res.destroy()
      res.writeHead(forwarded.status, { 'content-type': 'application/json' })
      res.end(await forwarded.text())
      return
    }
    const f = (fault as { fault: RpcFault }).fault
    res.writeHead(200, { 'content-type': 'application/json' })
    if (f.kind === 'stall') {
      res.write(batch ? '[{"jsonrpc":"2.0",' : '{"jsonrpc":"2.0",')
      return
    }
    const answerOf = (m: Message): unknown =>
      f.kind === 'result'
        ? { jsonrpc: '2.0', id: m.id, result: f.result }
        : f.kind === 'error'
          ? { jsonrpc: '2.0', id: m.id, error: { code: f.code, message: f.message } }
          : { jsonrpc: '2.0', id: m.id, result: '0x1' }
    const rest = messages.filter((m) => !faulted.includes(m))
    const upstreamAnswers = rest.length > 0 ? await forward(rest).catch(() => undefined) : []
    if (!upstreamAnswers) return void res.destroy()
    const answers = messages.map((m) =>
      faulted.includes(m)
        ? answerOf(m)
        : upstreamAnswers.find((a) => (a as { id?: unknown }).id === m.id),
    )
    const text = JSON.stringify(batch ? answers : answers[0])
    if (f.kind !== 'drip') {
      res.end(text)
      return
    }
    let i = 0
    const timer = setInterval(() => {
      if (i >= text.length || res.destroyed) return clearInterval(timer)
      res.write(text[i++] ?? '')
    }, 100)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', resolve)
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Every request received, in order. */
    seen,
    /**
     * Faults `method` (`'*'`: every method, a blackout) from now on; with `rate` < 1 only that
     * share of its calls (an error rate), drawn from `options.random`.
     */
    set(method: string, f: RpcFault, rate = 1) {
      fault = { method, fault: f, rate }
    },
    clear() {
      fault = undefined
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
