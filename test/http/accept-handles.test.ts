import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import type { Server } from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type AcceptHandles, addAcceptHandles } from '../../src/http/accept-handles.js'
import { startHttpServer } from '../../src/http/server.js'

// The server main.ts starts, over real sockets: ACCEPT_HANDLES handles accept on one listening
// socket, each wake-up of the event loop accepting one connection per handle, every connection
// served by the one app; closing them leaves no descriptor of the socket open. No timing is
// asserted: the connections are queued in the kernel while the event loop is held, so the
// first wake-up finds them all waiting.

const started: { server: Server; handles: AcceptHandles | undefined }[] = []

afterEach(async () => {
  for (const { server, handles } of started.splice(0)) {
    await handles?.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

async function serve(
  count: number,
  fetch = (request: Request): Response | Promise<Response> =>
    Response.json({ path: new URL(request.url).pathname }),
) {
  const server = startHttpServer({
    fetch,
    port: 0,
    hostname: '127.0.0.1',
    limits: { headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, keepAliveTimeoutMs: 5_000 },
  }) as Server
  const entry: (typeof started)[number] = { server, handles: undefined }
  started.push(entry)
  await new Promise((resolve) => server.once('listening', resolve))
  entry.handles = await addAcceptHandles(server, count)
  // Which handle accepted each connection: the server's own, or an extra one. Node's HTTP
  // server sets `socket.server` to itself for every connection it is given; `_server` stays the
  // net.Server whose handle accepted it (Node's own bookkeeping of its connection count).
  const acceptedBy = new Set<unknown>()
  server.on('connection', (socket: net.Socket & { _server?: unknown }) =>
    acceptedBy.add(socket._server),
  )
  return {
    server,
    handles: entry.handles,
    acceptedBy,
    port: (server.address() as AddressInfo).port,
  }
}

/** Descriptors of this process open on the socket listening on `port` (from /proc). */
function listeningDescriptors(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  const inodes = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A')
    .map((f) => f[9])
  if (inodes.length === 0) return 0
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return inodes.some((inode) => readlinkSync(`/proc/self/fd/${fd}`) === `socket:[${inode}]`)
    } catch {
      return false // closed since it was listed
    }
  }).length
}

/**
 * Opens `n` connections while the event loop is held (the kernel completes them and queues
 * them for accept), then sends one request on each: every answer's status and body.
 */
async function burst(port: number, n: number): Promise<{ status: number; body: string }[]> {
  const sockets = Array.from({ length: n }, () => net.connect(port, '127.0.0.1'))
  // net.connect issues its connect() on the next tick: hold the loop after that, not before.
  await new Promise((resolve) => setImmediate(resolve))
  const until = Date.now() + 200
  while (Date.now() < until) {}
  return Promise.all(
    sockets.map(
      (socket, i) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          let text = ''
          socket.on('data', (chunk) => {
            text += chunk.toString('utf8')
          })
          socket.on('error', reject)
          socket.on('close', () => {
            const [head = '', body = ''] = text.split('\r\n\r\n')
            resolve({ status: Number(head.split(' ')[1]), body })
          })
          socket.write(`GET /n/${i} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
        }),
    ),
  )
}

describe('accepting handles (ACCEPT_HANDLES)', () => {
  it('puts K handles on the one listening socket, all accepting a burst for the one app', async () => {
    const { handles, acceptedBy, port } = await serve(4)
    expect(handles.count).toBe(4)
    expect(listeningDescriptors(port)).toBe(4)
    const answers = await burst(port, 32)
    expect(answers.map((a) => a.status)).toEqual(Array(32).fill(200))
    expect(answers.map((a) => JSON.parse(a.body))).toEqual(
      Array.from({ length: 32 }, (_, i) => ({ path: `/n/${i}` })),
    )
    // The first wake-up after the hold found 32 waiting: each of the 4 handles accepted.
    expect(acceptedBy.size).toBe(4)
  })

  it('with one handle, the server accepts alone (what Node does by default)', async () => {
    const { handles, acceptedBy, port, server } = await serve(1)
    expect(handles.count).toBe(1)
    expect(listeningDescriptors(port)).toBe(1)
    const answers = await burst(port, 8)
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200))
    expect([...acceptedBy]).toEqual([server])
  })

  it('closing the handles and the server leaves no descriptor of the socket and refuses', async () => {
    const { server, handles, port } = await serve(4)
    expect(listeningDescriptors(port)).toBe(4)
    await handles.close()
    expect(listeningDescriptors(port)).toBe(1)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(listeningDescriptors(port)).toBe(0)
    const refused = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve('connected'))
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    })
    expect(refused).toBe('ECONNREFUSED')
  })

  it('closing waits for the requests in flight on connections the extra handles accepted', async () => {
    let arrived = 0
    let allArrived = () => {}
    const arrival = new Promise<void>((resolve) => {
      allArrived = resolve
    })
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const { server, handles, acceptedBy, port } = await serve(4, async () => {
      if (++arrived === 16) allArrived()
      await gate
      return new Response('done')
    })
    const answers = burst(port, 16)
    await arrival
    expect(acceptedBy.size).toBe(4)
    // The extra handles' connections count on their own: the server's close alone would also
    // wait for its own handle's connections and hide a close() that does not wait.
    let handlesClosed = false
    const closingHandles = handles.close().then(() => {
      handlesClosed = true
    })
    const closingServer = new Promise<void>((resolve) => server.close(() => resolve()))
    // Every handle stopped accepting at once; the 16 requests are still being answered.
    expect(listeningDescriptors(port)).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(handlesClosed).toBe(false)
    release()
    expect((await answers).map((a) => [a.status, a.body])).toEqual(Array(16).fill([200, 'done']))
    await Promise.all([closingHandles, closingServer])
    expect(handlesClosed).toBe(true)
  })

  it('a server closed while its duplicates are on their way ends with no handle accepting', async () => {
    const server = startHttpServer({
      fetch: () => new Response('x'),
      port: 0,
      hostname: '127.0.0.1',
      limits: { headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, keepAliveTimeoutMs: 5_000 },
    }) as Server
    await new Promise((resolve) => server.once('listening', resolve))
    const port = (server.address() as AddressInfo).port
    const adding = addAcceptHandles(server, 8)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const handles = await adding
    expect(handles.count).toBe(1)
    expect(listeningDescriptors(port)).toBe(0)
  })
})
