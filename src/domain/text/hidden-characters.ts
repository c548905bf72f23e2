/**
 * Characters a reader does not see for what they are: bidi controls (which reorder what
 * follows them), other format characters (Unicode category Cf: zero-width spaces and joiners,
 * soft hyphens, invisible tag letters), the rest of the default-ignorable code points (variation
 * selectors, Hangul fillers), control characters, private-use, unassigned and lone surrogate
 * code points, and every space but the plain one. Any of these in a token's symbol or name, a
 * revert string or a domain name can make the text read as something it is not.
 */
const HIDDEN = /[\p{Cf}\p{Cc}\p{Co}\p{Cn}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Z}]/u
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/
const PICTOGRAPH = /\p{Extended_Pictographic}/u
/** An emoji modifier (skin tone) or a variation selector, between a pictograph and a joiner. */
const EMOJI_TAIL = /^(?:\p{Emoji_Modifier}|\uFE0E|\uFE0F)$/u

/** The bidi controls by code point, named as Unicode names them. */
const BIDI_CONTROLS: Readonly<Record<number, string>> = {
  1564: 'ARABIC LETTER MARK',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
}

/** Names of the other hidden characters seen most in lures. */
const NAMED: Readonly<Record<number, string>> = {
  173: 'SOFT HYPHEN',
  847: 'COMBINING GRAPHEME JOINER',
  8203: 'ZERO WIDTH SPACE',
  8204: 'ZERO WIDTH NON-JOINER',
  8205: 'ZERO WIDTH JOINER',
  8288: 'WORD JOINER',
  12644: 'HANGUL FILLER',
  65279: 'ZERO WIDTH NO-BREAK SPACE',
}

/** One hidden character found in a text. */
export interface HiddenCharacter {
  /** `U+202E`. */
  codePoint: string
  /** `RIGHT-TO-LEFT OVERRIDE`, or what kind of character it is when unnamed here. */
  name: string
  /** A bidi control: it reorders the text around it. */
  bidi: boolean
}

/** `U+202E`, `U+E0041`: at least four upper-case hex digits. */
function codePointOf(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`
}

/** `\u202E`, or `\u{E0041}` beyond the Basic Multilingual Plane: as a JSON reader would write it. */
function escapeOf(cp: number): string {
  const hex = cp.toString(16).toUpperCase()
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`
}

function kindOf(char: string, cp: number): string {
  if (/\p{Cc}/u.test(char)) return 'control character'
  if (/\p{Co}/u.test(char)) return 'private-use character'
  if (/\p{Cs}/u.test(char)) return 'lone surrogate'
  if (/\p{Cn}/u.test(char)) return 'unassigned code point'
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'invisible tag character'
  if (/\p{Z}|\s/u.test(char)) return 'space other than U+0020'
  if (/\p{Cf}/u.test(char)) return 'invisible format character'
  return 'default-ignorable character'
}

/**
 * Whether the hidden character at `index` of `chars` belongs to an emoji as drawn: a variation
 * selector or a zero-width joiner right after a pictograph (or its skin tone), the joiner also
 * right before one (👨‍💻, ❤️), and a keycap's selector (1️⃣). These draw one visible picture and
 * hide no letter.
 */
function partOfEmoji(chars: readonly string[], index: number): boolean {
  const char = chars[index]
  if (char !== '\u200d' && char !== '\ufe0e' && char !== '\ufe0f') return false
  // A keycap: a digit, `#` or `*`, a variation selector, the combining enclosing keycap.
  if (char !== '\u200d' && chars[index + 1] === '\u20e3')
    return /^[0-9#*]$/.test(chars[index - 1] ?? '')
  let before = index - 1
  while (before >= 0 && char === '\u200d' && EMOJI_TAIL.test(chars[before] ?? '')) before--
  if (!PICTOGRAPH.test(chars[before] ?? '')) return false
  return char !== '\u200d' || PICTOGRAPH.test(chars[index + 1] ?? '')
}

/** Whether the code point at `index` of `chars` is hidden (an emoji's own joiners are not). */
function hiddenAt(chars: readonly string[], index: number): boolean {
  const char = chars[index] ?? ''
  // U+0020 is the one space a reader sees as a space.
  return char !== ' ' && HIDDEN.test(char) && !partOfEmoji(chars, index)
}

/**
 * The hidden characters of `text`, each once, in order of first appearance.
 *
 * @example
 * hiddenCharacters('\u202eCDSU') // [{ codePoint: 'U+202E', name: 'RIGHT-TO-LEFT OVERRIDE', bidi: true }]
 */
export function hiddenCharacters(text: string): HiddenCharacter[] {
  // Printable ASCII hides nothing (U+0020 is the space a reader sees): most symbols and names.
  if (PRINTABLE_ASCII.test(text)) return []
  const chars = [...text]
  const seen = new Map<number, HiddenCharacter>()
  chars.forEach((char, index) => {
    const cp = char.codePointAt(0) ?? 0
    if (seen.has(cp) || !hiddenAt(chars, index)) return
    const bidi = BIDI_CONTROLS[cp]
    seen.set(cp, {
      codePoint: codePointOf(cp),
      name: bidi ?? NAMED[cp] ?? kindOf(char, cp),
      bidi: bidi !== undefined,
    })
  })
  return [...seen.values()]
}

/**
 * `text` with every hidden character written as its escape (`\u202E`, `\u{E0041}`), so a person
 * or an agent reading the JSON or a page sees each one where it is; the rest is kept as it is.
 * An emoji's own joiners and variation selectors are kept (they hide nothing).
 *
 * @example
 * escapeHidden('\u202eCDSU') // '\\u202ECDSU'
 */
export function escapeHidden(text: string): string {
  if (!HIDDEN.test(text)) return text
  const chars = [...text]
  return chars
    .map((char, index) => (hiddenAt(chars, index) ? escapeOf(char.codePointAt(0) ?? 0) : char))
    .join('')
}

/** Whether `text` holds a hidden character at all (cheaper than {@link hiddenCharacters}). */
export function hasHidden(text: string): boolean {
  if (!HIDDEN.test(text)) return false
  const chars = [...text]
  return chars.some((_, index) => hiddenAt(chars, index))
}
