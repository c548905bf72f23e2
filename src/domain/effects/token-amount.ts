import { formatUnits, maxUint256 } from 'viem'

/** An ERC-20's `symbol` and `decimals` at the pinned block; each `null` when unreadable. */
export interface TokenMetadata {
  symbol: string | null
  decimals: number | null
  /** `totalSupply()` at the pinned block; absent when not read or unreadable. */
  totalSupply?: bigint
  /**
   * `symbol()` and `name()` as the token answers them (control and invisible characters kept,
   * cut to 64 code points; `null` when unreadable): what a copy of a listed token is told by.
   * Absent when not read.
   */
  claimed?: { symbol: string | null; name: string | null }
}

/** Token metadata by lower-case token address; a missing entry means "not read". */
export type TokenBook = ReadonlyMap<string, TokenMetadata>

/** `1250500000` with 6 decimals -> `1,250.5`: exact, never rounded, thousands grouped. */
export function groupedUnits(raw: bigint, decimals: number): string {
  const [whole = '0', fraction] = formatUnits(raw, decimals).split('.')
  const negative = whole.startsWith('-')
  const digits = negative ? whole.slice(1) : whole
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`
}

/** `1,250.5 USDC`, or null when the token's symbol or decimals are not known. */
export function humanAmount(raw: bigint, meta: TokenMetadata | undefined): string | null {
  if (meta === undefined || meta.symbol === null || meta.decimals === null) return null
  return `${groupedUnits(raw, meta.decimals)} ${meta.symbol}`
}

/**
 * An amount of a token for a finding's text: `250 EFT (250000000000000000000 raw units)`,
 * `unlimited USDC (… raw units)` at or above `unlimited` (`unlimited USDC (the maximum uint256)`
 * for 2^256 - 1), or `… (raw units)` when the token's
 * units are not known.
 */
export function tokenAmountText(
  raw: bigint,
  token: string | undefined,
  book: TokenBook | undefined,
  unlimited?: bigint,
): string {
  const meta = token === undefined ? undefined : book?.get(token.toLowerCase())
  const symbol = meta?.symbol ?? null
  if (symbol !== null && unlimited !== undefined && raw >= unlimited) {
    // The 78-digit maximum says nothing a person can read; name it instead.
    return `unlimited ${symbol} (${raw === maxUint256 ? 'the maximum uint256' : `${raw} raw units`})`
  }
  const human = humanAmount(raw, meta)
  return human === null ? `${raw} (raw units)` : `${human} (${raw} raw units)`
}
