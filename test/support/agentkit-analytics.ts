import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** Where `@coinbase/agentkit` posts its usage events (hard-coded in its analytics module). */
const AGENTKIT_ANALYTICS_ORIGIN = 'https://cca-lite.coinbase.com'

/** The loopback stand-in for AgentKit's analytics endpoint, and what it received. */
export interface AgentKitAnalytics {
  /** The event types posted so far (`agent_initialization`, `agent_action_invocation`). */
  events(): string[]
  restore(): Promise<void>
}

/**
 * AgentKit sends a usage event to Coinbase whenever a wallet provider is made or a decorated
 * action runs, without awaiting or catching it: with no internet here the rejected fetch is an
 * unhandled rejection, which fails a test run. The endpoint is out of reach, so its requests
 * (only those: every other fetch passes through untouched) go to a real HTTP server on
 * loopback that answers 200 and records the event types. Installed per file (the agentkit
 * tests are in the isolated project); `restore()` puts `fetch` back.
 */
export async function routeAgentKitAnalytics(): Promise<AgentKitAnalytics> {
  const received: string[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { e: string }
        for (const event of JSON.parse(body.e) as { event_type: string }[]) {
          received.push(event.event_type)
        }
      } catch {
        received.push('unreadable')
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const original = globalThis.fetch
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    if (!url.startsWith(`${AGENTKIT_ANALYTICS_ORIGIN}/`)) return original(input, init)
    const { mode: _mode, ...rest } = init ?? {}
    return original(`${local}${url.slice(AGENTKIT_ANALYTICS_ORIGIN.length)}`, rest)
  }
  return {
    events: () => [...received],
    async restore() {
      globalThis.fetch = original
      await new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
    },
  }
}
