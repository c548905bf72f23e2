import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import {
  concat,
  createTestClient,
  encodeFunctionData,
  http,
  maxUint256,
  numberToHex,
  parseAbi,
  parseEther,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT } from '../../packages/client/src/cli/cli-output.js'
import { ANVIL_TEST_MNEMONIC } from '../../src/adapters/devnet/anvil.js'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import {
  ENTRY_POINTS,
  SIMPLE_7702_ACCOUNT,
} from '../../src/domain/account-abstraction/entry-points.js'
import { usdcBalances } from '../payment/paid-stack.js'
import { deploy } from '../support/contracts.js'
import {
  DEAD_URL,
  discoveryRewritingProxy,
  type ServedGuard,
  startServedGuard,
  transactionsSince,
} from '../support/served-guard.js'

/**
 * The buyer CLI as a user runs it: a child process (the client package's compiled
 * `pre-send-guard-buyer`, `node packages/client/dist/cli/bin.js`)
 * against the real app served over HTTP on loopback, with a real devnet underneath.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const { buyer, payTo } = DEVNET_ACCOUNTS
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

let guard: ServedGuard

beforeAll(async () => {
  guard = await startServedGuard()
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs the CLI; the environment carries no BUYER_PRIVATE_KEY or BASE_RPC_URL unless given. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { BUYER_PRIVATE_KEY: _k, BASE_RPC_URL: _r, ...clean } = process.env
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['packages/client/dist/cli/bin.js', ...args],
      { cwd: ROOT, env: { ...clean, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

function json(run: Run): any {
  try {
    return JSON.parse(run.stdout)
  } catch {
    throw new Error(`not JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`)
  }
}

/** Every private key the CLI could hold in these tests: none may ever be printed. */
const KEYS = Object.values(DEVNET_ACCOUNTS).map((a) => a.privateKey.slice(2).toLowerCase())
function expectNoKeys(run: Run) {
  const out = `${run.stdout}\n${run.stderr}`.toLowerCase()
  for (const key of KEYS) expect(out).not.toContain(key)
}

