import type { EffectsReport, TypedDataResult } from '@pre-send-guard/client/schemas'
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { createSpendBudget } from '../../packages/agentkit/src/spend-budget.js'
import {
  transactionViolations,
  typedDataViolations,
} from '../../packages/agentkit/src/spend-policy.js'

/**
 * The spend policy on effects as the guard answers them: the cases the devnet tests do not
 * reach (NFTs, operator grants, revocations, missing effects, the `unlisted` switch). Amounts
 * and shapes are the answer schema's (`ExecutionEffectsSchema`, `TypedDataResultSchema`).
 */
const agent: Address = '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955'
const friend: Address = '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f'
const nft: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const usdc: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

const asset = (
  token: Address | null,
  standard: 'eth' | 'erc20' | 'erc721',
  tokenId: string | null = null,
) => ({
  standard,
  token,
  tokenId,
  symbol: token === null ? 'ETH' : null,
  decimals: standard === 'erc721' ? 0 : 18,
})
const change = (a: ReturnType<typeof asset>, direction: 'in' | 'out', amount: string) => ({
  asset: a,
  direction,
  amount,
  display: null,
})

function effects(
  senderChanges: ReturnType<typeof change>[],
  others: { account: Address; changes: ReturnType<typeof change>[] }[] = [],
  approvalChanges: Extract<EffectsReport, { available: true }>['approvalChanges'] = [],
): EffectsReport {
  return {
    available: true,
    source: 'eth_simulateV1',
    assetChanges: [
      { account: agent, isSender: true, changes: senderChanges },
      ...others.map((o) => ({ ...o, isSender: false })),
    ],
    approvalChanges,
    senderNet: { changes: senderChanges, summary: '' },
    tokenMetadata: { limit: 16, omitted: 0 },
  }
}

const approval = (
  over: Partial<Extract<EffectsReport, { available: true }>['approvalChanges'][number]>,
) => ({
  kind: 'operator' as const,
  token: nft,
  owner: agent,
  spender: friend,
  amount: 'all',
  tokenId: null,
  expiration: null,
  revoke: false,
  ownerIsSender: true,
  via: 'ApprovalForAll' as const,
  display: null,
  ...over,
})

describe('transactionViolations', () => {
  it('counts NFTs by collection, across token ids', () => {
    const out = [
      change(asset(nft, 'erc721', '1'), 'out', '1'),
      change(asset(nft, 'erc721', '2'), 'out', '1'),
    ]
    const moved = effects(out, [
      { account: friend, changes: out.map((c) => ({ ...c, direction: 'in' as const })) },
    ])
    expect(transactionViolations({ limits: { [nft]: 2n } }, agent, moved)).toEqual([])
    expect(transactionViolations({ limits: { [nft.toLowerCase()]: 1n } }, agent, moved)).toEqual([
      {
        rule: 'spend_limit_exceeded',
        detail: expect.stringContaining('2 (atomic units) is over the limit of 1'),
      },
    ])
  })

  it('holds an operator grant as unlimited, and lets a revocation or a grant by someone else pass', () => {
    const granted = effects([], [], [approval({})])
    expect(
      transactionViolations({ spenders: [friend], limits: { [nft]: 1000n } }, agent, granted).map(
        (v) => v.rule,
      ),
    ).toEqual(['spend_limit_exceeded'])
    expect(transactionViolations({ spenders: [] }, agent, granted).map((v) => v.rule)).toEqual([
      'spender_not_allowed',
    ])
    const harmless = effects(
      [],
      [],
      [approval({ revoke: true }), approval({ ownerIsSender: false, owner: friend })],
    )
    expect(transactionViolations({ spenders: [], limits: {} }, agent, harmless)).toEqual([])
  })

  it('refuses an unlisted asset unless `unlisted` is allow, and checks nothing without a policy', () => {
    const paid = effects(
      [change(asset(usdc, 'erc20'), 'out', '5')],
      [{ account: friend, changes: [change(asset(usdc, 'erc20'), 'in', '5')] }],
    )
    expect(transactionViolations({ limits: { eth: 1n } }, agent, paid).map((v) => v.rule)).toEqual([
      'asset_not_allowed',
    ])
    expect(transactionViolations({ limits: { eth: 1n }, unlisted: 'allow' }, agent, paid)).toEqual(
      [],
    )
    expect(transactionViolations({}, agent, paid)).toEqual([])
    expect(transactionViolations(undefined, agent, paid)).toEqual([])
  })

  it('refuses when the effects could not be simulated, if there is a policy to hold', () => {
    const unknown: EffectsReport = { available: false, reason: 'the node offers neither method' }
    expect(transactionViolations({ recipients: [friend] }, agent, unknown)).toEqual([
      {
        rule: 'effects_unavailable',
        detail: expect.stringContaining('the node offers neither method'),
      },
    ])
    expect(transactionViolations({}, agent, unknown)).toEqual([])
  })
})

