/** Markdown cut to a budget, with the counts a reader of the evidence needs. */
export interface BoundedText {
  text: string
  truncated: boolean
  /** Code points of the whole (normalised) text before the cut. */
  originalChars: number
  /** Code points of `text`. */
  returnedChars: number
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/**
 * Makes text safe to return and hash: lone surrogates become U+FFFD (as `toWellFormed` does;
 * `Buffer.from` would do the same silently, `JSON.stringify` would not), and CRLF/CR become LF
 * so the hash does not depend on the page's line-ending convention.
 */
export function normaliseText(input: string): string {
  // In `u` mode a surrogate pair is one code point, so \p{Surrogate} matches only lone halves.
  return input.replace(/\p{Surrogate}/gu, '\uFFFD').replace(/\r\n?/g, '\n')
}

/** Counts Unicode code points (a surrogate pair is one). Expects well-formed text. */
export function countCodePoints(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) i++
    count++
  }
  return count
}

/** The UTF-16 index just past the first `codePoints` code points (or the text's length). */
function indexAfterCodePoints(text: string, codePoints: number): number {
  let index = 0
  for (let n = 0; n < codePoints && index < text.length; n++) {
    const unit = text.charCodeAt(index)
    index += unit >= 0xd800 && unit <= 0xdbff ? 2 : 1
  }
  return Math.min(index, text.length)
}

/**
 * Normalises `input` and cuts it to at most `maxChars` Unicode code points. The cut prefers a
 * paragraph break, then a line break, then a space within the last tenth of the budget, else the
 * budget itself; trailing whitespace left by a cut is dropped, and the end is then moved back to
 * a grapheme cluster boundary of the whole text, so a cut never splits a surrogate pair, an
 * emoji sequence, a flag or a base letter from its accents. (A single cluster longer than the
 * whole window, such as "Zalgo" text, is dropped whole rather than split.)
 *
 * @example boundText('one\n\ntwo', 5) // { text: 'one', truncated: true, originalChars: 8, returnedChars: 3 }
 */
export function boundText(input: string, maxChars: number): BoundedText {
  const text = normaliseText(input)
  const originalChars = countCodePoints(text)
  if (originalChars <= maxChars) {
    return { text, truncated: false, originalChars, returnedChars: originalChars }
  }
  const hardEnd = indexAfterCodePoints(text, maxChars)
  const windowStart = indexAfterCodePoints(text, maxChars - Math.max(1, Math.floor(maxChars / 10)))
  const preferred =
    boundaryAt(text.lastIndexOf('\n\n', hardEnd), windowStart) ??
    boundaryAt(text.lastIndexOf('\n', hardEnd), windowStart) ??
    lastSpace(text, windowStart, hardEnd) ??
    hardEnd
  const cut = text.slice(0, settleCut(text, preferred))
  return { text: cut, truncated: true, originalChars, returnedChars: countCodePoints(cut) }
}

function boundaryAt(index: number, windowStart: number): number | undefined {
  return index > 0 && index >= windowStart ? index : undefined
}

function lastSpace(text: string, windowStart: number, hardEnd: number): number | undefined {
  for (let i = hardEnd; i > windowStart; i--) {
    const unit = text.charCodeAt(i)
    if (unit === 0x20 || unit === 0x09) return i
  }
  return undefined
}

/** Drops trailing whitespace and steps back to a grapheme boundary until both hold. */
function settleCut(text: string, end: number): number {
  for (;;) {
    let trimmed = end
    // `\s` is exactly the set `trimEnd` removes.
    while (trimmed > 0 && /\s/.test(text.charAt(trimmed - 1))) trimmed--
    const boundary = lastGraphemeBoundary(text, trimmed)
    if (boundary === trimmed) return trimmed
    end = boundary
  }
}

/**
 * The last grapheme cluster boundary at or before `index`. Grapheme rules look backwards (a
 * regional indicator pairs with the one before it, an emoji ZWJ sequence joins what precedes it),
 * so segmenting from an arbitrary position mis-pairs flags: segmentation starts from the nearest
 * position that is certainly a boundary and runs a little past `index`.
 */
function lastGraphemeBoundary(text: string, index: number): number {
  if (index <= 0 || index >= text.length || isCertainBoundary(text, index)) return index
  let from = index - 1
  while (!isCertainBoundary(text, from)) from--
  const upTo = Math.min(text.length, index + 64)
  let last = from
  for (const { index: at } of segmenter.segment(text.slice(from, upTo))) {
    if (from + at > index) break
    last = from + at
  }
  return last
}

/**
 * Whether a grapheme cluster boundary is certain at `i` without segmenting: the start of the text,
 * after a LF (GB4) or before one not preceded by CR (GB5), or between two "simple" characters.
 */
function isCertainBoundary(text: string, i: number): boolean {
  if (i <= 0) return true
  const before = text.charCodeAt(i - 1)
  const at = text.charCodeAt(i)
  if (before === 0x0a || (at === 0x0a && before !== 0x0d)) return true
  return isSimple(before) && isSimple(at)
}

/**
 * UTF-16 units of characters that no grapheme rule joins to a following or preceding one from
 * this same set (Grapheme_Cluster_Break Other, LV or LVT; not Prepend, Extend, SpacingMark,
 * Extended_Pictographic, a regional indicator or an Indic consonant): printable ASCII, kana, CJK
 * ideographs and precomposed Hangul syllables. Between two of them there is always a break (GB999).
 */
function isSimple(unit: number): boolean {
  return (
    (unit >= 0x20 && unit <= 0x7e) ||
    (unit >= 0x3041 && unit <= 0x3096) ||
    (unit >= 0x30a1 && unit <= 0x30fa) ||
    (unit >= 0x3400 && unit <= 0x4dbf) ||
    (unit >= 0x4e00 && unit <= 0x9fff) ||
    (unit >= 0xac00 && unit <= 0xd7a3)
  )
}
