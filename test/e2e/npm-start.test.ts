import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/client/src/cli/cli.js'
import { EXIT } from '../../packages/client/src/cli/cli-output.js'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt } from '../../scripts/build.mjs'
import { startAnvil } from '../../src/adapters/devnet/anvil.js'
import { freePort } from '../support/net.js'
import { contractFetch } from '../support/openapi-contract.js'

const ROOT = new URL('../..', import.meta.url).pathname

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits for a JSON log line matching `predicate`, bounded, failing fast if the process exits. */
function waitForLog(
  child: ChildProcess,
  lines: Record<string, unknown>[],
  predicate: (line: Record<string, unknown>) => boolean,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const check = () => lines.find(predicate)
    const timer = setInterval(() => {
      const found = check()
      if (found) {
        clearInterval(timer)
        resolve(found)
      }
    }, 25)
    setTimeout(() => {
      clearInterval(timer)
      reject(
        new Error(
          `timed out waiting for log line; saw:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`,
        ),
      )
    }, timeoutMs)
    child.once('exit', (code, signal) => {
      clearInterval(timer)
      reject(
        new Error(
          `process exited early (${code ?? signal}); saw:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`,
        ),
      )
    })
  })
}

interface Service {
  child: ChildProcess
  lines: Record<string, unknown>[]
  stderr: () => string
  exited: Promise<number | null>
}

/** Spawns `npm start` in its own process group with only a fresh shell's environment plus `extra`. */
function spawnService(extra: Record<string, string>): Service {
  // No instance record in the checkout (the user's CLI must never find a test's guard).
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    PRE_SEND_GUARD_INSTANCES: '',
    ...extra,
  }
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  let buffer = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    let newline = buffer.indexOf('\n')
    while (newline >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      try {
        lines.push(JSON.parse(line))
      } catch {
        lines.push({ raw: line })
      }
      newline = buffer.indexOf('\n')
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  return { child, lines, stderr: () => stderr, exited }
}