describe('flow', () => {
  it('completes the new-user flow with one paid call, one settlement and a verified receipt', async () => {
    const [buyerBefore, payToBefore] = await usdcBalances(guard.rpc, buyer.address, payTo.address)
    const block = await guard.rpc.getBlockNumber()

    const run = await cli(['flow', '--url', guard.baseUrl, '--json'])

    expect(run.code, run.stderr).toBe(EXIT.ok)
    expectNoKeys(run)
    const out = json(run)
    expect(out).toMatchObject({
      ok: true,
      paid: true,
      environment: 'devnet',
      challenge: { ok: true },
      payer: { address: buyer.address, source: 'devnet demo buyer #1 (public key)' },
      settlement: { success: true, network: 'eip155:8453', status: 'success' },
      result: { verdict: 'sign' },
      receipt: { type: 'PRE_SEND_PROOF_RECEIPT', payer: buyer.address },
      receiptVerification: { valid: true, signer: DEVNET_ACCOUNTS.receiptSigner.address },
    })
    expect(out.receipt.settlementTx).toBe(out.settlement.transaction)
    // Exactly one transaction on chain: the settlement.
    expect(await transactionsSince(guard.rpc, block)).toBe(1)
    const settled = await guard.rpc.getTransactionReceipt({ hash: out.settlement.transaction })
    expect(settled.status).toBe('success')
    // The balances it printed are the chain's.
    const [buyerAfter, payToAfter] = await usdcBalances(guard.rpc, buyer.address, payTo.address)
    expect(out.balances).toMatchObject({
      asset: USDC,
      before: buyerBefore!.toString(),
      after: buyerAfter!.toString(),
      debit: '10000',
      expectedDebit: '10000',
      matches: true,
    })
    expect(payToAfter! - payToBefore!).toBe(10_000n)
    expect(out.receiptVerification.checks.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['signature', 'request_hash', 'response_hash', 'settlement_tx']),
    )

    // The receipt command fetches and verifies the same receipt.
    const stored = await cli(['receipt', out.receipt.id, '--url', guard.baseUrl, '--json'])
    expect(stored.code, stored.stderr).toBe(EXIT.ok)
    expect(json(stored)).toMatchObject({ receipt: out.receipt, verification: { valid: true } })
  })

  it('pays with BUYER_PRIVATE_KEY only with --yes, even on a devnet; never prints the key or RPC URL', async () => {
    // The guard says devnet, but a user's key pays only with --yes: without it, a dry run.
    const block = await guard.rpc.getBlockNumber()
    const dry = await cli(['flow', '--url', guard.baseUrl], { BUYER_PRIVATE_KEY: buyer.privateKey })
    expect(dry.code, dry.stderr).toBe(EXIT.dryRun)
    expect(dry.stdout).toContain('Re-run with --yes to pay $0.01')
    expect(await transactionsSince(guard.rpc, block)).toBe(0)

    // With --yes; balances come from BASE_RPC_URL (never the RPC discovery names for a user key).
    const secretRpc = `${guard.devnet.rpcUrl}/?apikey=SECRETKEY123`
    const run = await cli(['flow', '--url', guard.baseUrl, '--yes'], {
      BUYER_PRIVATE_KEY: buyer.privateKey,
      BASE_RPC_URL: secretRpc,
    })
    expect(run.code, run.stderr).toBe(EXIT.ok)
    expectNoKeys(run)
    expect(`${run.stdout}${run.stderr}`).not.toContain('SECRETKEY123')
    expect(run.stdout).toContain('PASS  status_402')
    expect(run.stdout).toContain(`from ${buyer.address} (BUYER_PRIVATE_KEY)`)
    expect(run.stdout).toMatch(/settlement tx 0x[0-9a-f]{64} on eip155:8453: success/)
    expect(run.stdout).toContain('debit 0.01 (expected 0.01): OK  [BASE_RPC_URL]')
    expect(run.stdout).toContain('VERIFIED')
    expect(run.stdout).toContain('flow complete')
    expect(await transactionsSince(guard.rpc, block)).toBe(1)
  })

  it('refuses to pay when the challenge does not match discovery: nothing moves', async () => {
    for (const rewrite of [
      (d: Record<string, unknown>) => ({ ...d, price: '$0.02' }),
      (d: Record<string, unknown>) => ({ ...d, network: 'eip155:1' }),
      (d: Record<string, unknown>) => ({ ...d, payTo: DEVNET_ACCOUNTS.facilitator.address }),
    ]) {
      const proxy = await discoveryRewritingProxy(guard.baseUrl, rewrite)
      try {
        const before = await usdcBalances(guard.rpc, buyer.address, payTo.address)
        const block = await guard.rpc.getBlockNumber()
        const run = await cli(['flow', '--url', proxy.baseUrl, '--json'])
        expect(run.code, run.stderr).toBe(EXIT.refused)
        const out = json(run)
        expect(out).toMatchObject({ ok: false, paid: false, refused: 'challenge_mismatch' })
        expect(out.challenge.checks.some((c: { ok: boolean }) => !c.ok)).toBe(true)
        expect(await usdcBalances(guard.rpc, buyer.address, payTo.address)).toEqual(before)
        expect(await transactionsSince(guard.rpc, block)).toBe(0)
      } finally {
        await proxy.close()
      }
    }
    // Three CLI processes in a row: slack for a loaded machine, nothing asserted less.
  }, 90_000)

  it('rejects a malformed BUYER_PRIVATE_KEY without echoing it', async () => {
    const bad = `0x${'ab'.repeat(31)}zz`
    const run = await cli(['flow', '--url', guard.baseUrl, '--json'], { BUYER_PRIVATE_KEY: bad })
    expect(run.code).toBe(EXIT.error)
    expect(`${run.stdout}${run.stderr}`).not.toContain(bad.slice(2))
    expect(run.stderr).toContain('BUYER_PRIVATE_KEY is not a 0x-prefixed 32-byte hex private key')
  })
})

describe('check', () => {
  const from = ['--from', buyer.address]

  it('exits 0 sign, 1 review, 2 block, 3 error', async () => {
    const transfer = `0xa9059cbb${USDC_ADDRESS.slice(2).toLowerCase().padStart(64, '0')}${'0a'.padStart(64, '0')}`
    const [sign, review, block, down, invalid] = await Promise.all([
      cli(['check', '--url', guard.baseUrl, ...from, '--to', payTo.address, '--json']),
      cli(['check', '--url', guard.baseUrl, ...from, '--to', payTo.address, '--data', '0x1234']),
      cli(['check', '--url', guard.baseUrl, ...from, '--to', USDC_ADDRESS, '--data', transfer]),
      cli(['check', '--url', DEAD_URL, ...from, '--to', payTo.address]),
      cli(['check', '--url', guard.baseUrl, ...from, '--to', '0x12', '--json']),
    ])
    expect(sign.code, sign.stderr).toBe(EXIT.ok)
    expect(json(sign)).toMatchObject({ verdict: 'sign', findings: [], environment: 'devnet' })

    expect(review.code, review.stderr).toBe(EXIT.review)
    expect(review.stdout).toContain('verdict: REVIEW')
    expect(review.stdout).toContain('[warning] calldata-to-no-code')
    expect(review.stdout).toContain("sender's net change: no change")

    expect(block.code, block.stderr).toBe(EXIT.block)
    expect(block.stdout).toContain('verdict: BLOCK')
    expect(block.stdout).toContain('[critical] transfer-to-token-contract')

    expect(down.code).toBe(EXIT.error)
    expect(down.stderr).toContain('guard_unreachable')

    expect(invalid.code).toBe(EXIT.error)
    expect(json(invalid)).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', status: 422, issues: [{ path: 'to' }] },
    })
  })

  it('needs --from and --to', async () => {
    const run = await cli(['check', '--url', guard.baseUrl, '--to', payTo.address])
    expect(run.code).toBe(EXIT.error)
    expect(run.stderr).toContain('check --from is required')
  })
})

