import { encodeAbiParameters, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/client/src/cli/cli.js'
import { EXIT } from '../../packages/client/src/cli/cli-output.js'
import {
  type FakeGuard,
  type FakeGuardOptions,
  type RpcCall,
  RpcError,
  SETTLEMENT_TX,
  startFakeGuard,
  startFakeRpc,
  typedDataResult,
} from './fake-guard.js'

/**
 * `flow` against a guard that lies (fake-guard.ts) and RPCs we control, run in process with
 * captured output: when it pays, which chain it believes, and what it never prints.
 */
// Not one of anvil's public keys: a key a user could hold (it holds nothing anywhere).
const KEY = '0xb54b33bca6c558d9c8c18740b7097479f9c9fa74d351bba0012b55402f2aaf05' as const
const PAYER = privateKeyToAccount(KEY).address
const SECRET = 'SUPERSECRETAPIKEY'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function guard(options: FakeGuardOptions): Promise<FakeGuard> {
  const fake = await startFakeGuard(options)
  closers.push(fake.close)
  return fake
}

async function rpc(handler?: (call: RpcCall) => unknown) {
  const server = await startFakeRpc(handler)
  closers.push(server.close)
  return server
}

async function run(args: string[], env: Record<string, string> = {}) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env,
  })
  const stdout = out.join('')
  const stderr = err.join('')
  return { code, stdout, stderr, all: `${stdout}\n${stderr}`, json: () => JSON.parse(stdout) }
}

/** A chain where the settlement is mined in block 0x10 and debited PAYER 10000 there. */
function settledChain(call: RpcCall): unknown {
  switch (call.method) {
    case 'eth_blockNumber':
      return '0x10'
    case 'eth_getTransactionReceipt':
      return {
        blockHash: `0x${'11'.repeat(32)}`,
        blockNumber: '0x10',
        contractAddress: null,
        cumulativeGasUsed: '0x5208',
        effectiveGasPrice: '0x1',
        from: PAYER,
        gasUsed: '0x5208',
        logs: [],
        logsBloom: `0x${'00'.repeat(256)}`,
        status: '0x1',
        to: PAYER,
        transactionHash: SETTLEMENT_TX,
        transactionIndex: '0x0',
        type: '0x2',
      }
    case 'eth_call': {
      // Balances by block: the flow must read the settlement block and the one before it.
      const tag = call.params[1]
      const balance = tag === '0xf' ? 1_000_000n : tag === '0x10' ? 990_000n : 5n
      return encodeAbiParameters([{ type: 'uint256' }], [balance])
    }
    default:
      return undefined
  }
}

describe('flow with BUYER_PRIVATE_KEY', () => {
  it('pays only with --yes, even when the guard claims a devnet: a dry run exits 5', async () => {
    for (const environment of ['devnet', 'mainnet'] as const) {
      const attackerRpc = await rpc(settledChain)
      const fake = await guard({ environment, rpcUrl: attackerRpc.url })
      const r = await run(['flow', '--url', fake.baseUrl, '--json'], { BUYER_PRIVATE_KEY: KEY })
      expect(r.code, r.stderr).toBe(EXIT.dryRun)
      expect(r.json()).toMatchObject({
        ok: true,
        paid: false,
        dryRun: true,
        payer: { address: PAYER },
      })
      expect(fake.payments).toHaveLength(0)
      expect(attackerRpc.calls).toEqual([])

      const human = await run(['flow', '--url', fake.baseUrl], { BUYER_PRIVATE_KEY: KEY })
      expect(human.code).toBe(EXIT.dryRun)
      expect(human.stdout).toContain('Re-run with --yes to pay $0.01')
      expect(fake.payments).toHaveLength(0)
    }
  })

  it('verifies the debit on BASE_RPC_URL at the settlement block, never on the RPC the guard names', async () => {
    const attackerRpc = await rpc(settledChain)
    const userRpc = await rpc(settledChain)
    const fake = await guard({ environment: 'devnet', rpcUrl: attackerRpc.url })
    const r = await run(['flow', '--url', fake.baseUrl, '--yes', '--json'], {
      BUYER_PRIVATE_KEY: KEY,
      BASE_RPC_URL: `${userRpc.url}/v2/${SECRET}`,
    })
    expect(r.code, r.all).toBe(EXIT.ok)
    expect(fake.distinctPayments()).toBe(1)
    expect(attackerRpc.calls).toEqual([])
    expect(userRpc.calls.every((c) => c.path === `/v2/${SECRET}`)).toBe(true)
    expect(r.json()).toMatchObject({
      ok: true,
      paid: true,
      payer: { address: PAYER, source: 'BUYER_PRIVATE_KEY' },
      paymentSignature: fake.payments[0]!.header,
      balances: {
        rpc: 'BASE_RPC_URL',
        block: '16',
        before: '1000000',
        after: '990000',
        debit: '10000',
        matches: true,
      },
      receiptVerification: { valid: true },
    })
    expect(r.all).not.toContain(SECRET)
  })

  it('screens the payment authorization first: a block from the typed-data route pays nothing', async () => {
    const userRpc = await rpc(settledChain)
    const fake = await guard({
      environment: 'mainnet',
      typedData: (body) =>
        typedDataResult(body.signer, 'mainnet', {
          verdict: 'block',
          findings: [
            {
              id: 'typed-data-domain-mismatch',
              severity: 'critical',
              title: 'Domain does not match',
              detail: 'lure',
            },
          ],
        }),
    })
    const r = await run(['flow', '--url', fake.baseUrl, '--yes'], {
      BUYER_PRIVATE_KEY: KEY,
      BASE_RPC_URL: userRpc.url,
    })
    expect(r.code, r.all).not.toBe(EXIT.ok)
    expect(fake.typedDataChecks).toHaveLength(1)
    expect(fake.typedDataChecks[0]).toMatchObject({
      signer: PAYER,
      typedData: { primaryType: 'TransferWithAuthorization' },
    })
    expect(fake.payments).toHaveLength(0)
    expect(r.all).toContain('typed-data-domain-mismatch')
  })

  it('never prints an RPC URL beyond its origin', async () => {
    const fake = await guard({ environment: 'mainnet' })
    const dead = `http://127.0.0.1:9/v2/${SECRET}?apikey=${SECRET}2`
    for (const [args, env] of [
      [['--json'], { BASE_RPC_URL: dead }],
      [[], { BASE_RPC_URL: dead }],
      [['--rpc-url', dead], {}],
      [['--rpc-url', `http://user:${SECRET}@127.0.0.1:9/`, '--json'], {}],
    ] as [string[], Record<string, string>][]) {
      const r = await run(['flow', '--url', fake.baseUrl, '--yes', ...args], {
        BUYER_PRIVATE_KEY: KEY,
        ...env,
      })
      expect(r.code).toBe(EXIT.error)
      expect(r.all).not.toContain(SECRET)
      expect(r.all).toContain('does not answer, nothing was paid')
    }
    // The balance RPC is checked before paying.
    expect(fake.payments).toHaveLength(0)
  })

  it('rejects an out-of-range key without echoing it in any form', async () => {
    const fake = await guard({ environment: 'mainnet' })
    const bad = `0x${'f'.repeat(64)}`
    const r = await run(['flow', '--url', fake.baseUrl, '--yes'], { BUYER_PRIVATE_KEY: bad })
    expect(r.code).toBe(EXIT.error)
    expect(r.stderr).toContain('BUYER_PRIVATE_KEY is not a valid secp256k1 private key')
    expect(r.all.toLowerCase()).not.toContain('f'.repeat(64))
    expect(r.all).not.toContain(BigInt(bad).toString())
    expect(r.all).not.toContain(toHex(BigInt(bad)).slice(2, 40))
  })
})

