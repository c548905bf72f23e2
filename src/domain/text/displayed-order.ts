import type { Bidi } from 'bidi-js'
import * as bidiJs from 'bidi-js'

/** The Unicode Bidirectional Algorithm (UAX #9), as bidi-js implements it; built on first use. */
let bidi: Bidi | undefined

/**
 * bidi-js's factory. Its types declare an ES default export, but its `main` is a UMD script
 * whose `module.exports` is the factory itself, which Node's ES import hands over as the
 * namespace's default (esbuild's bundle and vitest do the same).
 */
function makeBidi(): Bidi {
  const factory: unknown = bidiJs.default
  if (typeof factory !== 'function') throw new Error('bidi-js exports no factory')
  // cast: checked callable above; the package's own declaration gives its result type.
  return (factory as () => Bidi)()
}

/**
 * `text` in the order a screen draws it, left to right, in a paragraph of `direction`: the
 * Unicode Bidirectional Algorithm's levels and reordering (UAX #9, rule L2), explicit
 * overrides, embeddings and isolates included. `\u202eCDSU` (a right-to-left override, then
 * `CDSU`) is drawn `USDC`; plain left-to-right text comes back as it is. Controls stay in
 * place (they draw nothing); mirrored brackets are not swapped.
 *
 * @example
 * displayedOrder('\u202eCDSU', 'ltr').replace('\u202e', '') // 'USDC'
 */
export function displayedOrder(text: string, direction: 'ltr' | 'rtl'): string {
  bidi ??= makeBidi()
  const levels = bidi.getEmbeddingLevels(text, direction)
  const units = text.split('')
  for (const [start = 0, end = -1] of bidi.getReorderSegments(text, levels)) {
    const flipped = units.slice(start, end + 1).reverse()
    units.splice(start, flipped.length, ...flipped)
  }
  // Reordering works on UTF-16 units: a surrogate pair it reversed is put back in order.
  return units.join('').replace(/([\uDC00-\uDFFF])([\uD800-\uDBFF])/g, '$2$1')
}