describe('check-authorization', () => {
  it('exits 0 for Simple7702Account (signed or not), 2 for a sweeper, 3 without --nonce', async () => {
    const sweeper = (await deploy(guard.devnet.rpcUrl, 'SweeperDelegate')).address
    const key = privateKeyToAccount(generatePrivateKey())
    const signed = await key.signAuthorization({
      address: SIMPLE_7702_ACCOUNT,
      chainId: 8453,
      nonce: 0,
    })
    const signature = `${signed.r}${signed.s.slice(2)}${signed.yParity === 1 ? '1c' : '1b'}`
    const authority = ['--url', guard.baseUrl, '--authority', key.address]
    const [sign, signedSign, block, noNonce] = await Promise.all([
      cli(['check-authorization', ...authority, '--delegate', SIMPLE_7702_ACCOUNT, '--nonce', '0']),
      cli([
        'check-authorization',
        ...authority,
        '--delegate',
        SIMPLE_7702_ACCOUNT,
        '--chain-id',
        '0x2105',
        '--nonce',
        '0x0',
        '--signature',
        signature,
        '--json',
      ]),
      cli(['check-authorization', ...authority, '--delegate', sweeper, '--nonce', '0x0']),
      cli(['check-authorization', ...authority, '--delegate', sweeper]),
    ])
    expect(sign.code, sign.stderr).toBe(EXIT.ok)
    expect(sign.stdout).toContain('verdict: SIGN')
    expect(sign.stdout).toMatch(/delegate: .*Simple7702Account.*\(recognised\)/)

    expect(signedSign.code, signedSign.stderr).toBe(EXIT.ok)
    expect(json(signedSign)).toMatchObject({
      verdict: 'sign',
      authorization: { signature: 'valid', recovered: key.address },
    })

    expect(block.code, block.stderr).toBe(EXIT.block)
    expect(block.stdout).toContain('verdict: BLOCK')
    expect(block.stdout).toMatch(/\[critical\] /)

    expect(noNonce.code).toBe(EXIT.error)
    expect(noNonce.stderr).toContain('check-authorization --nonce is required')
  })
})

describe('check-userop', () => {
  it('exits 0 for paying a friend from a Simple7702Account, 2 for an unlimited approval to a key, 3 without an EntryPoint', async () => {
    const owner = privateKeyToAccount(generatePrivateKey()).address
    const friend = privateKeyToAccount(generatePrivateKey()).address
    const stranger = privateKeyToAccount(generatePrivateKey()).address
    const anvil = createTestClient({ mode: 'anvil', transport: http(guard.devnet.rpcUrl) })
    await anvil.setBalance({ address: owner, value: parseEther('1') })
    await anvil.setCode({ address: owner, bytecode: concat(['0xef0100', SIMPLE_7702_ACCOUNT]) })
    const token = (await deploy(guard.devnet.rpcUrl, 'TestERC20', ['Token', 'TKN'])).address
    const execute = parseAbi(['function execute(address target, uint256 value, bytes data)'])
    const approve = parseAbi(['function approve(address spender, uint256 value) returns (bool)'])
    // Unsigned (no signature): the guard simulates a stub and says so (an info finding).
    const op = (callData: `0x${string}`) => ({
      sender: owner,
      nonce: '0x0',
      callData,
      callGasLimit: numberToHex(500_000),
      verificationGasLimit: numberToHex(800_000),
      preVerificationGas: numberToHex(60_000),
      maxFeePerGas: numberToHex(2_000_000_000),
      maxPriorityFeePerGas: numberToHex(1_000_000),
    })
    const paying = op(
      encodeFunctionData({ abi: execute, functionName: 'execute', args: [friend, 1000n, '0x'] }),
    )
    const approving = op(
      encodeFunctionData({
        abi: execute,
        functionName: 'execute',
        args: [
          token,
          0n,
          encodeFunctionData({
            abi: approve,
            functionName: 'approve',
            args: [stranger, maxUint256],
          }),
        ],
      }),
    )
    const url = ['--url', guard.baseUrl]
    const [sign, signJson, block, noEntryPoint] = await Promise.all([
      cli([
        'check-userop',
        ...url,
        '--entry-point',
        ENTRY_POINTS['0.8'],
        '--user-operation',
        JSON.stringify(paying),
      ]),
      cli([
        'check-userop',
        ...url,
        '--json',
        '--user-operation',
        JSON.stringify({ entryPoint: ENTRY_POINTS['0.8'], userOperation: paying }),
      ]),
      cli([
        'check-userop',
        ...url,
        '--entry-point',
        ENTRY_POINTS['0.8'],
        '--user-operation',
        JSON.stringify(approving),
      ]),
      cli(['check-userop', ...url, '--user-operation', JSON.stringify(paying)]),
    ])
    expect(sign.code, sign.stdout + sign.stderr).toBe(EXIT.ok)
    expect(sign.stdout).toContain('verdict: SIGN')
    expect(sign.stdout).toContain('EntryPoint v0.8')
    expect(sign.stdout).toContain('userop-signature-not-checked')

    expect(signJson.code, signJson.stderr).toBe(EXIT.ok)
    expect(json(signJson)).toMatchObject({
      verdict: 'sign',
      userOperation: { sender: owner, entryPointVersion: '0.8' },
      validation: { signature: 'not-checked' },
    })

    expect(block.code, block.stdout + block.stderr).toBe(EXIT.block)
    expect(block.stdout).toContain('verdict: BLOCK')
    expect(block.stdout).toMatch(/\[critical\] approval-to-eoa/)

    expect(noEntryPoint.code).toBe(EXIT.error)
    expect(noEntryPoint.stderr).toContain('check-userop --entry-point is required')
  })
})

