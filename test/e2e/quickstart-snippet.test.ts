import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, verifyTypedData } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { QUICKSTART_PACKAGES } from '../../src/routes/pages.js'
import { usdcBalances } from '../payment/paid-stack.js'
import { runCommands, tsSnippets } from '../support/page-snippets.js'
import { type ServedGuard, startServedGuard, transactionsSince } from '../support/served-guard.js'

/**
 * Issue 14 item 4: the quickstart's paid call, taken exactly as the running devnet service
 * serves it (code, file name and run command), run the way the page says in a fresh
 * CommonJS-default npm project, pays once: one settlement transaction on chain, one ledger
 * charge, one PRE_SEND_PROOF_RECEIPT that verifies, and the snippet's own output and exit 0.
 */
const ROOT = new URL('../..', import.meta.url).pathname
const TSX = join(ROOT, 'node_modules/.bin/tsx')

let guard: ServedGuard
let project: string | undefined

beforeAll(async () => {
  guard = await startServedGuard()
}, 60_000)

afterAll(async () => {
  await guard?.stop()
  if (project) rmSync(project, { recursive: true, force: true })
})

/** Runs `command args` in `cwd` with only `env`, bounded; keeps everything it printed. */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

/** Packages a snippet loads at run time (`import type` lines are erased and need nothing). */
function runtimePackages(code: string): string[] {
  const names = [...code.matchAll(/^import (?!type )[^\n]* from '([^']+)'/gm)].map((m) => {
    const spec = m[1] as string
    const parts = spec.split('/')
    return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string)
  })
  return [...new Set(names)]
}

describe('the quickstart page', () => {
  it("pays once when its paid-call snippet runs as served, with the page's own run command", async () => {
    const { baseUrl, rpc, storage } = guard
    const res = await fetch(`${baseUrl}/quickstart`)
    expect(res.status).toBe(200)
    const page = await res.text()

    // What the page tells a reader to copy: one snippet with a file name, one run command.
    const snippets = tsSnippets(page)
    expect(snippets).toHaveLength(1)
    const snippet = snippets[0] as (typeof snippets)[number]
    expect(snippet.file).toMatch(/^[\w-]+\.mts$/)
    expect(snippet.code).toContain(`'${baseUrl}/simulate/transaction-preflight'`)
    const commands = runCommands(page)
    expect(commands).toHaveLength(1)
    const command = /^BUYER_PRIVATE_KEY=(0x[0-9a-f]{64}) npx tsx (\S+)$/.exec(commands[0] ?? '')
    expect(command, commands[0]).not.toBeNull()
    const [, key, file] = command as unknown as [string, Hex, string]
    expect(file).toBe(snippet.file)
    // On the devnet the page names the funded demo buyer's (public) key.
    expect(key).toBe(DEVNET_ACCOUNTS.buyer.privateKey)
    // The install line covers every package the snippet loads at run time, and tsx.
    const installed = QUICKSTART_PACKAGES.map((p) => p.replace(/@[^@]+$/, ''))
    expect(page).toContain(`npm install ${QUICKSTART_PACKAGES.join(' ')}`)
    expect(installed).toEqual(expect.arrayContaining([...runtimePackages(snippet.code), 'tsx']))

    // A fresh npm project (no "type": CommonJS by default) with those packages installed
    // (the project's own node_modules, which pins the same versions).
    project = mkdtempSync(join(tmpdir(), 'quickstart-'))
    writeFileSync(join(project, 'package.json'), '{ "private": true }\n')
    symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir')
    writeFileSync(join(project, file), snippet.code)

    const buyer = DEVNET_ACCOUNTS.buyer.address
    const payTo = DEVNET_ACCOUNTS.payTo.address
    const [buyerBefore, payToBefore] = await usdcBalances(rpc, buyer, payTo)
    const blockBefore = await rpc.getBlockNumber()
    const ledgerRows = async () =>
      (
        await storage.sql.query<{
          status: string
          amount: string
          payer: string
          settlement_tx: string | null
          receipt_id: string | null
        }>(
          `SELECT status, amount::text AS amount, payer, settlement_tx, receipt_id FROM "${storage.schema}".payments`,
        )
      ).rows
    expect(await ledgerRows()).toEqual([])

    // `npx tsx <file>` with the page's key: the project's tsx binary, nothing else inherited.
    const ran = await run(
      TSX,
      [file],
      project,
      { PATH: process.env.PATH ?? '', HOME: project, BUYER_PRIVATE_KEY: key },
      90_000,
    )
    expect(ran.stderr).toBe('')
    expect(ran.code, ran.stdout).toBe(0)
    const printed = /^sign PRE_SEND_PROOF_RECEIPT (0x[0-9a-f]{64})\n$/.exec(ran.stdout)
    expect(printed, ran.stdout).not.toBeNull()
    const settlementTx = (printed as RegExpExecArray)[1] as Hex

    // One settlement transaction on chain, the one printed, and one $0.01 debit.
    expect(await transactionsSince(rpc, blockBefore)).toBe(1)
    expect((await rpc.getTransactionReceipt({ hash: settlementTx })).status).toBe('success')
    const [buyerAfter, payToAfter] = await usdcBalances(rpc, buyer, payTo)
    expect((buyerBefore as bigint) - (buyerAfter as bigint)).toBe(10_000n)
    expect((payToAfter as bigint) - (payToBefore as bigint)).toBe(10_000n)

    // One ledger charge, settled by that transaction.
    const rows = await ledgerRows()
    expect(rows).toHaveLength(1)
    const row = rows[0] as (typeof rows)[number]
    expect(row).toMatchObject({ status: 'settled', amount: '10000', settlement_tx: settlementTx })
    expect(row.payer.toLowerCase()).toBe(buyer.toLowerCase())

    // One PRE_SEND_PROOF_RECEIPT, verifying against the signer and domain discovery publishes.
    const discovery = (await (await fetch(`${baseUrl}/.well-known/x402`)).json()) as {
      receipts: { signer: Hex; url: string; eip712: Record<string, any> }
    }
    const stored = await fetch(discovery.receipts.url.replace('{id}', row.receipt_id ?? ''))
    expect(stored.status).toBe(200)
    const receipt = (await stored.json()) as Record<string, any>
    expect(receipt).toMatchObject({
      type: 'PRE_SEND_PROOF_RECEIPT',
      verdict: 'sign',
      settlementTx,
      amount: '10000',
    })
    const { domain, types, primaryType } = discovery.receipts.eip712
    expect(
      await verifyTypedData({
        address: discovery.receipts.signer,
        domain,
        types,
        primaryType,
        message: receipt,
        signature: receipt.signature,
      }),
    ).toBe(true)
    const receiptRows = await storage.sql.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM "${storage.schema}".receipts`,
    )
    expect(receiptRows.rows[0]?.n).toBe('1')
  }, 120_000)
})
