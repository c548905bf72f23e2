import http from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { type Address, encodeFunctionData, type Hex, maxUint256, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { deploy, testAccount } from '../support/contracts.js'
import { postJson, preflightApp } from '../support/preflight-app.js'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js'

const PATH = '/payanagent/v1/base-transaction-preflight'

let devnet: Devnet
let proxy: TcpProxy
let app: ReturnType<typeof preflightApp>
let reverter: { address: Address; abi: readonly unknown[] }
let token: { address: Address; abi: readonly unknown[] }
const sender = testAccount(5).address
const recipient = testAccount(6).address

beforeAll(async () => {
  devnet = await startDevnet()
  // The app talks to anvil through a proxy the suite can take down and bring back.
  proxy = await startTcpProxy(Number(new URL(devnet.rpcUrl).port))
  app = preflightApp(proxy.url, { timeoutMs: 2000 })
  reverter = await deploy(devnet.rpcUrl, 'Reverter')
  token = await deploy(devnet.rpcUrl, 'TestERC20', ['Test Token', 'TT'])
}, 60_000)

afterAll(async () => {
  await proxy?.close()
  await devnet?.stop()
})

const calldata = (
  target: { abi: readonly unknown[] },
  functionName: string,
  args: unknown[] = [],
) => encodeFunctionData({ abi: target.abi as never, functionName, args } as never) as Hex

async function preflight(body: unknown) {
  const res = await postJson(app, PATH, body)
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, any>,
  }
}

