// The floor both bench/service.ts and bench/burst.ts measure against: a bare node:http server
// in a child process that reads and parses the JSON body and answers `answerBytes` of JSON.
import { spawn } from 'node:child_process'

const BARE_SERVER = `
const http = require('node:http')
const size = Number(process.env.ANSWER_BYTES)
const answer = Buffer.from(JSON.stringify({ pad: 'x'.repeat(Math.max(0, size - 10)) }))
http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'))
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length })
    res.end(answer)
  })
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send('up'))`

/** A running bare server: its process, base URL, and how to stop it. */
export interface BareNodeServer {
  pid: number
  base: string
  stop(): void
}

/** Starts the bare server on `port` (127.0.0.1) and resolves once it listens. */
export async function startBareNodeServer(
  answerBytes: number,
  port: number,
): Promise<BareNodeServer> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], {
    env: { PORT: String(port), ANSWER_BYTES: String(answerBytes) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  await new Promise((resolve) => child.once('message', resolve))
  return {
    pid: child.pid as number,
    base: `http://127.0.0.1:${port}`,
    stop: () => child.kill('SIGTERM'),
  }
}
