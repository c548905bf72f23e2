import { encodeAbiParameters, getAddress, type Hex, pad, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeLogs, PERMIT2_ADDRESS } from '../../src/domain/effects/decode-logs.js'
import { effectsReport, summarize } from '../../src/domain/effects/effects-report.js'
import { executionEffects } from '../../src/domain/effects/execution-effects.js'
import { groupedUnits, tokenAmountText } from '../../src/domain/effects/token-amount.js'
import type { SimulatedLog } from '../../src/domain/preflight/chain-reader.js'

const TOKEN = '0x1111111111111111111111111111111111111111'
const ALICE = getAddress('0xa11ce00000000000000000000000000000000001')
const BOB = getAddress('0x000000000000000000000000000000000000b0b0')
const T = {
  transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  approval: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  batch: '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb',
  permit2Approval: '0xda9fa7c1b00402c17d0161b249b1ab8bbec047c5a52207b9c112deffd817036b',
  deposit: '0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c',
} as const
const topic = (a: string | bigint): Hex => pad(typeof a === 'bigint' ? toHex(a) : (a as Hex))
const log = (address: string, topics: Hex[], data: Hex = '0x'): SimulatedLog =>
  ({ address, topics, data }) as SimulatedLog

describe('decodeLogs reads only the standard layouts', () => {
  it('ERC-721 Transfer and Approval (id indexed) are NFT moves and grants, not amounts', () => {
    const { moves, approvals } = decodeLogs([
      log(TOKEN, [T.transfer, topic(ALICE), topic(BOB), topic(7n)]),
      log(TOKEN, [T.approval, topic(ALICE), topic(BOB), topic(9n)]),
    ])
    expect(moves).toEqual([
      {
        asset: { standard: 'erc721', token: TOKEN, tokenId: 7n },
        from: ALICE,
        to: BOB,
        amount: 1n,
      },
    ])
    expect(approvals[0]).toMatchObject({ kind: 'erc721', tokenId: 9n, revoke: false })
  })

  it('ERC-1155 TransferBatch becomes one move per id', () => {
    const data = encodeAbiParameters(
      [{ type: 'uint256[]' }, { type: 'uint256[]' }],
      [
        [1n, 2n],
        [10n, 20n],
      ],
    )
    const { moves } = decodeLogs([
      log(TOKEN, [T.batch, topic(BOB), topic(ALICE), topic(BOB)], data),
    ])
    expect(moves.map((m) => [m.asset, m.amount])).toEqual([
      [{ standard: 'erc1155', token: TOKEN, tokenId: 1n }, 10n],
      [{ standard: 'erc1155', token: TOKEN, tokenId: 2n }, 20n],
    ])
  })

  it('Permit2 Approval counts only when Permit2 emits it', () => {
    const data = encodeAbiParameters([{ type: 'uint160' }, { type: 'uint48' }], [5n, 99])
    const topics = [T.permit2Approval, topic(ALICE), topic(TOKEN), topic(BOB)] as Hex[]
    expect(decodeLogs([log(PERMIT2_ADDRESS, topics, data)]).approvals).toEqual([
      expect.objectContaining({
        kind: 'permit2',
        token: TOKEN,
        owner: ALICE,
        spender: BOB,
        amount: 5n,
        expiration: 99n,
      }),
    ])
    expect(decodeLogs([log(TOKEN, topics, data)]).approvals).toEqual([])
  })

  it('malformed logs (odd data, dirty address topics) are ignored, never thrown on', () => {
    const dirty = `0x${'f'.repeat(24)}${ALICE.slice(2)}` as Hex
    const { moves } = decodeLogs([
      log(TOKEN, [T.transfer, topic(ALICE), topic(BOB)], '0x1234'),
      log(TOKEN, [T.transfer, dirty, topic(BOB)], topic(1n)),
      log(
        TOKEN.toUpperCase().replace('0X', '0x'),
        [T.transfer, topic(ALICE), topic(BOB)],
        topic(3n),
      ),
    ])
    expect(moves).toHaveLength(1)
    expect(moves[0]?.amount).toBe(3n)
  })

  it('a WETH9 Deposit mints the wrapped token to the depositor', () => {
    const { moves } = decodeLogs([log(TOKEN, [T.deposit, topic(ALICE)], topic(4n))])
    expect(moves).toEqual([
      {
        asset: { standard: 'erc20', token: TOKEN },
        from: '0x0000000000000000000000000000000000000000',
        to: ALICE,
        amount: 4n,
      },
    ])
  })
})

