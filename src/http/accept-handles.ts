import { spawn } from 'node:child_process'
import type { Server as HttpServer } from 'node:http'
import { Server as NetServer, type Socket } from 'node:net'

/**
 * Accepting handles on the listening socket when `ACCEPT_HANDLES` is unset. Node 20's libuv
 * (1.46) accepts one connection per event-loop wake-up of a listening handle
 * (libuv/libuv#3696); each handle on the same socket adds one accept per wake-up, so a burst of
 * fresh connections waits for about burst / handles event-loop turns instead of one turn each.
 * 32: at 256 in flight on a loaded machine (turns of 100 ms and more), 8 handles still left the
 * slowest 1 % 2.5 s in the accept queue, 32 emptied it (docs/performance.md, "The accept rate").
 * A handle costs a descriptor, and an `accept4` that finds nothing only while others are pending.
 */
export const DEFAULT_ACCEPT_HANDLES = 32

/** The extra accepting handles of a server; see {@link addAcceptHandles}. */
export interface AcceptHandles {
  /** Handles accepting on the listening socket, the server's own included. */
  readonly count: number
  /**
   * Stops every extra handle accepting at once (the server's own is closed by `server.close()`)
   * and resolves once the connections they accepted have all closed: those belong to the HTTP
   * server, which answers their requests in flight and closes them like its own.
   */
  close(): Promise<void>
}

/**
 * A child that echoes every handle it is sent and closes its copy: the only way Node 20 offers
 * to get a duplicate of a socket's descriptor (no `dup` in its API). It accepts nothing: a raw
 * handle received over IPC is not listened on.
 */
const ECHO_CHILD = `process.on('message', (m, h) => process.send(m, h, () => h.close()))`

/** How long the echo child may take before the server keeps serving on its one handle. */
const ECHO_TIMEOUT_MS = 10_000

/** The raw TCP handle of a listening `net.Server` (what `child.send` passes as `net.Native`). */
type RawHandle = object

/** Closes a raw handle: its descriptor, not the socket (other descriptors keep it open). */
const closeHandle = (handle: RawHandle) => (handle as { close(): void }).close()

/**
 * Adds `count - 1` handles to a listening HTTP server's socket: duplicates of its descriptor,
 * got by a round trip through a short-lived child (sent, echoed back, the child gone), each
 * listened on by a `net.Server` whose connections go to `server` (`emit('connection')`), so
 * they meet the same timeouts, limits, `clientError` handling and connection tracking
 * (`closeIdleConnections`, `closeAllConnections`) as the server's own. Every wake-up of the
 * loop then accepts up to `count` connections. Resolves once they accept; if the child cannot
 * be started or does not answer, rejects and the server goes on with its own handle.
 */
export async function addAcceptHandles(server: HttpServer, count: number): Promise<AcceptHandles> {
  const extras: NetServer[] = []
  const handles =
    count > 1
      ? await duplicateHandle(server, count - 1).catch((error: unknown) => {
          // Closed while the duplicates were on their way (a stop right after start): the
          // handles left to send are closed too, and there is nothing to accept on any more.
          if (!server.listening) return []
          throw error
        })
      : []
  for (const handle of handles) {
    // Closed while the duplicates were on their way: they must not start accepting.
    if (!server.listening) {
      closeHandle(handle)
      continue
    }
    const extra = new NetServer((socket: Socket) => server.emit('connection', socket))
    // A raw TCP handle is a documented form of `listen(handle)`; the socket already listens.
    extra.listen(handle as Parameters<NetServer['listen']>[0])
    extras.push(extra)
  }
  let closed: Promise<void> | undefined
  return {
    count: 1 + extras.length,
    close() {
      // A net.Server's close callback runs once the connections it accepted have closed.
      closed ??= Promise.all(
        extras.map((extra) => new Promise<void>((resolve) => extra.close(() => resolve()))),
      ).then(() => undefined)
      return closed
    },
  }
}

/** `copies` duplicates of `server`'s listening handle, via an echo child. */
function duplicateHandle(server: HttpServer, copies: number): Promise<RawHandle[]> {
  const own = (server as unknown as { _handle?: RawHandle | null })._handle
  if (!own) return Promise.reject(new Error('the server is not listening'))
  return new Promise((resolve, reject) => {
    // No NODE_OPTIONS, no preloads: the child runs one line and must start fast.
    const child = spawn(process.execPath, ['-e', ECHO_CHILD], {
      env: {},
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    })
    const got: RawHandle[] = []
    let settled = false
    const done = (error?: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (child.connected) child.disconnect()
      if (error) {
        child.kill()
        for (const handle of got) closeHandle(handle)
        reject(error)
      } else resolve(got)
    }
    const timer = setTimeout(
      () => done(new Error(`no duplicate handle within ${ECHO_TIMEOUT_MS} ms`)),
      ECHO_TIMEOUT_MS,
    )
    timer.unref()
    // Every handle queued behind a failed one fails too: one 'error' each.
    child.on('error', (error) => done(error))
    child.once('exit', (code) => done(new Error(`the handle-duplicating child exited (${code})`)))
    child.on('message', (_message, handle: RawHandle | undefined) => {
      if (!handle) return
      // One that comes back after a failure is not kept open.
      if (settled) return closeHandle(handle)
      got.push(handle)
      if (got.length === copies) done()
    })
    for (let i = 0; i < copies; i++) child.send('handle', own as Parameters<typeof child.send>[1])
  })
}
