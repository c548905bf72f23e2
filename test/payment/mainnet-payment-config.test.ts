import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { MAIN } from '../../scripts/build.mjs'
import { type AnvilInstance, startAnvil } from '../../src/adapters/devnet/anvil.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { ConfigError, loadConfig } from '../../src/config.js'

// "Mainnet" here is a bare anvil answering chain id 8453: the service cannot tell, which is the
// point - on mainnet nothing about payments may default.

const ROOT = new URL('../..', import.meta.url).pathname
let anvil: AnvilInstance
let dataDir: string

beforeAll(async () => {
  anvil = await startAnvil()
  dataDir = mkdtempSync(join(tmpdir(), 'psg-mainnet-'))
})
afterAll(async () => {
  await anvil?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })
}

function run(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

/** A GET with a Host header of the client's choosing (fetch keeps the URL's own). */
function getWithHost(port: number, path: string, host: string, method = 'GET', body?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path,
          method,
          headers: { host, ...(body ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          let text = ''
          res.on('data', (c: Buffer) => {
            text += c.toString()
          })
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
          )
        },
      )
      req.on('error', reject)
      req.end(body)
    },
  )
}

describe('payment configuration on mainnet', () => {
  it('names every missing payment variable', () => {
    expect(() => loadConfig({ BASE_RPC_URL: 'https://mainnet.base.org' })).toThrow(
      /PAY_TO_ADDRESS[\s\S]*FACILITATOR[\s\S]*RECEIPT_PRIVATE_KEY/,
    )
    let error: unknown
    try {
      loadConfig({
        BASE_RPC_URL: 'https://mainnet.base.org',
        PUBLIC_BASE_URL: 'https://guard.example',
        FACILITATOR: 'builtin',
        PAY_TO_ADDRESS: privateKeyToAddress(generatePrivateKey()),
        RECEIPT_PRIVATE_KEY: generatePrivateKey(),
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toEqual([
      'SETTLEMENT_PRIVATE_KEY: required when FACILITATOR=builtin on mainnet',
    ])
  })

  it('refuses to start without them, before reaching the chain, and names them', async () => {
    const service = run({ PORT: String(await freePort()), BASE_RPC_URL: anvil.rpcUrl })
    expect(await service.exited).toBe(2)
    expect(service.stderr()).toMatch(/PAY_TO_ADDRESS: required on mainnet/)
    expect(service.stderr()).toMatch(/FACILITATOR: required on mainnet/)
    expect(service.stderr()).toMatch(/RECEIPT_PRIVATE_KEY: required on mainnet/)
  }, 30_000)

  it('refuses the public anvil keys on mainnet', async () => {
    const service = run({
      PORT: String(await freePort()),
      BASE_RPC_URL: anvil.rpcUrl,
      PUBLIC_BASE_URL: 'https://guard.example',
      FACILITATOR: 'builtin',
      PAY_TO_ADDRESS: privateKeyToAddress(generatePrivateKey()),
      SETTLEMENT_PRIVATE_KEY: DEVNET_ACCOUNTS.facilitator.privateKey,
      RECEIPT_PRIVATE_KEY: generatePrivateKey(),
    })
    expect(await service.exited).toBe(2)
    expect(service.stderr()).toMatch(/SETTLEMENT_PRIVATE_KEY: is a public anvil test account/)
  }, 30_000)

  it('starts with them, logs payTo and the receipt signer, and keeps the ledger in DATA_DIR', async () => {
    const port = await freePort()
    const payTo = privateKeyToAddress(generatePrivateKey())
    const receiptKey = generatePrivateKey()
    const service = run({
      PORT: String(port),
      BASE_RPC_URL: anvil.rpcUrl,
      PUBLIC_BASE_URL: 'https://guard.example',
      FACILITATOR: 'builtin',
      PAY_TO_ADDRESS: payTo.toLowerCase(),
      SETTLEMENT_PRIVATE_KEY: generatePrivateKey(),
      RECEIPT_PRIVATE_KEY: receiptKey,
    })
    try {
      let res: Response | undefined
      // Start-up (PGlite) can take tens of seconds on a loaded machine.
      for (let i = 0; i < 1_000 && !res; i++) {
        res = await fetch(`http://127.0.0.1:${port}/simulate/transaction-preflight`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ from: payTo, to: payTo, data: '0x' }),
        }).catch(() => undefined)
        if (!res) await new Promise((r) => setTimeout(r, 50))
      }
      expect(res?.status).toBe(402)
      const body = (await res?.json()) as { settlement: { railReadiness: Record<string, any> } }
      expect(body.settlement.railReadiness).toMatchObject({
        ready: true,
        payTo,
        facilitator: { kind: 'builtin', supportsExactBase: true },
        receiptSigner: { configured: true, address: privateKeyToAddress(receiptKey) },
      })
      const started = service
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => String(line.msg).startsWith('paid route'))
      expect(started).toMatchObject({ payTo, receiptSigner: privateKeyToAddress(receiptKey) })
      expect(existsSync(join(dataDir, 'ledger'))).toBe(true)

      // A forged Host never reaches an answer (issue 37): discovery, the 402's resource URL and
      // its PAYMENT-REQUIRED header, the pages' links all name PUBLIC_BASE_URL.
      const forged = 'attacker.example'
      const discovery = await getWithHost(port, '/.well-known/x402', forged)
      expect(discovery.status).toBe(200)
      expect(JSON.parse(discovery.body).url).toBe(
        'https://guard.example/simulate/transaction-preflight',
      )
      const unpaid = await getWithHost(
        port,
        '/simulate/transaction-preflight',
        forged,
        'POST',
        JSON.stringify({ from: payTo, to: payTo, data: '0x' }),
      )
      expect(unpaid.status).toBe(402)
      const challenge = JSON.parse(
        Buffer.from(String(unpaid.headers['payment-required']), 'base64').toString('utf8'),
      ) as { resource: { url: string } }
      expect(challenge.resource.url).toBe('https://guard.example/simulate/transaction-preflight')
      const page = await getWithHost(port, '/quickstart', forged)
      for (const text of [discovery.body, unpaid.body, page.body]) {
        expect(text).not.toContain(forged)
      }
      expect(page.body).toContain('https://guard.example/.well-known/x402')
    } finally {
      service.child.kill('SIGTERM')
      expect(await service.exited).toBe(0)
    }
  }, 90_000)
})
