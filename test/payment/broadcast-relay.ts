import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * What the relay does with `eth_sendRawTransaction`: pass it on; forward it and lose the
 * answer (the node has the transaction, the sender hears an error); or refuse it unsent.
 */
export type BroadcastMode = 'pass' | 'lose-answer' | 'refuse'

/**
 * A JSON-RPC relay to `rpcUrl` (single requests) that treats `eth_sendRawTransaction` as
 * `mode` says, and counts the broadcasts that reached the node.
 */
export async function broadcastRelay(rpcUrl: string) {
  let mode: BroadcastMode = 'pass'
  let forwarded = 0
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const request = JSON.parse(body) as { id?: unknown; method?: unknown }
    const broadcast = request.method === 'eth_sendRawTransaction'
    const reply = (text: string) => {
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(text)
    }
    const lost = () =>
      reply(
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.id ?? null,
          error: { code: -32000, message: 'relay: connection reset before the answer' },
        }),
      )
    if (broadcast && mode === 'refuse') return lost()
    const upstream = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    const text = await upstream.text()
    if (broadcast) forwarded++
    if (broadcast && mode === 'lose-answer') return lost()
    reply(text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setMode(next: BroadcastMode) {
      mode = next
    },
    /** Broadcasts the node received through the relay. */
    forwarded: () => forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
