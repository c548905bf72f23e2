import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'

/**
 * A real JSON-RPC proxy on loopback that counts requests and sequential waves: each reply is
 * held `holdMs`, so requests sent together arrive within that window while a request that
 * depends on an earlier reply arrives after it. A request arriving when nothing is in flight
 * starts a new wave. `missing` methods are answered JSON-RPC -32601 "method not found"; a call
 * with more params than its method's limit (`limitParams`) -32602, as a node that predates a
 * parameter answers (geth before 1.15 on `eth_estimateGas`'s block overrides). A JSON-RPC
 * batch is one exchange whose calls are counted one by one (`methods`, `calls`).
 */
export async function startCountingRpc(upstream: string, options: { holdMs?: number } = {}) {
  const holdMs = options.holdMs ?? 150
  const missing = new Set<string>()
  const paramLimits = new Map<string, { max: number; code: number }>()
  const methods: string[] = []
  const calls: { method: string; wave: number; params: unknown[] }[] = []
  type Message = { id: unknown; method: string; params?: unknown[] }
  let exchanges = 0
  let waves = 0
  let inFlight = 0
  /** While set, every reply also waits for it (see `holdReplies`). */
  let gate: Promise<void> | undefined
  let openGate: () => void = () => {}
  const server = http.createServer(async (req, res) => {
    if (inFlight === 0) waves++
    inFlight++
    try {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const body = Buffer.concat(chunks).toString('utf8')
      const parsed = JSON.parse(body) as Message | Message[]
      // A JSON-RPC batch counts each of its calls; its calls share the exchange's wave.
      const batch = Array.isArray(parsed)
      const messages = batch ? parsed : [parsed]
      exchanges++
      for (const m of messages) {
        methods.push(m.method)
        calls.push({ method: m.method, wave: waves, params: m.params ?? [] })
      }
      const tooMany = (m: Message) =>
        (m.params?.length ?? 0) > (paramLimits.get(m.method)?.max ?? Number.POSITIVE_INFINITY)
      const lacking = messages.filter((m) => missing.has(m.method))
      const refused = messages.filter((m) => !missing.has(m.method) && tooMany(m))
      const rest = messages.filter((m) => !missing.has(m.method) && !tooMany(m))
      let upstreamAnswers: unknown[] = []
      if (rest.length > 0) {
        const forwarded = await fetch(upstream, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(batch ? rest : rest[0]),
        })
        const answer = (await forwarded.json()) as unknown
        upstreamAnswers = Array.isArray(answer) ? answer : [answer]
      }
      const answers = messages.map((m) =>
        lacking.includes(m)
          ? {
              jsonrpc: '2.0',
              id: m.id,
              error: {
                code: -32601,
                message: `the method ${m.method} does not exist/is not available`,
              },
            }
          : refused.includes(m)
            ? {
                jsonrpc: '2.0',
                id: m.id,
                error: {
                  code: paramLimits.get(m.method)?.code,
                  message: `too many arguments, want at most ${paramLimits.get(m.method)?.max}`,
                },
              }
            : upstreamAnswers.find((a) => (a as { id?: unknown }).id === m.id),
      )
      const reply = JSON.stringify(batch ? answers : answers[0])
      await new Promise((r) => setTimeout(r, holdMs))
      await gate
      // A refusal as an HTTP status refuses the whole exchange, as a gateway's does.
      const status = refused.map((m) => paramLimits.get(m.method)?.code ?? 0).find((c) => c > 0)
      res.writeHead(status ?? 200, { 'content-type': 'application/json' })
      res.end(status === undefined ? reply : JSON.stringify({ error: 'invalid request' }))
    } catch {
      // The upstream went away mid-request (a test closing its proxies): drop the connection.
      res.destroy()
    } finally {
      inFlight--
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Methods received, in arrival order, since the last reset. */
    methods,
    /** Each request's method, its params and the wave it arrived in (1-based), in arrival order. */
    calls,
    get waves() {
      return waves
    },
    /** HTTP requests received (a JSON-RPC batch is one), since the last reset. */
    get exchanges() {
      return exchanges
    },
    reset() {
      methods.length = 0
      calls.length = 0
      waves = 0
      exchanges = 0
    },
    /** Answer these methods "method not found" from now on. */
    lack(...names: string[]) {
      for (const n of names) missing.add(n)
    },
    /**
     * Refuse calls of `method` with more than `max` params from now on (JSON-RPC `code`, by
     * default -32602 as geth says it; a gateway may use its catch-all -32000; a positive `code`
     * is an HTTP status for the whole exchange). No `max`: stop.
     */
    limitParams(method: string, max?: number, code = -32602) {
      if (max === undefined) paramLimits.delete(method)
      else paramLimits.set(method, { max, code })
    },
    /**
     * Holds every reply, from now on and those already on their way, until the returned function
     * is called (a preflight then keeps its slot for as long as a test needs).
     */
    holdReplies(): () => void {
      gate = new Promise((resolve) => {
        openGate = resolve
      })
      const open = openGate
      return () => {
        gate = undefined
        open()
      }
    },
    async close() {
      openGate()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** The proxy {@link startCountingRpc} starts. */
export type CountingRpc = Awaited<ReturnType<typeof startCountingRpc>>

/**
 * A devnet with a counting proxy in front of it, for one test file: started before its tests
 * (`beforeAll`), stopped after them. Read `devnet` and `proxy` inside the tests.
 */
export function devnetBehindCountingRpc(options: { holdMs?: number } = {}) {
  const world = {} as { devnet: Devnet; proxy: CountingRpc }
  beforeAll(async () => {
    world.devnet = await startDevnet()
    world.proxy = await startCountingRpc(world.devnet.rpcUrl, options)
  }, 60_000)
  afterAll(async () => {
    await world.proxy?.close()
    await world.devnet?.stop()
  })
  return world
}
