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
 * paragraph break, then a line break, then a space within the last tenth of the budget; failing
 * those it falls on a grapheme boundary, so it never splits a surrogate pair, an emoji sequence
 * or a base letter from its accents. Trailing whitespace left by a cut is dropped.
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
  const end =
    boundaryAt(text.lastIndexOf('\n\n', hardEnd), windowStart) ??
    boundaryAt(text.lastIndexOf('\n', hardEnd), windowStart) ??
    lastSpace(text, windowStart, hardEnd) ??
    graphemeBoundary(text, windowStart, hardEnd)
  const cut = text.slice(0, end).trimEnd()
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

/** The last grapheme boundary in (windowStart, hardEnd]; `hardEnd` itself if none is found. */
function graphemeBoundary(text: string, windowStart: number, hardEnd: number): number {
  // Look a little past the cut so the segmenter sees the cluster that straddles it.
  const lookahead = Math.min(text.length, hardEnd + 64)
  let best: number | undefined
  for (const { index } of segmenter.segment(text.slice(windowStart, lookahead))) {
    const at = windowStart + index
    if (at > hardEnd) break
    if (at > windowStart) best = at
  }
  // One cluster longer than the window (e.g. "Zalgo" text): a code-point cut is still well-formed.
  return best ?? hardEnd
}