describe('challenge, discover and usage', () => {
  it('prints the named checks: 0 when the challenge matches discovery, 4 when not', async () => {
    const proxy = await discoveryRewritingProxy(guard.baseUrl, (d) => ({
      ...d,
      payTo: DEVNET_ACCOUNTS.facilitator.address,
    }))
    try {
      const [match, mismatch] = await Promise.all([
        cli(['challenge', '--url', guard.baseUrl, '--json']),
        cli(['challenge', '--url', proxy.baseUrl]),
      ])
      expect(match.code, match.stderr).toBe(EXIT.ok)
      const out = json(match)
      expect(out).toMatchObject({ ok: true, status: 402, body: { error: 'payment_required' } })
      expect(out.checks.every((c: { ok: boolean }) => c.ok)).toBe(true)

      expect(mismatch.code).toBe(EXIT.refused)
      expect(mismatch.stdout).toMatch(/FAIL {2}pay_to/)
      expect(mismatch.stdout).toContain('does NOT match discovery')
    } finally {
      await proxy.close()
    }
  })

  it('summarises discovery', async () => {
    const [human, machine] = await Promise.all([
      cli(['discover', '--url', guard.baseUrl]),
      cli(['discover', '--url', guard.baseUrl, '--json']),
    ])
    expect(human.code).toBe(EXIT.ok)
    expect(human.stdout).toContain('NOT Base mainnet')
    expect(human.stdout).toContain('POST /simulate/transaction-preflight  $0.01 on eip155:8453')
    expect(json(machine)).toMatchObject({ environment: 'devnet', price: '$0.01' })
    // Discovery publishes the demo buyer's address, never a key; the mnemonic is public anyway.
    expect(machine.stdout).not.toContain(ANVIL_TEST_MNEMONIC)
    expectNoKeys(machine)
  })

  it("this repository's npm run buyer keeps its own wording in help and hints", async () => {
    const help = await new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        ['scripts/buyer.mjs', '--help'],
        { cwd: ROOT, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? -1 : 0, stdout, stderr }),
      )
    })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: npm run buyer -- <command> [options]')
    expect(help.stdout).not.toContain('npx')
  })

  it('reports usage errors with exit 3', async () => {
    const [none, unknown, badFlag, missingReceipt] = await Promise.all([
      cli([]),
      cli(['frobnicate']),
      cli(['check', '--nope']),
      cli(['receipt', 'rcpt_00000000000000000000000000000000', '--url', guard.baseUrl]),
    ])
    expect(none.code).toBe(EXIT.error)
    // The package's executable names itself and how to run it from a consumer project.
    expect(none.stdout).toContain('Usage: pre-send-guard-buyer <command>')
    expect(none.stdout).toContain('npx -y -p @pre-send-guard/client pre-send-guard-buyer')
    expect(none.stdout).not.toContain('npm run buyer')
    expect(unknown.code).toBe(EXIT.error)
    expect(badFlag.code).toBe(EXIT.error)
    expect(missingReceipt.code).toBe(EXIT.error)
    expect(missingReceipt.stderr).toContain('not_found')
  })
})
