/**
 * The counting JSON-RPC proxy (test/support/counting-rpc.ts) in a process of its own, for
 * bench/paid-waves-child.ts: a remote RPC's latency does not depend on the service's CPU, so
 * the proxy's replies, held `PROXY_HOLD_MS`, must not wait for the service's event loop.
 * Prints one JSON line with the proxy's URL and a control URL: `GET /calls` answers
 * `{calls, waves}` since the last `POST /reset`. Runs until its parent closes stdin.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { startCountingRpc } from '../test/support/counting-rpc.js'

const upstream = process.env.PROXY_UPSTREAM
if (!upstream) throw new Error('PROXY_UPSTREAM is required')
const proxy = await startCountingRpc(upstream, { holdMs: Number(process.env.PROXY_HOLD_MS ?? 0) })
const control = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/reset') {
    proxy.reset()
    res.writeHead(204).end()
    return
  }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ calls: proxy.calls, waves: proxy.waves }))
})
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve))
const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`
console.log(JSON.stringify({ url: proxy.url, controlUrl }))
process.stdin.resume()
process.stdin.on('end', async () => {
  control.close()
  await proxy.close()
  process.exit(0)
})
