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
 * headers. Lets a test break one read of the preflight at a time.
 */
export async function startFaultyRpc(upstream: string) {
  let fault: { method: string; fault: RpcFault } | undefined
  const seen: { method: string; params: unknown[] }[] = []
  const sockets = new Set<import('node:net').Socket>()
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const message = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] }
    seen.push({ method: message.method, params: message.params ?? [] })
    if (!fault || message.method !== fault.method) {
      const forwarded = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      res.writeHead(forwarded.status, { 'content-type': 'application/json' })
      res.end(await forwarded.text())
      return
    }
    const f = fault.fault
    res.writeHead(200, { 'content-type': 'application/json' })
    if (f.kind === 'result') {
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: f.result }))
    } else if (f.kind === 'error') {
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: f.code, message: f.message },
        }),
      )
    } else if (f.kind === 'stall') {
      res.write('{"jsonrpc":"2.0",')
    } else {
      const text = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: '0x1' })
      let i = 0
      const timer = setInterval(() => {
        if (i >= text.length || res.destroyed) return clearInterval(timer)
        res.write(text[i++] ?? '')
      }, 100)
    }
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Every request received, in order. */
    seen,
    set(method: string, f: RpcFault) {
      fault = { method, fault: f }
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
