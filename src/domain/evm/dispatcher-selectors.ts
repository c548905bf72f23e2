import type { Hex } from 'viem'

const PUSH1 = 0x60
const PUSH3 = 0x62
const PUSH4 = 0x63
const PUSH32 = 0x7f
const EQ = 0x14
const DUP2 = 0x81

/** What {@link readDispatcher} found in runtime code. */
export interface DispatcherFacts {
  /** Function selectors the dispatcher compares `msg.sig` with (`0x` and 8 hex digits, lower-case), in code order. */
  selectors: readonly Hex[]
  /** Every 32-byte constant the code pushes (`PUSH32`), lower-case: storage slots, hashes. */
  words: ReadonlySet<Hex>
}

/**
 * The selectors of a solc dispatcher in `code` and the 32-byte constants it pushes, read from
 * the bytecode alone: a selector is a `PUSH4` immediately compared (`EQ`, or `DUP2` then `EQ`),
 * or a `PUSH3` so compared (solc drops a selector's leading zero byte: `0x00fdd58e` is pushed as
 * `PUSH3 0xfdd58e`). The
 * same rule as the EIP-7702 delegate probe's `_selectors` (contracts/DelegateProbe.sol), which
 * runs on chain inside the probe's simulation; this one runs on code the preflight already read.
 * Push data is skipped, so an opcode-shaped byte inside a constant is not taken for an opcode.
 * A contract that dispatches otherwise (a proxy delegating everything, Vyper's jump tables) shows
 * few or none.
 *
 * @example readDispatcher('0x...63a9059cbb14...').selectors // ['0xa9059cbb']
 */
export function readDispatcher(code: Hex): DispatcherFacts {
  // Buffer's hex decoding stops at the first byte that is not hex: malformed code is cut
  // short, never a throw.
  const bytes = Buffer.from(code.slice(2), 'hex')
  const length = bytes.length
  const hexOf = (start: number, end: number) => bytes.toString('hex', start, end)
  const selectors: Hex[] = []
  const seen = new Set<string>()
  const words = new Set<Hex>()
  for (let i = 0; i < length; i++) {
    const op = bytes[i] as number
    if (op < PUSH1 || op > PUSH32) continue
    const size = op - PUSH1 + 1
    if (op >= PUSH3 && op <= PUSH4 && i + size + 1 < length) {
      const next = bytes[i + size + 1]
      const compared = next === EQ || (next === DUP2 && bytes[i + size + 2] === EQ)
      if (compared) {
        // Buffer's hex is hex digits: `0x` and them is `Hex` by construction.
        const selector: Hex = `0x${hexOf(i + 1, i + 1 + size).padStart(8, '0')}`
        if (!seen.has(selector)) {
          seen.add(selector)
          selectors.push(selector)
        }
      }
    } else if (op === PUSH32 && i + size < length) {
      words.add(`0x${hexOf(i + 1, i + 33)}`)
    }
    i += size
  }
  return { selectors, words }
}
