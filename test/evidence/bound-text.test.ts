import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { boundText, countCodePoints, normaliseText } from '../../src/domain/evidence/bound-text.js'
import { sha256Hex } from '../../src/domain/evidence/hash-text.js'

// Any code point, lone surrogates included, with newlines and spaces common enough to matter.
const codePoint = fc.oneof(
  fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
  fc.constantFrom('\n', '\n\n', '\r\n', ' ', '😀', '👨‍👩‍👧', '🇯🇵', '漢', '𠀀', 'é', 'e\u0301'),
)
const text = fc.array(codePoint, { maxLength: 800 }).map((parts) => parts.join(''))

describe('boundText', () => {
  it('returns a well-formed prefix of the normalised text within the budget', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 900 }), (input, max) => {
        const normal = normaliseText(input)
        const out = boundText(input, max)
        expect(out.text).not.toMatch(/\p{Surrogate}/u)
        expect(normal.startsWith(out.text)).toBe(true)
        expect(out.returnedChars).toBe(Array.from(out.text).length)
        expect(out.originalChars).toBe(Array.from(normal).length)
        expect(out.returnedChars).toBeLessThanOrEqual(max)
        expect(out.truncated).toBe(out.originalChars > max)
        if (!out.truncated) expect(out.text).toBe(normal)
      }),
      { numRuns: 2000 },
    )
  })

  it('never ends inside a grapheme cluster of the whole text', () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })
    // Pieces whose clusters span several code points, in runs long enough to straddle any cut.
    const piece = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('🇯🇵', '🇺🇸', '🇩🇪', '🏴󠁧󠁢󠁳󠁣󠁴󠁿') },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          '\u{1F1EF}', // a lone regional indicator shifts the pairing of every flag after it
          '\u{1F1F5}',
        ),
      },
      {
        weight: 3,
        arbitrary: fc.constantFrom('👨‍👩‍👧', '👩🏽‍💻', '🏳️‍🌈', '❤️‍🔥', '\u200d', '\ufe0f'),
      },
      {
        weight: 3,
        arbitrary: fc.constantFrom('e\u0301', '\u0301', '\u0308\u0323', 'ẹ̄́', 'क्षि', 'ᄀ각'),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '漢',
          '字',
          '𠀀',
          '𠀁',
          'テ',
          'ひ',
          '한',
          '하\u11a8',
          '😀',
          '©\ufe0f',
        ),
      },
      {
        weight: 2,
        arbitrary: fc.oneof(
          fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
          fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(' ', '\n', '\n\n', '\r\n', 'a', '\u0600', '\u0600 '),
      },
    )
    const input = fc
      .array(fc.tuple(piece, fc.integer({ min: 1, max: 40 })), { maxLength: 60 })
      .map((runs) => runs.map(([p, n]) => p.repeat(n)).join(''))
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 600 }), (raw, max) => {
        const whole = normaliseText(raw)
        const boundaries = new Set([...segmenter.segment(whole)].map((s) => s.index))
        boundaries.add(whole.length)
        const out = boundText(raw, max)
        expect(whole.startsWith(out.text)).toBe(true)
        expect(out.returnedChars).toBeLessThanOrEqual(max)
        expect(boundaries.has(out.text.length)).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  it('keeps whole flags when a run of flags is cut, whatever its offset', () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })
    for (const prefix of ['', 'a', '🇯', 'x\n']) {
      for (const max of [10, 11, 500, 501, 503]) {
        const text = `${prefix}${'🇯🇵'.repeat(400)}`
        const out = boundText(text, max)
        const boundaries = new Set([...segmenter.segment(text)].map((s) => s.index))
        expect(boundaries.has(out.text.length)).toBe(true)
      }
    }
  })

  it('keeps at least 90% of the budget when the text has no spaces or breaks near the cut', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme-ascii', minLength: 1 }).filter((s) => /^\S+$/.test(s)),
        fc.integer({ min: 10, max: 500 }),
        (unit, max) => {
          const input = unit.repeat(Math.ceil((max * 2) / unit.length))
          const out = boundText(input, max)
          expect(out.returnedChars).toBeGreaterThanOrEqual(Math.floor(max * 0.9))
        },
      ),
    )
  })

  it('counts code points, not UTF-16 units', () => {
    expect(countCodePoints('a😀漢𠀀')).toBe(4)
    expect('a😀漢𠀀'.length).toBe(6)
  })

  it('normalises lone surrogates and line endings', () => {
    expect(normaliseText('a\ud800\r\nb\rc\udfff')).toBe('a\ufffd\nb\nc\ufffd')
  })

  it('hashes the UTF-8 bytes of the text', () => {
    for (const sample of ['', 'abc', 'a😀漢𠀀\n', normaliseText('x\ud800')]) {
      expect(sha256Hex(sample)).toBe(
        createHash('sha256').update(new TextEncoder().encode(sample)).digest('hex'),
      )
    }
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
  })
})