describe('net changes and amounts', () => {
  it('nets per account, sender first, then by address; self-moves and zero nets vanish', () => {
    const effects = executionEffects(
      [
        log(TOKEN, [T.transfer, topic(ALICE), topic(BOB)], topic(5n)),
        log(TOKEN, [T.transfer, topic(BOB), topic(ALICE)], topic(5n)),
        log(TOKEN, [T.transfer, topic(BOB), topic(BOB)], topic(9n)),
        log(TOKEN, [T.transfer, topic(BOB), topic(ALICE)], topic(2n)),
      ],
      BOB,
    )
    expect(effects.net.map((a) => [a.account, a.changes.map((c) => c.delta)])).toEqual([
      [BOB, [-2n]],
      [ALICE, [2n]],
    ])
  })

  it('groups thousands exactly and says unlimited in token units', () => {
    expect(groupedUnits(1_250_500_000n, 6)).toBe('1,250.5')
    expect(groupedUnits(1n, 18)).toBe('0.000000000000000001')
    const book = new Map([[TOKEN, { symbol: 'USDC', decimals: 6 }]])
    expect(tokenAmountText(2n ** 256n - 1n, TOKEN, book, 2n ** 128n)).toBe(
      'unlimited USDC (the maximum uint256)',
    )
    expect(tokenAmountText(2n ** 200n, TOKEN, book, 2n ** 128n)).toBe(
      `unlimited USDC (${2n ** 200n} raw units)`,
    )
    expect(tokenAmountText(250_000_000n, TOKEN, book)).toBe('250 USDC (250000000 raw units)')
    expect(tokenAmountText(7n, BOB, book)).toBe('7 (raw units)')
  })

  it('shows the largest allowance a token can hold as unlimited, in token units', () => {
    const PERMIT2 = getAddress(PERMIT2_ADDRESS)
    const book = new Map([[TOKEN, { symbol: 'USDC', decimals: 6 }]])
    const effects = executionEffects(
      [
        log(TOKEN, [T.approval, topic(ALICE), topic(BOB)], topic(2n ** 256n - 1n)),
        log(TOKEN, [T.approval, topic(ALICE), topic(BOB)], topic(2n ** 256n - 2n)),
        log(TOKEN, [T.approval, topic(ALICE), topic(BOB)], topic(1_500_000n)),
        log(
          PERMIT2,
          [T.permit2Approval, topic(ALICE), topic(TOKEN), topic(BOB)],
          encodeAbiParameters([{ type: 'uint160' }, { type: 'uint48' }], [2n ** 160n - 1n, 1]),
        ),
        log(BOB, [T.approval, topic(ALICE), topic(TOKEN)], topic(2n ** 256n - 1n)),
      ],
      ALICE,
    )
    const report = effectsReport(effects, ALICE, 'eth_simulateV1', book, { limit: 16, omitted: 0 })
    if (!report.available) throw new Error('effects unavailable')
    expect(report.approvalChanges.map((a) => a.display)).toEqual([
      'unlimited USDC',
      // One below the maximum is a real number: shown exactly, grouped.
      `${groupedUnits(2n ** 256n - 2n, 6)} USDC`,
      '1.5 USDC',
      'unlimited USDC',
      // A token whose symbol could not be read: still unlimited, not 78 digits.
      'unlimited',
    ])
  })

  it('summarizes what goes out first, raw when units are unknown', () => {
    const asset = {
      standard: 'erc20' as const,
      token: TOKEN as `0x${string}`,
      tokenId: null,
      symbol: null,
      decimals: null,
    }
    expect(
      summarize([
        { asset, direction: 'in', amount: '3', display: null },
        { asset, direction: 'out', amount: '2', display: '2 X' },
      ]),
    ).toBe(`- 2 X, + 3 (raw units) of ${TOKEN}`)
  })
})
