import { describe, expect, it } from 'vitest'
import { displayedOrder } from '../../src/domain/text/displayed-order.js'
import {
  escapeHidden,
  hasHidden,
  hiddenCharacters,
} from '../../src/domain/text/hidden-characters.js'
import { lookAlikeMix } from '../../src/domain/text/look-alike-scripts.js'
import listed from '../../src/domain/tokens/listed-tokens.json' with { type: 'json' }
import { impersonationOf } from '../../src/domain/tokens/token-lists.js'

/**
 * What a reader does not see for what it is (issue 37, item 3): bidi controls, invisible and
 * format characters, letters of another script posing as Latin ones; and the order a screen
 * draws a label in. The preflight tests (test/preflight/token-impersonation.test.ts) hold the
 * findings and escapes end to end.
 */

const BIDI = [
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]
const UNLISTED = '0x0000000000000000000000000000000000001234'

describe('hidden characters', () => {
  it('finds nothing in printable ASCII, and only the controls of the rest of ASCII', () => {
    // Each character beside a Latin letter outside ASCII, so the full check runs on it too.
    for (let cp = 0; cp < 0x80; cp++) {
      const char = String.fromCodePoint(cp)
      const expected =
        cp >= 0x20 && cp <= 0x7e ? [] : [expect.objectContaining({ name: 'control character' })]
      expect(hiddenCharacters(`${char}\u00e9`), cp.toString(16)).toEqual(expected)
      expect(hiddenCharacters(`x${char}`), cp.toString(16)).toEqual(expected)
      expect(lookAlikeMix(`${char}\u00e9`), cp.toString(16)).toBeUndefined()
      expect(lookAlikeMix(`\u0405${char}`), cp.toString(16)).toEqual(
        /[A-Za-z]/.test(char)
          ? expect.objectContaining({ scripts: ['Cyrillic', 'Latin'] })
          : undefined,
      )
    }
  })

  it('finds every bidi control, named and marked as such', () => {
    for (const cp of BIDI) {
      const found = hiddenCharacters(`US${String.fromCodePoint(cp)}DC`)
      expect(found, cp.toString(16)).toHaveLength(1)
      expect(found[0]?.bidi).toBe(true)
      expect(found[0]?.codePoint).toBe(`U+${cp.toString(16).toUpperCase().padStart(4, '0')}`)
      expect(found[0]?.name).toMatch(/^[A-Z -]+$/)
    }
  })

  it('finds format, default-ignorable, control, private-use characters and odd spaces', () => {
    const samples: [string, string][] = [
      ['\u200b', 'ZERO WIDTH SPACE'],
      ['\u00ad', 'SOFT HYPHEN'],
      ['\ufeff', 'ZERO WIDTH NO-BREAK SPACE'],
      ['\u{e0041}', 'invisible tag character'],
      ['\u3164', 'HANGUL FILLER'],
      ['\ufe0f', 'default-ignorable character'],
      ['\u0007', 'control character'],
      ['\ue000', 'private-use character'],
      ['\u00a0', 'space other than U+0020'],
    ]
    for (const [char, name] of samples) {
      expect(
        hiddenCharacters(`A${char}B`).map((h) => h.name),
        name,
      ).toEqual([name])
      expect(hasHidden(`A${char}B`)).toBe(true)
    }
    expect(hiddenCharacters('USD Coin')).toEqual([])
    expect(hasHidden('Wrapped Ether (Base)')).toBe(false)
  })

  it("leaves an emoji's own joiners and selectors alone, not a joiner between letters", () => {
    for (const emoji of ['👨‍💻', '❤️', '1️⃣', '👍🏽', '🏳️‍🌈']) {
      expect(hiddenCharacters(`MOON ${emoji}`), emoji).toEqual([])
      expect(escapeHidden(`MOON ${emoji}`)).toBe(`MOON ${emoji}`)
    }
    expect(hiddenCharacters('US\u200dDC').map((h) => h.codePoint)).toEqual(['U+200D'])
    expect(hiddenCharacters('A\ufe0f').map((h) => h.codePoint)).toEqual(['U+FE0F'])
  })

  it('escapes each one where it is, four hex digits or braces beyond the BMP', () => {
    expect(escapeHidden('\u202eCDSU')).toBe('\\u202ECDSU')
    expect(escapeHidden('US\u200bDC\u{e0041}')).toBe('US\\u200BDC\\u{E0041}')
    expect(escapeHidden('plain USDC')).toBe('plain USDC')
  })
})

describe('look-alike scripts', () => {
  it('finds Latin mixed with Cyrillic, Greek or Cherokee letters that pass for Latin ones', () => {
    expect(lookAlikeMix('U\u0405D\u0421')).toEqual({
      scripts: ['Latin', 'Cyrillic'],
      lookAlikes: [
        { letter: '\u0405', codePoint: 'U+0405', script: 'Cyrillic', looksLike: 'S' },
        { letter: '\u0421', codePoint: 'U+0421', script: 'Cyrillic', looksLike: 'C' },
      ],
    })
    expect(lookAlikeMix('\u0391ave')?.scripts).toEqual(['Greek', 'Latin'])
    expect(lookAlikeMix('\u13aaERO')?.lookAlikes[0]?.script).toBe('Cherokee')
  })

  it('accepts one script, and the mixes UTS #39 calls highly restrictive', () => {
    for (const label of [
      'USDC',
      'Рубль',
      'Δelta',
      'ΔETH',
      'ビットコインBTC',
      '中文ETH',
      '한국KRW',
      '0xBTC',
    ]) {
      expect(lookAlikeMix(label), label).toBeUndefined()
    }
  })
})

describe('the pinned token lists', () => {
  it('hold no label token-label-deceptive would flag (no false alarm on a listed token)', () => {
    const labels = listed.tokens.flatMap((t) => [t.symbol, t.name])
    expect(labels.length).toBeGreaterThan(500)
    const flagged = labels.filter((l) => hiddenCharacters(l).length > 0 || lookAlikeMix(l))
    expect(flagged).toEqual([])
  })
})

describe('the order a screen draws a label in', () => {
  it('reverses what a right-to-left override governs, and nothing else', () => {
    expect(displayedOrder('\u202eCDSU', 'ltr')).toBe('\u202eUSDC')
    expect(displayedOrder('US\u202eCD', 'ltr')).toBe('US\u202eDC')
    expect(displayedOrder('\u202eCDSU\u202c coin', 'ltr')).toBe('\u202e\u202cUSDC coin')
    expect(displayedOrder('USDC', 'ltr')).toBe('USDC')
    expect(displayedOrder('USDC', 'rtl')).toBe('USDC')
    // A surrogate pair (a math letter) keeps its two halves in order when reversed.
    expect(displayedOrder('\u202eCD\u{1d412}U', 'ltr')).toBe('\u202eU\u{1d412}DC')
  })

  it('makes a label a copy when its drawn order copies a listed token', () => {
    const copy = impersonationOf(UNLISTED, { symbol: '\u202eCDSU', name: null })
    expect(copy?.copies.symbol).toBe('USDC')
    expect(copy?.drawnAs).toBe('USDC')
    // Stored in order, it is a copy as stored: no drawn form is named.
    expect(impersonationOf(UNLISTED, { symbol: 'USDC', name: null })?.drawnAs).toBeUndefined()
    expect(impersonationOf(UNLISTED, { symbol: '\u202eHTEW', name: null })?.copies.symbol).toBe(
      'WETH',
    )
  })
})
