import { encodeAbiParameters, type Hex, parseAbiParameters } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  addressLikeWords,
  GUESS_LIMITS,
  guessedAddresses,
} from '../../src/domain/calldata/guessed-addresses.js'

const A = '0x1111111111111111111111111111111111111111'
const B = '0x2222222222222222222222222222222222222222'
const C = '0x3333333333333333333333333333333333333333'
const call = (types: string, values: readonly unknown[]): Hex =>
  `0x5eed0001${encodeAbiParameters(parseAbiParameters(types), values as never).slice(2)}`
const word = (n: number) => n.toString(16).padStart(64, '0')

describe('guessedAddresses (the layout of calldata no module decodes)', () => {
  it('names a plain address argument by its position, not an amount', () => {
    expect(guessedAddresses(call('uint256, address', [10n ** 18n, A]))).toEqual([
      { path: 'arg1', address: A },
    ])
  })

  it('names addresses inside arrays and tuples, with their paths', () => {
    const data = call('address, (address, uint256)[], bytes', [
      A,
      [
        [B, 5n],
        [C, 6n],
      ],
      '0x1234',
    ])
    expect(guessedAddresses(data)).toEqual([
      { path: 'arg0', address: A },
      { path: 'arg1[0].0', address: B },
      { path: 'arg1[1].0', address: C },
    ])
  })

  it('skips router placeholders and precompiles, and calldata without arguments', () => {
    expect(
      guessedAddresses(call('address, address', ['0x0000000000000000000000000000000000000002', A])),
    ).toEqual([{ path: 'arg1', address: A }])
    expect(guessedAddresses('0x5eed0001')).toEqual([])
  })

  it('scans the address-like words the guess could name, without a layout', () => {
    const data = call('address, (address, uint256)[], uint256', [A, [[B, 5n]], 10n ** 18n])
    expect([...addressLikeWords(data)].sort()).toEqual([A, B])
    for (const { address } of guessedAddresses(data)) {
      expect(addressLikeWords(data).has(address.toLowerCase())).toBe(true)
    }
  })

  it('does not guess at hostile layouts: too long, or too many offset-like words', () => {
    const long = call('address, bytes', [A, `0x${'ab'.repeat(GUESS_LIMITS.maxCalldataBytes)}`])
    expect(guessedAddresses(long)).toEqual([])
    // 31 words, 8 of them offsets into the data: 4 s of the guesser's CPU when guessed.
    const words = 31
    const hostile = Array.from({ length: words }, (_, i) =>
      i < 16 && i % 2 === 0 ? word(32 * (words - 1 - i)) : word(1),
    )
    const started = performance.now()
    expect(guessedAddresses(`0x12345678${hostile.join('')}`)).toEqual([])
    expect(performance.now() - started).toBeLessThan(50)
  })
})