describe('flow after paying', () => {
  it('prints what is known when it cannot finish, and resumes with --payment-signature', async () => {
    let chainUp = false
    let userRpcUrl = ''
    // Balances cannot be read (and the error names the RPC URL, key included).
    const userRpc = await rpc((call) =>
      call.method === 'eth_call' && !chainUp
        ? new RpcError(-32000, `state unavailable at ${userRpcUrl}`)
        : settledChain(call),
    )
    userRpcUrl = `${userRpc.url}/v2/${SECRET}`
    const fake = await guard({ environment: 'mainnet' })
    const env = { BUYER_PRIVATE_KEY: KEY, BASE_RPC_URL: userRpcUrl }

    const broken = await run(['flow', '--url', fake.baseUrl, '--yes', '--json'], env)
    expect(broken.code, broken.all).toBe(EXIT.error)
    expect(broken.all).not.toContain(SECRET)
    const out = broken.json()
    expect(out).toMatchObject({
      ok: false,
      paid: true,
      paymentSignature: fake.payments[0]!.header,
      settlement: { success: true, transaction: SETTLEMENT_TX },
      receipt: { type: 'PRE_SEND_PROOF_RECEIPT', settlementTx: SETTLEMENT_TX },
      error: { code: 'unexpected' },
    })

    const human = await run(['flow', '--url', fake.baseUrl, '--yes'], env)
    expect(human.code).toBe(EXIT.error)
    expect(human.stdout).toContain(`settlement tx ${SETTLEMENT_TX}`)
    expect(human.stdout).toContain('--payment-signature')
    expect(human.all).not.toContain(SECRET)
    expect(fake.distinctPayments()).toBe(2)

    // Resuming sends the same payment again: no new one.
    chainUp = true
    const resumed = await run(
      ['flow', '--url', fake.baseUrl, '--json', '--payment-signature', out.paymentSignature],
      env,
    )
    expect(resumed.code, resumed.all).toBe(EXIT.ok)
    expect(resumed.json()).toMatchObject({ ok: true, paid: true, balances: { matches: true } })
    expect(fake.payments.at(-1)?.header).toBe(out.paymentSignature)
    expect(fake.distinctPayments()).toBe(2)
  })

  it('an unknown payment outcome prints the payment to resume with', async () => {
    const userRpc = await rpc(settledChain)
    const fake = await guard({
      environment: 'mainnet',
      paid: () => ({ status: 200, body: '{"result": {"verdict": "sign"' }),
    })
    const env = { BUYER_PRIVATE_KEY: KEY, BASE_RPC_URL: userRpc.url }
    const r = await run(['flow', '--url', fake.baseUrl, '--yes', '--json'], env)
    expect(r.code).toBe(EXIT.error)
    expect(r.json()).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_response',
        paymentSignature: fake.payments[0]!.header,
        paymentPending: true,
      },
    })
    const human = await run(['flow', '--url', fake.baseUrl, '--yes'], env)
    expect(human.stderr).toContain(`--payment-signature ${fake.payments[1]!.header}`)
  })
})
