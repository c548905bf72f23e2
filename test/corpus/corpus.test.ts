import { readdirSync } from 'node:fs'
import { numberToHex, parseEther, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { testAccount } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'
import { CORPUS_RULES, type CorpusCase, type CorpusSetup, type CorpusTx } from './corpus-case.js'

/**
 * The real-protocol corpus (issue 26): every protocol under `protocols/` deploys its real
 * bytecode on one devnet and hands back everyday actions with their malicious twins. Every
 * benign action executes and is `sign` (or `review` with exactly the findings it declares, where
 * it says why); every twin is not `sign`, with a finding id its benign twin does not have (so no
 * pair is told apart by accident).
 */

const PATH = '/payanagent/v1/base-transaction-preflight'

interface Finding {
  id: string
  severity: string
  detail: string
  path?: string
}
interface Answer {
  verdict: 'sign' | 'review' | 'block'
  findings: Finding[]
  call: { success: boolean; message?: string }
  effects: {
    available: boolean
    positionChanges?: {
      protocol: string
      account: string
      isSender: boolean
      field: string
      kind: string
      before: string
      after: string
    }[]
  }
}

const PROTOCOLS: { file: string; setup: CorpusSetup }[] = []
for (const name of readdirSync(new URL('./protocols/', import.meta.url)).sort()) {
  if (!name.endsWith('.ts')) continue
  const file = name.replace(/\.ts$/, '')
  // The extension in the import's static part, as vite's dynamic-import-vars wants it (no warning).
  const module = (await import(`./protocols/${file}.ts`)) as { setup: CorpusSetup }
  PROTOCOLS.push({ file, setup: module.setup })
}

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
/** The same app behind a proxy that counts sequential RPC waves. */
let counting: Awaited<ReturnType<typeof startCountingRpc>>
let countedApp: ReturnType<typeof preflightApp>
const waves: { name: string; waves: number }[] = []
const cases = new Map<string, CorpusCase[]>()
const results: { name: string; category: string; benign: string; twin: string; tells: string }[] =
  []
/** Every finding id any corpus answer carried. */
const seenIds = new Set<string>()
/** Every answer by case, `name` for the benign action and `name (twin)` for its twin. */
const answers = new Map<string, Answer>()

async function preflight(tx: CorpusTx, through = app): Promise<Answer> {
  const res = await postJson(through, PATH, {
    from: tx.from,
    to: tx.to,
    data: tx.data,
    value: toHex(tx.value ?? 0n),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

/** The index of the Uniswap v3 corpus among the protocols (its accounts are numbered by it). */
const uniswapIndex = () => PROTOCOLS.findIndex((p) => p.file === 'uniswap-v3')

const describeFindings = (answer: Answer) =>
  answer.findings.map((f) => `${f.severity} ${f.id}${f.path ? ` @${f.path}` : ''}: ${f.detail}`)

beforeAll(async () => {
  devnet = await startDevnet()
  app = preflightApp(devnet.rpcUrl)
  counting = await startCountingRpc(devnet.rpcUrl, { holdMs: 10 })
  countedApp = preflightApp(counting.url)
  for (const [index, protocol] of PROTOCOLS.entries()) {
    // Each protocol its own sender, deployer and stranger, funded with devnet ETH.
    const sender = testAccount(100 + 3 * index)
    const deployer = testAccount(101 + 3 * index)
    const stranger = testAccount(102 + 3 * index).address
    for (const account of [sender.address, deployer.address]) {
      await fetch(devnet.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'anvil_setBalance',
          params: [account, numberToHex(parseEther('10000'))],
        }),
      })
    }
    cases.set(
      protocol.file,
      await protocol.setup({ rpcUrl: devnet.rpcUrl, sender, deployer, stranger }),
    )
  }
  // The counting app's first preflight learns the head (one more wave): not a corpus case.
  const warm = testAccount(100).address
  await preflight({ from: warm, to: warm, data: '0x' }, countedApp)
}, 240_000)

afterAll(async () => {
  if (results.length > 0) {
    const signed = results.filter((r) => r.benign === 'sign').length
    const reviewed = results.filter((r) => r.benign.endsWith('*')).length
    const caught = results.filter((r) => r.twin !== '-' && r.twin !== 'sign').length
    const twins = results.filter((r) => r.twin !== '-').length
    console.log(
      `corpus: ${signed}/${results.length} benign sign (${reviewed} review as declared, marked *), ${caught}/${twins} twins caught\n${results
        .map(
          (r) =>
            `${r.category.padEnd(15)} ${r.name.padEnd(52)} ${r.benign.padEnd(7)} ${r.twin.padEnd(7)} ${r.tells}`,
        )
        .join('\n')}`,
    )
  }
  if (waves.length > 0) {
    const histogram = new Map<number, string[]>()
    for (const w of waves) histogram.set(w.waves, [...(histogram.get(w.waves) ?? []), w.name])
    console.log(
      `corpus RPC waves per benign preflight: ${[...histogram]
        .sort(([a], [b]) => a - b)
        .map(
          ([n, names]) => `${n} wave(s): ${names.length}${n > 1 ? ` (${names.join(', ')})` : ''}`,
        )
        .join('; ')}`,
    )
  }
  await counting?.close()
  await devnet?.stop()
})

describe.each(PROTOCOLS.map((p) => p.file))('corpus: %s', (file) => {
  it('every benign action executes and is sign; every twin is not sign, with a finding of its own', async () => {
    const list = cases.get(file) ?? []
    expect(list.length).toBeGreaterThan(0)
    const problems: string[] = []
    for (const c of list) {
      const benign = await preflight(c.benign)
      // The same preflight again through the wave-counting proxy (the head is known by then).
      counting.reset()
      expect(await preflight(c.benign, countedApp)).toEqual(benign)
      waves.push({ name: c.name, waves: counting.waves })
      const twin = c.twin ? await preflight(c.twin) : undefined
      for (const f of [...benign.findings, ...(twin?.findings ?? [])]) seenIds.add(f.id)
      answers.set(c.name, benign)
      if (twin) answers.set(`${c.name} (twin)`, twin)
      const own = new Set(benign.findings.map((f) => f.id))
      const tells = [
        ...new Set(
          (twin?.findings ?? [])
            .filter((f) => f.severity !== 'info' && !own.has(f.id))
            .map((f) => f.id),
        ),
      ]
      results.push({
        name: c.name,
        category: c.category,
        benign: c.review === undefined ? benign.verdict : `${benign.verdict}*`,
        twin: twin?.verdict ?? '-',
        tells: tells.join(', '),
      })
      if (!benign.call.success)
        problems.push(`${c.name}: benign action reverts (${benign.call.message})`)
      if (c.review === undefined && benign.verdict !== 'sign')
        problems.push(
          `${c.name}: benign is ${benign.verdict}\n  ${describeFindings(benign).join('\n  ')}`,
        )
      if (c.review !== undefined) {
        const raised = [
          ...new Set(benign.findings.filter((f) => f.severity !== 'info').map((f) => f.id)),
        ].sort()
        if (benign.verdict !== 'review' || raised.join() !== [...c.review.findings].sort().join())
          problems.push(
            `${c.name}: benign should be review with ${c.review.findings.join(', ')} (${c.review.why}), is ${benign.verdict}\n  ${describeFindings(benign).join('\n  ')}`,
          )
      }
      if (twin) {
        const distinct = twin.findings.filter((f) => f.severity !== 'info' && !own.has(f.id))
        if (twin.verdict === 'sign' || distinct.length === 0)
          problems.push(
            `${c.name}: twin (${c.twinIs}) is ${twin.verdict} without a finding of its own\n  ${describeFindings(twin).join('\n  ')}`,
          )
      }
    }
    expect(problems).toEqual([])
  })
})

describe('positions kept in protocol storage', () => {
  const changes = (name: string) => answers.get(name)?.effects.positionChanges ?? []
  const grew = (c: { before: string; after: string }) => BigInt(c.after) > BigInt(c.before)

  it("Morpho Blue: the sender's claims and liabilities, and a stranger's, read before and after", () => {
    // A supply credits the sender's supply shares: a claim that no Transfer shows.
    expect(changes('morpho.supply')).toMatchObject([
      { protocol: 'Morpho Blue', isSender: true, field: 'supplyShares', kind: 'claim' },
    ])
    expect(grew(changes('morpho.supply')[0] ?? { before: '0', after: '0' })).toBe(true)
    // The twin credits the stranger instead.
    expect(changes('morpho.supply (twin)')).toMatchObject([
      { isSender: false, field: 'supplyShares' },
    ])
    // A repay lowers the sender's borrow shares: a liability removed, not an asset lost.
    const repaid = changes('morpho.repay')
    expect(repaid).toMatchObject([{ isSender: true, field: 'borrowShares', kind: 'liability' }])
    expect(grew(repaid[0] ?? { before: '0', after: '1' })).toBe(false)
    expect(changes('morpho.supply-collateral')).toMatchObject([
      { isSender: true, field: 'collateral', kind: 'claim' },
    ])
    // Calls that change no position (an authorization) carry none.
    expect(answers.get('morpho.authorize-bundler')?.effects.positionChanges).toBeUndefined()
  })
})

describe('positions kept in Compound III storage', () => {
  const changes = (name: string) => answers.get(name)?.effects.positionChanges ?? []

  it("Compound III: the sender's supplied base, borrow and collateral, and a stranger's, read before and after", () => {
    // Supplying USDC raises the sender's supplied base (cUSDCv3 is minted as well).
    expect(changes('compound.supply-usdc')).toMatchObject([
      { protocol: 'Compound III Comet', isSender: true, field: 'supplied', kind: 'claim' },
    ])
    // Collateral shows no token at all: only the Comet's storage says it is the sender's.
    expect(changes('compound.supply-collateral')).toMatchObject([
      { isSender: true, field: 'collateral', kind: 'claim' },
    ])
    expect(changes('compound.supply-collateral-to (twin)')).toMatchObject([
      { isSender: false, field: 'collateral' },
    ])
    // Withdrawing more than was supplied opens a borrow: a liability, beside the claim gone.
    expect(changes('compound.borrow-usdc')).toMatchObject([
      { isSender: true, field: 'supplied', kind: 'claim' },
      { isSender: true, field: 'borrowed', kind: 'liability' },
    ])
    // Allowing a manager changes no position.
    expect(answers.get('compound.allow')?.effects.positionChanges).toBeUndefined()
  })
})

describe('internal balances kept in the Balancer Vault', () => {
  const changes = (name: string) => answers.get(name)?.effects.positionChanges ?? []
  const grew = (c: { before: string; after: string }) => BigInt(c.after) > BigInt(c.before)

  it("Balancer v2: the sender's internal balances, and a stranger's, read before and after", () => {
    // A swap to the internal balance credits the WETH bought there: a claim no token shows.
    const credited = changes('balancer.swap-to-internal-balance')
    expect(credited).toMatchObject([
      { protocol: 'Balancer v2 Vault', isSender: true, field: 'internalBalance', kind: 'claim' },
    ])
    expect(grew(credited[0] ?? { before: '1', after: '0' })).toBe(true)
    // The twin credits the stranger's instead.
    expect(changes('balancer.swap-to-internal-balance (twin)')).toMatchObject([
      { isSender: false, field: 'internalBalance' },
    ])
    // Paying from the internal balance lowers it; depositing raises it; withdrawing lowers it.
    const paid = changes('balancer.swap-from-internal-balance')
    expect(paid).toMatchObject([{ isSender: true, field: 'internalBalance' }])
    expect(grew(paid[0] ?? { before: '0', after: '1' })).toBe(false)
    expect(
      grew(changes('balancer.deposit-internal-balance')[0] ?? { before: '1', after: '0' }),
    ).toBe(true)
    expect(
      grew(changes('balancer.withdraw-internal-balance')[0] ?? { before: '0', after: '1' }),
    ).toBe(false)
    // A swap paid and paid out in tokens touches no internal balance.
    expect(answers.get('balancer.swap')?.effects.positionChanges).toBeUndefined()
  })
})

describe('owners of Uniswap v3 positions', () => {
  it("increaseLiquidity on a stranger's position names its owner and token id, read in the one wave", async () => {
    const c = (cases.get('uniswap-v3') ?? []).find(
      (x) => x.name === 'position-manager.increase-liquidity',
    )
    if (c?.twin === undefined) throw new Error('no increase-liquidity twin')
    const twin = answers.get(`${c.name} (twin)`)
    expect(twin?.verdict).toBe('review')
    const finding = twin?.findings.find((f) => f.id === 'position-not-owned')
    // The twin's tokenId is the stranger's position: the detail names both.
    const tokenId = BigInt(`0x${c.twin.data.slice(10, 74)}`)
    expect(finding?.detail).toContain(`position ${tokenId}`)
    expect(finding?.detail.toLowerCase()).toContain(
      testAccount(102 + 3 * uniswapIndex()).address.toLowerCase(),
    )
    // The sender's own position: no such finding.
    expect(answers.get(c.name)?.findings.map((f) => f.id)).not.toContain('position-not-owned')
    // The owner rides in the simulation: still one wave, and ownerOf was asked in it.
    counting.reset()
    expect(await preflight(c.twin, countedApp)).toEqual(twin)
    expect(counting.waves).toBe(1)
    const simulate = counting.calls.find((x) => x.method === 'eth_simulateV1')
    expect(JSON.stringify(simulate?.params)).toContain('"0x6352211e')
  })
})

describe('corpus coverage', () => {
  it('every protocol rule fires on some corpus case', () => {
    expect([...CORPUS_RULES].filter((id) => !seenIds.has(id))).toEqual([])
  })
})
