import fc from 'fast-check'
import { bytesToHex, decodeAbiParameters, encodeAbiParameters, type Hex, stringToHex } from 'viem'
import { describe, expect, it } from 'vitest'
import type { SimulatedCall } from '../../src/domain/preflight/chain-reader.js'
import { metadataFromResults } from '../../src/domain/preflight/read-token-metadata.js'

/**
 * What a token's `symbol()` answer becomes, for every shape a contract (or an account without
 * code) can answer: the ABI string, MKR's bytes32, nothing, and the tricks a symbol may play.
 */
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const ok = (returnData: Hex): SimulatedCall => ({
  status: 'success',
  returnData,
  gasUsed: 21_000n,
  logs: [],
})
const word = (n: bigint) => encodeAbiParameters([{ type: 'uint256' }], [n])
const symbolOf = (returnData: Hex) =>
  metadataFromResults([TOKEN], [ok(returnData), ok(word(6n)), ok(word(10n ** 12n))]).get(
    TOKEN.toLowerCase(),
  )?.symbol

describe('token symbol', () => {
  it('reads an ABI string', () => {
    expect(symbolOf(encodeAbiParameters([{ type: 'string' }], ['USDC']))).toBe('USDC')
  })

  it("reads a bytes32 symbol (MKR's), without its padding", () => {
    expect(symbolOf(stringToHex('MKR', { size: 32 }))).toBe('MKR')
  })

  it('gives null for no answer, the zero word, short or odd data and non-strings', () => {
    expect(symbolOf('0x')).toBeNull()
    expect(symbolOf(word(0n))).toBeNull()
    expect(symbolOf('0x1234')).toBeNull()
    expect(symbolOf(`0x${'00'.repeat(40)}`)).toBeNull()
    // Two words that are no string: an offset pointing past the data.
    expect(symbolOf(`${word(1000n)}${word(4n).slice(2)}` as Hex)).toBeNull()
  })

  it('refuses an empty, over-long or control-character symbol', () => {
    const encoded = (s: string) => encodeAbiParameters([{ type: 'string' }], [s])
    expect(symbolOf(encoded(''))).toBeNull()
    expect(symbolOf(encoded('X'.repeat(33)))).toBeNull()
    expect(symbolOf(encoded('X'.repeat(32)))).toBe('X'.repeat(32))
    expect(symbolOf(encoded('US\u0000DC'))).toBeNull()
    expect(symbolOf(encoded('US DC'))).toBeNull()
    expect(symbolOf(stringToHex('M\nR', { size: 32 }))).toBeNull()
  })

  it('reads decimals, supply and the name beside the symbol; a revert is null', () => {
    const [meta] = metadataFromResults(
      [TOKEN],
      [
        { status: 'failure', revertData: '0x', message: 'execution reverted', gasUsed: 0n },
        ok(word(6n)),
        ok(word(5n)),
        ok(encodeAbiParameters([{ type: 'string' }], ['USD Coin'])),
      ],
    ).values()
    expect(meta).toEqual({
      symbol: null,
      decimals: 6,
      totalSupply: 5n,
      claimed: { symbol: null, name: 'USD Coin' },
    })
  })

  it('keeps the symbol and name as claimed, invisible characters and all, for the look-alike check', () => {
    const encoded = (s: string) => encodeAbiParameters([{ type: 'string' }], [s])
    const [meta] = metadataFromResults(
      [TOKEN],
      [ok(encoded('US DC')), ok(word(6n)), ok(word(5n)), ok(encoded(`US\u200bD${'C'.repeat(80)}`))],
    ).values()
    // The display symbol refuses the space; the claimed one keeps it (cut to 64 code points).
    expect(meta?.symbol).toBeNull()
    expect(meta?.claimed).toEqual({
      symbol: 'US DC',
      name: `US\u200bD${'C'.repeat(60)}`,
    })
  })

  it("reads an ABI string as viem's decodeAbiParameters does, for any answer", () => {
    const viemText = (data: Hex) => {
      try {
        return decodeAbiParameters([{ type: 'string' }], data)[0]
      } catch {
        return undefined
      }
    }
    const hexWord = (n: bigint) => word(n).slice(2)
    // Well-formed strings (any code points, invalid UTF-8 bytes too), then layouts that are
    // not: other offsets, lengths past the data, extra words, odd lengths, upper-case digits.
    const answer = fc.oneof(
      fc
        .string({ unit: 'binary', maxLength: 80 })
        .map((t) => encodeAbiParameters([{ type: 'string' }], [t])),
      fc
        .uint8Array({ maxLength: 90 })
        .map((b) => encodeAbiParameters([{ type: 'bytes' }], [bytesToHex(b)])),
      fc
        .tuple(
          fc.oneof(
            fc.constant(32n),
            fc.bigInt({ min: 0n, max: 200n }),
            fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
          ),
          fc.oneof(fc.bigInt({ min: 0n, max: 120n }), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })),
          fc.uint8Array({ maxLength: 130 }),
          fc.constantFrom('', '0', 'ab'),
          fc.boolean(),
        )
        .map(([offset, length, bytes, tail, upper]) => {
          const body = `${hexWord(offset)}${hexWord(length)}${bytesToHex(bytes).slice(2)}${tail}`
          return `0x${upper ? body.toUpperCase() : body}` as Hex
        }),
    )
    // The name as claimed: the decoded text, cut to 64 code points; null when there is none.
    const claimedName = (data: Hex) =>
      metadataFromResults([TOKEN], [ok('0x'), ok('0x'), ok('0x'), ok(data)]).get(
        TOKEN.toLowerCase(),
      )?.claimed?.name
    fc.assert(
      fc.property(answer, (data) => {
        const text = viemText(data)
        expect(claimedName(data)).toBe(text ? [...text].slice(0, 64).join('') : null)
      }),
      { numRuns: 3000 },
    )
  })
})
