import net from 'node:net'

/**
 * A loopback TCP proxy that can be taken down and brought back on the same port, so a test can
 * make a real RPC "go away" and "come back" without restarting the service under test.
 */
export interface TcpProxy {
  url: string
  port: number
  /** Stops accepting and drops live connections: clients get ECONNREFUSED. */
  down(): Promise<void>
  /**
   * Drops live connections and keeps accepting, but ends every new connection at once
   * without a byte (a load balancer or connection pooler whose server is gone).
   */
  hangUp(): Promise<void>
  /** Accepts again on the same port, and forwards. */
  up(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
  /** Loopback port to listen on (default: any free one, kept across down/up). */
  listenPort = 0,
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>()
  let server: net.Server | undefined
  let port = listenPort
  let hangingUp = false

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        if (hangingUp) {
          // A clean FIN (what the client has sent is read and dropped, so no RST is sent).
          client
            .on('error', () => {})
            .resume()
            .end()
          return
        }
        const upstream = net.connect(targetPort, targetHost)
        sockets.add(client)
        sockets.add(upstream)
        client.pipe(upstream).pipe(client)
        const cleanup = () => {
          client.destroy()
          upstream.destroy()
          sockets.delete(client)
          sockets.delete(upstream)
        }
        client.on('error', cleanup).on('close', cleanup)
        upstream.on('error', cleanup).on('close', cleanup)
      })
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        const address = s.address()
        if (address && typeof address === 'object') port = address.port
        server = s
        resolve()
      })
    })

  const dropLive = () => {
    for (const socket of sockets) socket.destroy()
    sockets.clear()
  }

  const down = () =>
    new Promise<void>((resolve) => {
      dropLive()
      if (!server) return resolve()
      server.close(() => resolve())
      server = undefined
    })

  await listen()
  return {
    get url() {
      return `http://127.0.0.1:${port}`
    },
    get port() {
      return port
    },
    down,
    async hangUp() {
      hangingUp = true
      dropLive()
      if (!server) await listen()
    },
    async up() {
      hangingUp = false
      if (!server) await listen()
    },
    close: down,
  }
}