describe('read-only preflight on the devnet', () => {
  it('signs a plain ETH transfer with gas 21000 and non-zero fees', async () => {
    const { status, body } = await preflight({
      from: sender,
      to: recipient,
      data: '0x',
      value: `0x${parseEther('1').toString(16)}`,
      chainId: '0x2105',
    })
    expect(status).toBe(200)
    expect(body.verdict).toBe('sign')
    expect(body.environment).toBe('devnet')
    expect(body.chainId).toBe('0x2105')
    expect(body.call).toEqual({ success: true, returnData: '0x' })
    expect(body.gas).toEqual({ success: true, estimate: '21000' })
    expect(BigInt(body.fees.baseFeePerGas)).toBeGreaterThan(0n)
    expect(BigInt(body.fees.l2ExecutionCost)).toBe(
      21000n * (BigInt(body.fees.baseFeePerGas) + BigInt(body.fees.maxPriorityFeePerGas)),
    )
    expect(BigInt(body.fees.l1DataFee)).toBeGreaterThan(0n)
    expect(BigInt(body.fees.totalCost)).toBe(
      BigInt(body.fees.l2ExecutionCost) + BigInt(body.fees.l1DataFee),
    )
    expect(BigInt(body.fees.totalCostPlusValue)).toBe(
      BigInt(body.fees.totalCostMax) + parseEther('1'),
    )
    expect(body.block.hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(body.findings.filter((f: { severity: string }) => f.severity !== 'info')).toEqual([])
  })

  it('blocks a call that reverts with Error(string) and decodes the reason', async () => {
    const { status, body } = await preflight({
      from: sender,
      to: reverter.address,
      data: calldata(reverter, 'failRequire'),
    })
    expect(status).toBe(200)
    expect(body.verdict).toBe('block')
    expect(body.call.success).toBe(false)
    expect(body.call.revert.selector).toBe('0x08c379a0')
    expect(body.call.revert.decoded).toMatchObject({
      kind: 'error',
      reason: 'Reverter: require failed',
    })
    expect(body.gas.success).toBe(false)
    expect(body.findings.some((f: { severity: string }) => f.severity === 'critical')).toBe(true)
  })

  it('blocks a call that reverts with an OpenZeppelin custom error and names it with args', async () => {
    const { status, body } = await preflight({
      from: sender,
      to: token.address,
      data: calldata(token, 'transfer', [recipient, 5n]),
    })
    expect(status).toBe(200)
    expect(body.verdict).toBe('block')
    expect(body.call.revert.decoded).toMatchObject({
      kind: 'custom',
      name: 'ERC20InsufficientBalance',
      args: { sender, balance: '0', needed: '5' },
    })
  })

  it('blocks a call that panics and gives the panic meaning', async () => {
    const { body } = await preflight({
      from: sender,
      to: reverter.address,
      data: calldata(reverter, 'panicDivideByZero', [0n]),
    })
    expect(body.verdict).toBe('block')
    expect(body.call.revert.decoded).toMatchObject({ kind: 'panic', code: 0x12 })
    expect(body.call.revert.decoded.meaning).toMatch(/division/i)
  })

  it('reviews calldata sent to an address with no code', async () => {
    const { status, body } = await preflight({
      from: sender,
      to: privateKeyToAddress(generatePrivateKey()),
      data: '0xdeadbeef',
    })
    expect(status).toBe(200)
    expect(body.verdict).toBe('review')
    expect(body.call.success).toBe(true)
    expect(body.findings.some((f: { severity: string }) => f.severity === 'warning')).toBe(true)
  })

  it('blocks when the value exceeds the sender balance', async () => {
    const poor = privateKeyToAddress(generatePrivateKey())
    const { status, body } = await preflight({
      from: poor,
      to: recipient,
      data: '0x',
      value: '0x1',
    })
    expect(status).toBe(200)
    expect(body.verdict).toBe('block')
    expect(JSON.stringify(body.findings)).toContain(poor)
  })

  it('blocks a value beyond any balance (max uint256)', async () => {
    const { status, body } = await preflight({
      from: sender,
      to: recipient,
      data: '0x',
      value: `0x${maxUint256.toString(16)}`,
    })
    expect(status).toBe(200)
    expect(body.verdict).toBe('block')
  })

  it('gives a byte-identical verdict and findings for the same input at the same block', async () => {
    const request = {
      from: sender,
      to: reverter.address,
      data: calldata(reverter, 'failCustom', [7n]),
    }
    const first = await postJson(app, PATH, request)
    const second = await postJson(app, PATH, request)
    const [a, b] = [await first.text(), await second.text()]
    expect(JSON.parse(a).block.number).toBe(JSON.parse(b).block.number)
    expect(b).toBe(a)
  })
})

describe('invalid input is a 422 with the documented shape', () => {
  const valid = { from: sender, to: recipient, data: '0x' }
  const cases: [string, unknown][] = [
    ['from missing', { to: recipient, data: '0x' }],
    ['to missing', { from: sender, data: '0x' }],
    ['data missing', { from: sender, to: recipient }],
    ['from not an address', { ...valid, from: '0x1234' }],
    ['to not hex', { ...valid, to: `0x${'zz'.repeat(20)}` }],
    ['data odd length', { ...valid, data: '0xabc' }],
    ['data without 0x', { ...valid, data: 'abcd' }],
    ['value not hex', { ...valid, value: '100' }],
    ['value empty hex', { ...valid, value: '0x' }],
    ['value over 256 bits', { ...valid, value: `0x1${'0'.repeat(64)}` }],
    ['extra property', { ...valid, gas: '0x5208' }],
    ['chainId 0x1', { ...valid, chainId: '0x1' }],
    ['chainId as number', { ...valid, chainId: 8453 }],
    ['from as number', { ...valid, from: 1 }],
  ]
  for (const [name, body] of cases) {
    it(name, async () => {
      const res = await postJson(app, PATH, body)
      expect(res.status).toBe(422)
      const json = (await res.json()) as Record<string, any>
      expect(json.error).toBe('invalid_request')
      expect(typeof json.message).toBe('string')
      expect(json.issues.length).toBeGreaterThan(0)
      for (const issue of json.issues) {
        expect(Object.keys(issue).sort()).toEqual(['message', 'path'])
      }
    })
  }

  it('names the offending field', async () => {
    const res = await postJson(app, PATH, { ...valid, chainId: '0x1' })
    const json = (await res.json()) as { issues: { path: string; message: string }[] }
    expect(json.issues).toEqual([{ path: 'chainId', message: expect.stringContaining('0x2105') }])
  })

  it('non-JSON', async () => {
    const res = await postJson(app, PATH, '{"from": ')
    expect(res.status).toBe(422)
    expect(await res.json()).toMatchObject({ error: 'invalid_json', issues: [] })
  })

  it('an array', async () => {
    const res = await postJson(app, PATH, [valid])
    expect(res.status).toBe(422)
    expect(await res.json()).toMatchObject({ error: 'invalid_request' })
  })

  it('JSON null and a string', async () => {
    for (const body of ['null', '"hello"', '42']) {
      const res = await postJson(app, PATH, body)
      expect(res.status).toBe(422)
    }
  })

  it('an oversized body', async () => {
    const res = await postJson(app, PATH, { ...valid, data: `0x${'ab'.repeat(40_000)}` })
    expect(res.status).toBe(422)
    expect(await res.json()).toMatchObject({ error: 'body_too_large' })
  })

  it('accepts any spelling of a JSON content type', async () => {
    for (const type of [
      'application/json ; charset=utf-8',
      'Application/JSON',
      'application/vnd.api+json',
    ]) {
      const res = await postJson(app, PATH, JSON.stringify(valid), { 'content-type': type })
      expect(res.status, type).toBe(200)
    }
  })

  it('a non-JSON content type', async () => {
    const res = await postJson(app, PATH, JSON.stringify(valid), { 'content-type': 'text/plain' })
    expect(res.status).toBe(422)
    expect(await res.json()).toMatchObject({ error: 'unsupported_content_type' })
  })

  it('never answers 5xx to random JSON bodies', async () => {
    const hexString = (min: number, max: number) =>
      fc.stringMatching(new RegExp(`^0x[0-9a-fA-F]{${min},${max}}$`))
    const body = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.record(
        {
          from: fc.oneof(hexString(40, 40), fc.string(), fc.jsonValue()),
          to: fc.oneof(hexString(40, 40), fc.string()),
          data: fc.oneof(hexString(0, 16), fc.string()),
          value: fc.oneof(hexString(1, 70), fc.string()),
          chainId: fc.oneof(fc.constant('0x2105'), fc.string()),
        },
        { requiredKeys: [] },
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await postJson(app, PATH, JSON.stringify(b))
        expect(res.status).toBeLessThan(500)
        expect([200, 422]).toContain(res.status)
      }),
      { numRuns: 150 },
    )
  }, 60_000)
})

