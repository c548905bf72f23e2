import { describe, expect, it } from 'vitest'
import { decodeCalldata } from '../../src/domain/calldata/decode-calldata.js'
import {
  ADDRESSES_OF_INTEREST_LIMIT,
  addressesOfInterest,
  STANDARD_PROBE_LIMIT,
  standardProbeTargets,
} from '../../src/domain/screen/addresses-of-interest.js'
import type { TransactionInput } from '../../src/domain/screen/context.js'
import {
  EMPTY,
  EOA,
  encode,
  encodeSig,
  MULTICALL3,
  SAFE,
  SENDER,
  SPENDER_CONTRACT,
  TOKEN,
  ZERO,
} from './fixtures.js'

function list(tx: TransactionInput): string[] {
  return addressesOfInterest(tx, decodeCalldata(tx.data, tx.to))
}

const lower = (a: string) => a.toLowerCase()

describe('addressesOfInterest', () => {
  it('starts with the target and the sender, lower-case', () => {
    expect(list({ from: SENDER, to: EOA, data: '0x', value: 1n })).toEqual([
      lower(EOA),
      lower(SENDER),
    ])
  })

  it('adds spenders, operators, pull-transfer recipients, owners, implementations and admins', () => {
    const cases: [string, string][] = [
      [encode('approve', [SPENDER_CONTRACT, 1n]), SPENDER_CONTRACT],
      [encode('setApprovalForAll', [EOA, true]), EOA],
      [encodeSig('transferFrom(address,address,uint256)', [SAFE, EOA, 1n]), EOA],
      [encode('transferOwnership', [EOA]), EOA],
      [encode('upgradeTo', [EMPTY]), EMPTY],
      [encode('changeAdmin', [EOA]), EOA],
    ]
    for (const [data, expected] of cases) {
      expect(list({ from: SENDER, to: TOKEN, data: data as `0x${string}`, value: 0n })).toEqual([
        lower(TOKEN),
        lower(SENDER),
        lower(expected),
      ])
    }
  })

  it('does not ask for plain transfer recipients (no rule needs their code)', () => {
    expect(
      list({ from: SENDER, to: TOKEN, data: encode('transfer', [EOA, 1n]), value: 0n }),
    ).toEqual([lower(TOKEN), lower(SENDER)])
  })

  it('walks nested calls in order and deduplicates', () => {
    const data = encode('aggregate3', [
      [
        { target: TOKEN, allowFailure: false, callData: encode('approve', [EOA, 1n]) },
        { target: SAFE, allowFailure: false, callData: encode('approve', [EOA, 1n]) },
        { target: ZERO, allowFailure: false, callData: '0x' },
      ],
    ])
    expect(list({ from: SENDER, to: MULTICALL3, data, value: 0n })).toEqual([
      lower(MULTICALL3),
      lower(SENDER),
      lower(TOKEN),
      lower(EOA),
      lower(SAFE),
    ])
  })

  it('is bounded', () => {
    const calls = Array.from({ length: 60 }, (_, i) => ({
      target: `0x${(i + 1).toString(16).padStart(40, 'a')}` as `0x${string}`,
      allowFailure: false,
      callData: encode('approve', [`0x${(i + 1).toString(16).padStart(40, 'b')}`, 1n]),
    }))
    const data = encode('aggregate3', [calls])
    const out = list({ from: SENDER, to: MULTICALL3, data, value: 0n })
    expect(out).toHaveLength(ADDRESSES_OF_INTEREST_LIMIT)
    expect(new Set(out).size).toBe(out.length)
    expect(list({ from: SENDER, to: MULTICALL3, data, value: 0n })).toEqual(out)
  })
})

describe('standardProbeTargets', () => {
  const probe = (tx: TransactionInput) => standardProbeTargets(tx, decodeCalldata(tx.data, tx.to))

  it('lists the targets of approve(address,uint256), the selector ERC-20 and ERC-721 share', () => {
    expect(
      probe({ from: SENDER, to: TOKEN, data: encode('approve', [EOA, 0n]), value: 0n }),
    ).toEqual([lower(TOKEN)])
    const data = encode('aggregate3', [
      [
        { target: SAFE, allowFailure: false, callData: encode('approve', [EOA, 5n]) },
        { target: TOKEN, allowFailure: false, callData: encode('approve', [EOA, 1n]) },
        { target: SAFE, allowFailure: false, callData: encode('approve', [SPENDER_CONTRACT, 2n]) },
        // Clearing (spender zero) is a revoke for both standards: nothing to probe.
        { target: EMPTY, allowFailure: false, callData: encode('approve', [ZERO, 2n]) },
      ],
    ])
    expect(probe({ from: SENDER, to: MULTICALL3, data, value: 0n })).toEqual([
      lower(SAFE),
      lower(TOKEN),
    ])
  })

  it('ignores calls whose standard is not in doubt', () => {
    for (const data of [
      encode('increaseAllowance', [EOA, 0n]),
      encode('setApprovalForAll', [EOA, true]),
      encode('transfer', [EOA, 1n]),
      encodeSig('approve(address,address,uint160,uint48)', [TOKEN, EOA, 1n, 1]),
    ]) {
      expect(probe({ from: SENDER, to: TOKEN, data, value: 0n })).toEqual([])
    }
  })

  it('is bounded', () => {
    const calls = Array.from({ length: 40 }, (_, i) => ({
      target: `0x${(i + 1).toString(16).padStart(40, 'a')}` as `0x${string}`,
      allowFailure: false,
      callData: encode('approve', [EOA, 0n]),
    }))
    const out = probe({
      from: SENDER,
      to: MULTICALL3,
      data: encode('aggregate3', [calls]),
      value: 0n,
    })
    expect(out).toEqual(calls.slice(0, STANDARD_PROBE_LIMIT).map((c) => c.target))
  })
})
