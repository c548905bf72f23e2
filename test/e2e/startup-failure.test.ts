import net from 'node:net'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type GuardProcess, spawnGuard } from '../support/guard-process.js'
import { freePort } from '../support/net.js'

/**
 * A start-up failure an operator meets (here: the Base RPC does not answer yet, so the instance
 * starts its "starting" server, and the port is taken) reads as one line with a hint; the stack
 * is printed only at LOG_LEVEL=debug. Mainnet mode, so no anvil is started.
 */
describe('a start-up failure says why in one line, with a hint', () => {
  let busy: net.Server
  let port: number
  let guard: GuardProcess | undefined

  beforeAll(async () => {
    busy = net.createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    port = (busy.address() as net.AddressInfo).port
  })
  afterAll(async () => {
    await guard?.stop()
    busy.close()
  })

  const start = async (logLevel: string) => {
    guard = spawnGuard({
      PORT: String(port),
      LOG_LEVEL: logLevel,
      // Nothing listens there: the RPC is waited for, on the (taken) port.
      BASE_RPC_URL: `http://127.0.0.1:${await freePort()}`,
      // Complete mainnet settings: without them start-up refuses before the RPC.
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      PAY_TO_ADDRESS: privateKeyToAddress(generatePrivateKey()),
      FACILITATOR: 'builtin',
      SETTLEMENT_PRIVATE_KEY: generatePrivateKey(),
      RECEIPT_PRIVATE_KEY: generatePrivateKey(),
    })
    const code = await guard.exited
    return { code, stdout: guard.stdout(), stderr: guard.stderr(), lines: guard.lines() }
  }

  it('at the default level: one fatal line naming the port, a hint, no stack', async () => {
    const { code, stdout, stderr, lines } = await start('info')
    expect(code).toBe(2)
    const fatal = lines.filter((l) => l.level === 60)
    expect(fatal).toHaveLength(1)
    expect(fatal[0]?.msg).toBe(
      `port ${port} on 127.0.0.1 is already in use: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
    )
    expect(String(fatal[0]?.hint)).toMatch(/set PORT to a free one/)
    expect(fatal[0]).not.toHaveProperty('err')
    // No stack anywhere: not in a field, not on stderr.
    expect(stdout).not.toMatch(/\n\s+at |\\n\s+at /)
    expect(stderr).toBe('')
  }, 30_000)

  it('at LOG_LEVEL=debug: the same line, and the error in full', async () => {
    const { code, lines } = await start('debug')
    expect(code).toBe(2)
    const fatal = lines.filter((l) => l.level === 60)
    expect(fatal).toHaveLength(1)
    expect(String(fatal[0]?.msg)).toMatch(/already in use/)
    // Written one after the other, but the two lines can reach the pipe in either order when
    // its reader is slow (seen under load), so their order is not asserted.
    const full = lines.find((l) => l.level === 20 && l.err !== undefined) as
      | { err: { stack?: string; code?: string } }
      | undefined
    expect(full?.err.code).toBe('EADDRINUSE')
    expect(full?.err.stack).toMatch(/\n\s+at /)
  }, 30_000)
})
