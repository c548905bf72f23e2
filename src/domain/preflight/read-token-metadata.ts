import {
  type Address,
  decodeAbiParameters,
  encodeFunctionData,
  type Hex,
  hexToString,
  parseAbi,
} from 'viem'
import type { TokenMetadata } from '../effects/token-amount.js'
import { escapeHidden } from '../text/hidden-characters.js'
import type { BlockRef, CallRequest, ChainReader, SimulatedCall } from './chain-reader.js'

/**
 * Most tokens whose `symbol`/`decimals` one preflight reads (riding in the wave's simulation for
 * tokens the calldata names, in a second wave for tokens only execution revealed). Tokens beyond
 * it show raw amounts; the answer says how many.
 */
export const TOKEN_METADATA_LIMIT = 16

const ABI = parseAbi([
  'function symbol() view returns (string)',
  'function name() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
])
const SYMBOL = encodeFunctionData({ abi: ABI, functionName: 'symbol' })
const NAME = encodeFunctionData({ abi: ABI, functionName: 'name' })
const DECIMALS = encodeFunctionData({ abi: ABI, functionName: 'decimals' })
const TOTAL_SUPPLY = encodeFunctionData({ abi: ABI, functionName: 'totalSupply' })
const ZERO: Address = '0x0000000000000000000000000000000000000000'
/** A symbol longer than this, or with control characters, is not shown: it is someone's trick. */
const MAX_SYMBOL_CHARS = 32
/** Longest symbol or name kept as claimed (for the impersonation check), in code points. */
const MAX_CLAIMED_CHARS = 64

const STRING_RESULT = [{ type: 'string' }] as const
/** An ABI-encoded string: its offset word and its length word at least. */
const MIN_STRING_HEX = 2 + 2 * 64
/** The offset word of a lone ABI string as every compiler writes it: 32. */
const STRING_OFFSET_WORD = `${'0'.repeat(62)}20`
const UTF8 = new TextDecoder()

/**
 * A lone ABI-encoded string in its usual layout (offset 32, the length word, the bytes), read
 * directly: what viem's `decodeAbiParameters` gives for it (held equal in
 * test/preflight/token-metadata.test.ts), without its byte copy of the whole answer and its
 * cursor. Undefined for any other layout, which viem then decodes.
 */
function plainStringOf(data: Hex): string | undefined {
  if (data.length % 2 !== 0 || data.slice(2, 66) !== STRING_OFFSET_WORD) return undefined
  // A length beyond 32 bits is no plain string: viem decides.
  if (!/^0{56}$/.test(data.slice(66, 122))) return undefined
  const length = Number.parseInt(data.slice(122, 130), 16)
  if (length > (data.length - MIN_STRING_HEX) / 2) return undefined
  return UTF8.decode(Buffer.from(data.slice(MIN_STRING_HEX, MIN_STRING_HEX + 2 * length), 'hex'))
}

/** The string a `symbol()`/`name()` answer holds (ABI string or bytes32), undecodable: undefined. */
function textOf(data: Hex): string | undefined {
  let text: string | undefined
  if (data.length >= MIN_STRING_HEX) {
    text = plainStringOf(data)
    if (text !== undefined) return text
    try {
      text = decodeAbiParameters(STRING_RESULT, data)[0]
    } catch {
      // Not a string: no symbol.
    }
  } else if (data.length === 66) {
    // Some old tokens (MKR) return bytes32. (Decoding one word as a string fails, or gives ''
    // for the zero word, which the bytes32 reading gives too: no decode attempt is needed.)
    text = hexToString(data).replace(/\0+$/, '')
  }
  // Anything shorter cannot hold a string (an EOA answers `0x`): not worth a thrown error each.
  return text
}

/**
 * The symbol as shown in amounts: short, free of control and spacing characters, and with every
 * other hidden character (bidi controls, zero-width and format characters) written as its
 * escape (`\u202E`), so an answer never draws `\u202eCDSU` as `USDC`.
 */
function symbolOf(text: string | undefined): string | null {
  if (text === undefined || text.length === 0 || text.length > MAX_SYMBOL_CHARS) return null
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  return /[\u0000-\u001f\u007f-\u009f\s]/.test(text) ? null : escapeHidden(text)
}

function decimalsOf(data: Hex): number | null {
  if (data.length !== 66) return null
  const value = BigInt(data)
  return value <= 77n ? Number(value) : null
}