describe('RPC trouble is a 503, never a 500 or a hang', () => {
  const request = { from: sender, to: recipient, data: '0x' }

  it('RPC stopped mid-suite -> 503 with Retry-After; back -> 200 without a restart', async () => {
    await proxy.down()
    const down = await postJson(app, PATH, request)
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await down.json()).toMatchObject({ error: 'rpc_unavailable' })
    await proxy.up()
    const back = await postJson(app, PATH, request)
    expect(back.status).toBe(200)
  })

  it('an RPC answering garbage -> 503', async () => {
    for (const reply of [
      'not json at all',
      '{"jsonrpc":"2.0","id":1,"result":{"number":"zz"}}',
      '[]',
    ]) {
      const server = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(reply)
      })
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
      const port = (server.address() as AddressInfo).port
      try {
        const res = await postJson(preflightApp(`http://127.0.0.1:${port}`), PATH, request)
        expect(res.status).toBe(503)
        expect(await res.json()).toMatchObject({ error: 'rpc_unavailable' })
      } finally {
        server.close()
      }
    }
  })

  it('an RPC that never answers -> 503 after the configured timeout', async () => {
    const server = http.createServer(() => {
      // Never answers.
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    try {
      const started = Date.now()
      const res = await postJson(
        preflightApp(`http://127.0.0.1:${port}`, { timeoutMs: 300 }),
        PATH,
        request,
      )
      expect(res.status).toBe(503)
      expect(Date.now() - started).toBeLessThan(5000)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it('an RPC answering HTTP 500 -> 503', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(500)
      res.end('upstream exploded')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    try {
      const res = await postJson(preflightApp(`http://127.0.0.1:${port}`), PATH, request)
      expect(res.status).toBe(503)
    } finally {
      server.close()
    }
  })
})