describe('typedDataViolations', () => {
  const grant = (
    over: Partial<TypedDataResult['grants'][number]>,
  ): TypedDataResult['grants'][number] => ({
    at: 'message',
    owner: agent,
    token: usdc,
    spender: friend,
    amount: '5000000',
    unlimited: false,
    revoke: false,
    use: 'transfer',
    decimals: 6,
    symbol: 'USDC',
    ...over,
  })

  it('lets a signed one-time transfer to a listed recipient through, not an allowance', () => {
    const policy = { recipients: [friend], spenders: [], limits: { [usdc]: 10_000_000n } }
    expect(typedDataViolations(policy, agent, [grant({})])).toEqual([])
    expect(
      typedDataViolations(policy, agent, [grant({ use: 'allowance' })]).map((v) => v.rule),
    ).toEqual(['spender_not_allowed'])
    expect(
      typedDataViolations(policy, agent, [grant({ unlimited: true })]).map((v) => v.rule),
    ).toEqual(['spend_limit_exceeded'])
    // Grants another owner's signature would make are not this signer's to limit.
    expect(
      typedDataViolations(policy, agent, [grant({ owner: friend, use: 'allowance' })]),
    ).toEqual([])
  })
})

describe('the spend budget over a rolling window', () => {
  const out = (entries: [string, bigint][]) =>
    new Map(entries.map(([key, amount]) => [key, { amount, label: key }]))

  it('counts what was held in the window, gives back what was never sent, and forgets what left it', () => {
    let now = 1_000_000
    const budget = createSpendBudget(
      { windowMs: 60_000, limits: { eth: 100n, [usdc]: 10n } },
      () => now,
    )
    const first = budget.hold(out([['eth', 60n]]))
    expect(first.violations).toEqual([])
    // Over for ETH: nothing of this transaction is held, USDC's share included.
    const over = budget.hold(
      out([
        ['eth', 50n],
        [usdc.toLowerCase(), 5n],
      ]),
    )
    expect(over.violations.map((v) => v.rule)).toEqual(['budget_exceeded'])
    expect(over.violations[0]?.detail).toContain('on top of 60 already spent')
    expect(over.hold).toBeUndefined()
    expect(budget.hold(out([[usdc.toLowerCase(), 10n]])).violations).toEqual([])
    // An asset the budget does not list is left to the per-transaction limits.
    expect(budget.hold(out([[nft.toLowerCase(), 1_000n]])).violations).toEqual([])
    // The first send failed: its 60 come back.
    first.hold?.giveBack()
    expect(budget.hold(out([['eth', 100n]])).violations).toEqual([])
    expect(budget.hold(out([['eth', 1n]])).violations.map((v) => v.rule)).toEqual([
      'budget_exceeded',
    ])
    // A minute later the window holds none of it.
    now += 60_000
    expect(budget.hold(out([['eth', 100n]])).violations).toEqual([])
    expect(budget.hold(out([[usdc.toLowerCase(), 10n]])).violations).toEqual([])
  })
})