/** One word read as a supply; anything else (a revert, `0x`, a longer answer) is unreadable. */
function supplyOf(data: Hex | undefined): bigint | undefined {
  return data !== undefined && data.length === 66 ? BigInt(data) : undefined
}

/** A symbol or name as the token claims it, cut to {@link MAX_CLAIMED_CHARS} code points. */
function claimedOf(text: string | undefined): string | null {
  return text === undefined || text.length === 0
    ? null
    : [...text].slice(0, MAX_CLAIMED_CHARS).join('')
}

/** The metadata fields in the order {@link metadataCalls} asks for them. */
function metadataOf(
  symbol: Hex | undefined,
  decimals: Hex | undefined,
  supply: Hex | undefined,
  name: Hex | undefined,
): TokenMetadata {
  const symbolText = symbol === undefined ? undefined : textOf(symbol)
  const meta: TokenMetadata = {
    symbol: symbol === undefined ? null : symbolOf(symbolText),
    decimals: decimals === undefined ? null : decimalsOf(decimals),
    claimed: {
      symbol: claimedOf(symbolText),
      name: claimedOf(name === undefined ? undefined : textOf(name)),
    },
  }
  const totalSupply = supplyOf(supply)
  if (totalSupply !== undefined) meta.totalSupply = totalSupply
  return meta
}

/**
 * The `symbol()`, `decimals()`, `totalSupply()` and `name()` calls of each token, in that order,
 * from the zero address (the supply tells an allowance above it is unlimited in effect; symbol
 * and name, as claimed, tell a copy of a listed token).
 */
export function metadataCalls(tokens: readonly Address[]): CallRequest[] {
  return tokens.flatMap((to) => [
    { from: ZERO, to, data: SYMBOL, value: 0n },
    { from: ZERO, to, data: DECIMALS, value: 0n },
    { from: ZERO, to, data: TOTAL_SUPPLY, value: 0n },
    { from: ZERO, to, data: NAME, value: 0n },
  ])
}

/** Calls {@link metadataCalls} makes per token. */
const CALLS_PER_TOKEN = 4

/** Metadata from the simulated results of {@link metadataCalls}; a failed call is `null`. */
export function metadataFromResults(
  tokens: readonly Address[],
  results: readonly SimulatedCall[],
): Map<string, TokenMetadata> {
  const data = (i: number): Hex | undefined => {
    const c = results[i]
    return c?.status === 'success' ? c.returnData : undefined
  }
  return new Map(
    tokens.map((token, i) => [
      token.toLowerCase(),
      metadataOf(
        data(CALLS_PER_TOKEN * i),
        data(CALLS_PER_TOKEN * i + 1),
        data(CALLS_PER_TOKEN * i + 2),
        data(CALLS_PER_TOKEN * i + 3),
      ),
    ]),
  )
}

/**
 * `symbol` and `decimals` of each token at the pinned block, keyed by lower-case address. A
 * revert or odd answer is `null`, never a failure; RPC trouble throws (503) like every read.
 * With `viaSimulate` (the node answered `eth_simulateV1` already) every read rides in one
 * `eth_simulateV1` request (view calls change no state, so each sees the pinned block's);
 * otherwise four `eth_call`s per token, in parallel.
 */
export async function readTokenMetadata(
  chain: ChainReader,
  tokens: readonly Address[],
  at: BlockRef,
  viaSimulate = false,
): Promise<Map<string, TokenMetadata>> {
  if (tokens.length === 0) return new Map()
  if (viaSimulate) {
    const calls = metadataCalls(tokens)
    const simulated = await chain.simulate(calls, at)
    if (simulated.available) return metadataFromResults(tokens, simulated.calls)
  }
  const ask = async (to: Address, data: Hex): Promise<Hex | undefined> => {
    const outcome = await chain.call({ from: ZERO, to, data, value: 0n }, at)
    return outcome.status === 'success' ? outcome.returnData : undefined
  }
  const read = await Promise.all(
    tokens.map(async (token): Promise<TokenMetadata> => {
      const [symbol, decimals, supply, name] = await Promise.all([
        ask(token, SYMBOL),
        ask(token, DECIMALS),
        ask(token, TOTAL_SUPPLY),
        ask(token, NAME),
      ])
      return metadataOf(symbol, decimals, supply, name)
    }),
  )
  return new Map(tokens.map((token, i) => [token.toLowerCase(), read[i] as TokenMetadata]))
}
