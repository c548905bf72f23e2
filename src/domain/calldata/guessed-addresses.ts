import { guessAbiEncodedData } from '@openchainxyz/abi-guesser'
import {
  type AbiParameter,
  type Address,
  decodeAbiParameters,
  type Hex,
  parseAbiParameters,
} from 'viem'
import { checksummed } from '../evm/checksummed.js'

/** An address argument of calldata no module decodes, found in its guessed layout. */
export interface GuessedAddress {
  /** Where it sits: `arg2`, `arg1[0].0` (the n-th argument, array items, tuple components). */
  path: string
  address: Address
}

/**
 * Bounds on guessing. The guesser tries every word that could be an offset, so its cost grows
 * fast with them on hostile calldata (measured: 4 KB of offset-like words took 2.7 s of CPU; 1 KB
 * with 8 of them 4.2 s, with 6 0.3 s, with at most 4 at most 60 ms): calldata longer than
 * `maxCalldataBytes`, or with more offset-like words than `maxOffsetWords`, is not guessed at,
 * and at most `maxCalls` calls of one transaction are. At most `maxAddresses` addresses are named.
 */
export const GUESS_LIMITS = {
  maxCalldataBytes: 1024,
  maxOffsetWords: 4,
  maxCalls: 4,
  maxAddresses: 16,
} as const

/**
 * Addresses below this are router placeholders (`address(1)`, `address(2)`) and precompiles,
 * not accounts anyone holds.
 */
const SMALLEST_ACCOUNT = 2n ** 32n

/**
 * The address arguments of calldata whose function no protocol module knows, at any depth:
 * `@openchainxyz/abi-guesser` recovers the argument layout from the bytes (static words,
 * offsets, arrays, tuples, a word with 12 to 17 leading zero bytes taken for an address), viem
 * decodes them with it. Empty when the calldata is too long, has no arguments or no layout fits.
 *
 * @example guessedAddresses(deposit(1e18, 0xRecipient)) // [{ path: 'arg1', address: '0xRecipient' }]
 */
export function guessedAddresses(data: Hex): GuessedAddress[] {
  if (data.length < 10 + 64 || (data.length - 2) / 2 > GUESS_LIMITS.maxCalldataBytes) return []
  const args: Hex = `0x${data.slice(10)}`
  if (offsetLikeWords(args) > GUESS_LIMITS.maxOffsetWords) return []
  let params: readonly AbiParameter[]
  let values: readonly unknown[]
  try {
    const guessed = guessAbiEncodedData(args)
    if (guessed === null || guessed.length === 0) return []
    params = parseAbiParameters(guessed.map((p) => p.format('sighash')).join(','))
    values = decodeAbiParameters(params, args)
  } catch {
    // No layout the guesser and the decoder agree on: nothing is named.
    return []
  }
  const out: GuessedAddress[] = []
  params.forEach((param, i) => {
    collect(param, values[i], `arg${i}`, out)
  })
  return out.slice(0, GUESS_LIMITS.maxAddresses)
}

/**
 * The words of the arguments the guesser would take for an address (12 to 17 leading zero bytes,
 * not a placeholder), lower-case: every address {@link guessedAddresses} can name is among them,
 * so a caller that knows all of them already skips the guess (a cheap scan, no layout).
 */
export function addressLikeWords(data: Hex): Set<string> {
  const out = new Set<string>()
  if ((data.length - 2) / 2 > GUESS_LIMITS.maxCalldataBytes) return out
  for (let at = 10; at + 64 <= data.length; at += 64) {
    const word = data.slice(at, at + 64).toLowerCase()
    const zeros = /^0*/.exec(word)?.[0].length ?? 0
    if (zeros < 24 || zeros > 35) continue
    const address = `0x${word.slice(24)}`
    if (BigInt(address) >= SMALLEST_ACCOUNT) out.add(address)
  }
  return out
}

/** Words (of the arguments) that could be an offset into them: a non-zero multiple of 32 inside. */
function offsetLikeWords(args: Hex): number {
  const bytes = (args.length - 2) / 2
  let count = 0
  for (let at = 2; at + 64 <= args.length; at += 64) {
    const word = args.slice(at, at + 64)
    // Offsets are small: anything wider than 4 bytes is no offset into at most 1 KB.
    if (!/^0{56}/.test(word)) continue
    const value = Number.parseInt(word.slice(56), 16)
    if (value > 0 && value % 32 === 0 && value < bytes) count++
  }
  return count
}

function collect(param: AbiParameter, value: unknown, path: string, out: GuessedAddress[]): void {
  if (out.length >= GUESS_LIMITS.maxAddresses) return
  const array = /^(.*)\[\d*\]$/.exec(param.type)
  if (array !== null && Array.isArray(value)) {
    const item = { ...param, type: array[1] ?? '' } as AbiParameter
    value.forEach((v, k) => {
      collect(item, v, `${path}[${k}]`, out)
    })
    return
  }
  if (param.type === 'tuple' && 'components' in param && Array.isArray(value)) {
    param.components.forEach((component, j) => {
      collect(component, (value as readonly unknown[])[j], `${path}.${j}`, out)
    })
    return
  }
  if (param.type === 'address' && typeof value === 'string' && BigInt(value) >= SMALLEST_ACCOUNT) {
    out.push({ path, address: checksummed(value) })
  }
}
