import net from 'node:net'

/**
 * A PostgreSQL server on loopback that asks every client for its password in clear text
 * (wire protocol v3, AuthenticationCleartextPassword), records it, and refuses it as a real
 * server does a wrong one (FATAL 28P01). Lets a test start the service with a wrong
 * DATABASE_URL password, where the PostgreSQL these machines run trusts every local login.
 */
export async function startPasswordRefusingPostgres() {
  const passwords: string[] = []
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    let buffer = Buffer.alloc(0)
    let started = false
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk])
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return
          const length = buffer.readInt32BE(0)
          if (buffer.length < length) return
          const code = buffer.readInt32BE(4)
          buffer = buffer.subarray(length)
          if (code === 80877103) {
            socket.write('N') // SSLRequest: no TLS here.
            continue
          }
          started = true
          socket.write(message('R', int32(3))) // AuthenticationCleartextPassword
          continue
        }
        if (buffer.length < 5) return
        const length = buffer.readInt32BE(1)
        if (buffer.length < 1 + length) return
        const type = String.fromCharCode(buffer[0] ?? 0)
        const body = buffer.subarray(5, 1 + length)
        buffer = buffer.subarray(1 + length)
        if (type === 'p') {
          passwords.push(body.subarray(0, body.indexOf(0)).toString('utf8'))
          socket.end(
            message(
              'E',
              Buffer.concat([
                field('S', 'FATAL'),
                field('V', 'FATAL'),
                field('C', '28P01'),
                field('M', 'password authentication failed for user "postgres"'),
                Buffer.from([0]),
              ]),
            ),
          )
          return
        }
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    /** Every password a client sent. */
    passwords,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

function int32(value: number): Buffer {
  const out = Buffer.alloc(4)
  out.writeInt32BE(value)
  return out
}

function message(type: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(type), int32(body.length + 4), body])
}

function field(code: string, value: string): Buffer {
  return Buffer.concat([Buffer.from(code), Buffer.from(value), Buffer.from([0])])
}