describe('npm start, as a new user runs it', () => {
  // `npm start` compiles src/ first when dist/ is missing or stale (a fresh worktree, an edited
  // source); do it here, outside the tests' own time bounds. Afterwards it is a no-op.
  beforeAll(() => ensureBuilt(), 180_000)
  const dataDir = mkdtempSync(join(tmpdir(), 'psg-start-'))
  const instancesDir = join(dataDir, 'instances')
  let child: ChildProcess | undefined
  afterAll(() => {
    if (child?.pid && alive(child.pid)) process.kill(-child.pid, 'SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('comes up on the devnet with no configuration, answers a preflight, and stops cleanly', async () => {
    const port = await freePort()
    // A fresh shell plus a free port and a scratch data dir, so parallel runs don't collide.
    const service = spawnService({
      PORT: String(port),
      DATA_DIR: dataDir,
      PRE_SEND_GUARD_INSTANCES: instancesDir,
    })
    child = service.child
    const { lines } = service
    const devnetLine = await waitForLog(
      child,
      lines,
      (l) => l.environment === 'devnet' && typeof l.rpcUrl === 'string',
      45_000,
    )
    expect(String(devnetLine.msg)).toMatch(/DEVNET/)
    expect(devnetLine.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(devnetLine.chainId).toBe('0x2105')
    const anvilPid = Number(devnetLine.anvilPid)
    expect(alive(anvilPid)).toBe(true)
    await waitForLog(
      child,
      lines,
      (l) => typeof l.msg === 'string' && l.msg.includes('listening'),
      15_000,
    )

    const base = `http://127.0.0.1:${port}`
    const health = await contractFetch(`${base}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ status: 'ok', environment: 'devnet' })

    const res = await contractFetch(`${base}/payanagent/v1/base-transaction-preflight`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        data: '0x',
        value: '0x1',
      }),
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { verdict: string; environment: string }
    expect(body).toMatchObject({ verdict: 'sign', environment: 'devnet' })

    // `PORT=x npm start`, then the CLI in another shell (no PORT, no --url) finds it through
    // the instance records (here in a scratch directory, never the checkout's own).
    const out: string[] = []
    const err: string[] = []
    const found = await runCli(['discover', '--json'], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: { PRE_SEND_GUARD_INSTANCES: instancesDir },
    })
    expect(err.join('')).toContain(`guard: ${base} (the newest running`)
    expect(found, err.join('')).toBe(EXIT.ok)
    expect(JSON.parse(out.join('')).environment).toBe('devnet')

    // Ctrl-C in a terminal signals the whole foreground process group.
    if (child.pid) process.kill(-child.pid, 'SIGINT')
    await service.exited
    // npm itself dies of the SIGINT; what matters is that the service shut down on purpose.
    expect(lines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGINT')).toBe(true)
    expect(
      lines.filter((l) => Number(l.level) >= 50),
      service.stderr(),
    ).toEqual([])
    const deadline = Date.now() + 5000
    while (alive(anvilPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(alive(anvilPid)).toBe(false)
  }, 90_000)

  it('stops with a clear message when its anvil crashes', async () => {
    const port = await freePort()
    const service = spawnService({
      PORT: String(port),
      DATA_DIR: dataDir,
      PRE_SEND_GUARD_INSTANCES: instancesDir,
    })
    child = service.child
    const devnetLine = await waitForLog(
      child,
      service.lines,
      (l) => typeof l.anvilPid === 'number',
      45_000,
    )
    await waitForLog(
      child,
      service.lines,
      (l) => typeof l.msg === 'string' && l.msg.includes('listening'),
      // Slack for a loaded shared machine (seen at 15 s under a load average of 11).
      40_000,
    )
    process.kill(Number(devnetLine.anvilPid), 'SIGKILL')
    const code = await service.exited
    expect(code).toBe(1)
    const fatal = service.lines.find((l) => l.level === 60)
    expect(String(fatal?.msg)).toMatch(/devnet \(anvil\) exited unexpectedly/)
  }, 90_000)

  it('refuses to start when BASE_RPC_URL is not Base mainnet', async () => {
    const other = await startAnvil({ chainId: 1 })
    try {
      const service = spawnService({
        PORT: String(await freePort()),
        DATA_DIR: dataDir,
        BASE_RPC_URL: other.rpcUrl,
        // Complete mainnet settings: without them start-up refuses before the chain.
        PUBLIC_BASE_URL: 'https://guard.example',
        PAY_TO_ADDRESS: privateKeyToAddress(generatePrivateKey()),
        FACILITATOR: 'builtin',
        SETTLEMENT_PRIVATE_KEY: generatePrivateKey(),
        RECEIPT_PRIVATE_KEY: generatePrivateKey(),
      })
      child = service.child
      const code = await service.exited
      expect(code).toBe(1)
      const fatal = service.lines.find((l) => l.level === 60)
      expect(String(fatal?.msg)).toMatch(/not Base mainnet/)
      expect(fatal).toMatchObject({ chainId: '0x1', expected: '0x2105' })
      // No devnet was started for it.
      expect(service.lines.some((l) => l.environment === 'devnet')).toBe(false)
    } finally {
      await other.stop()
    }
  }, 60_000)

  it('refuses to start on a bad configuration and names the variable', async () => {
    const service = spawnService({ PORT: 'eighty', DATA_DIR: dataDir })
    child = service.child
    const code = await service.exited
    expect(code).toBe(2)
    expect(service.stderr()).toMatch(/PORT: /)
  }, 30_000)

  it('says so plainly and stops its anvil when the port is taken', async () => {
    const busy = net.createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    const port = (busy.address() as net.AddressInfo).port
    try {
      const service = spawnService({
        PORT: String(port),
        DATA_DIR: dataDir,
        PRE_SEND_GUARD_INSTANCES: instancesDir,
      })
      child = service.child
      expect(await service.exited).toBe(2)
      const fatal = service.lines.find((l) => l.level === 60)
      expect(String(fatal?.msg)).toMatch(/already in use/)
      const devnetLine = service.lines.find((l) => typeof l.anvilPid === 'number')
      expect(devnetLine).toBeDefined()
      expect(alive(Number(devnetLine?.anvilPid))).toBe(false)
    } finally {
      busy.close()
    }
  }, 60_000)
})
