import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type AnvilExit,
  type AnvilInstance,
  AnvilStartError,
  startAnvil,
} from '../../src/adapters/devnet/anvil.js'

const started: AnvilInstance[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((a) => a.stop()))
})

async function start(opts: Parameters<typeof startAnvil>[0] = {}) {
  const anvil = await startAnvil(opts)
  started.push(anvil)
  return anvil
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function occupyPort(): Promise<{ server: Server; port: number }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { server, port: address.port }
}

describe('startAnvil', () => {
  it('starts on a free loopback port with the requested chain id', async () => {
    const anvil = await start({ chainId: 31337 })
    const response = await fetch(anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    expect(await response.json()).toMatchObject({ result: '0x7a69' })
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`)
    expect(alive(anvil.pid)).toBe(true)
  })

  it('reports a crash through onExit with expected=false', async () => {
    const anvil = await start()
    const exit = new Promise<AnvilExit>((resolve) => anvil.onExit(resolve))
    process.kill(anvil.pid, 'SIGKILL')
    expect(await exit).toMatchObject({ expected: false, signal: 'SIGKILL', code: null })
    // A listener added after the exit still hears about it.
    await expect(new Promise((resolve) => anvil.onExit(resolve))).resolves.toMatchObject({
      expected: false,
    })
  })

  it('stop() ends the process and reports expected=true', async () => {
    const anvil = await start()
    const exit = new Promise<AnvilExit>((resolve) => anvil.onExit(resolve))
    await anvil.stop()
    expect((await exit).expected).toBe(true)
    expect(alive(anvil.pid)).toBe(false)
  })

  it('fails fast with anvil output when the requested port is taken', async () => {
    const { server, port } = await occupyPort()
    try {
      const startedAt = Date.now()
      const error = await startAnvil({ port }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(AnvilStartError)
      expect((error as AnvilStartError).output).toMatch(/address already in use/i)
      expect((error as AnvilStartError).message).toMatch(/exited before it was ready/)
      expect(Date.now() - startedAt).toBeLessThan(5_000)
    } finally {
      server.close()
    }
  })

  it('fails with a clear error when the binary cannot be spawned', async () => {
    await expect(startAnvil({ binaryPath: '/nonexistent/anvil' })).rejects.toThrow(
      /cannot spawn anvil/,
    )
  })

  it('gives up at the deadline when the process never answers, and kills it', async () => {
    // A stand-in "anvil" that prints something, then just sleeps.
    const dir = mkdtempSync(join(tmpdir(), 'fake-anvil-'))
    const fake = join(dir, 'anvil')
    writeFileSync(fake, '#!/bin/sh\necho "fake anvil: not listening" >&2\nexec sleep 30\n')
    chmodSync(fake, 0o755)
    const error = await startAnvil({ binaryPath: fake, readyTimeoutMs: 300 }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(AnvilStartError)
    expect((error as AnvilStartError).message).toMatch(/did not answer .* within 300 ms/)
    expect((error as AnvilStartError).output).toContain('fake anvil: not listening')
  })

  it('runs several instances side by side', async () => {
    const [a, b] = await Promise.all([start(), start()])
    expect(a?.port).not.toBe(b?.port)
    expect(a?.pid).not.toBe(b?.pid)
  })
})
