import type { Address } from 'viem'
import type { ApprovalChange, Asset } from './decode-logs.js'
import type { AccountChanges, ExecutionEffects, NetChange } from './execution-effects.js'
import { groupedUnits, humanAmount, type TokenBook } from './token-amount.js'

/** An asset as answered: JSON-safe, with the token's metadata when it was read. */
export interface AssetReport {
  standard: Asset['standard']
  /** Null for ETH. */
  token: Address | null
  /** Decimal string for ERC-721/1155, null otherwise. */
  tokenId: string | null
  symbol: string | null
  decimals: number | null
}

/** One net change of one account in one asset. */
export interface ChangeReport {
  asset: AssetReport
  direction: 'in' | 'out'
  /** Raw amount (wei, token base units, or the ERC-1155 amount), decimal string, never negative. */
  amount: string
  /** `1,250.5 USDC`, `0.5 ETH`, `token id 7`; null when the token's units are not known. */
  display: string | null
}

/** One account's changes. */
export interface AccountReport {
  account: Address
  isSender: boolean
  changes: ChangeReport[]
}

/** One approval emitted. `amount` is `all` for operator grants; for ERC-721 it is `1` (see `tokenId`). */
export interface ApprovalReport {
  kind: ApprovalChange['kind']
  token: Address
  owner: Address
  spender: Address
  amount: string
  tokenId: string | null
  expiration: string | null
  revoke: boolean
  ownerIsSender: boolean
  via: ApprovalChange['via']
  display: string | null
}

/** The `effects` field of an answer. */
export type EffectsReport =
  | {
      available: true
      source: 'eth_simulateV1' | 'debug_traceCall'
      assetChanges: AccountReport[]
      approvalChanges: ApprovalReport[]
      /** The sender's net change: what an agent reads first. */
      senderNet: { changes: ChangeReport[]; summary: string }
      /** Token metadata reads: at most `limit` tokens per answer; `omitted` were not read. */
      tokenMetadata: { limit: number; omitted: number }
    }
  | { available: false; reason: string }

const ETH_META = { symbol: 'ETH', decimals: 18 }

function assetReport(asset: Asset, book: TokenBook): AssetReport {
  if (asset.standard === 'eth') {
    return { standard: 'eth', token: null, tokenId: null, ...ETH_META }
  }
  const meta = book.get(asset.token.toLowerCase())
  return {
    standard: asset.standard,
    token: asset.token,
    tokenId: asset.standard === 'erc20' ? null : asset.tokenId.toString(),
    symbol: meta?.symbol ?? null,
    decimals: asset.standard === 'erc20' ? (meta?.decimals ?? null) : null,
  }
}

function display(asset: Asset, amount: bigint, book: TokenBook): string | null {
  switch (asset.standard) {
    case 'eth':
      return `${groupedUnits(amount, 18)} ETH`
    case 'erc20':
      return humanAmount(amount, book.get(asset.token.toLowerCase()))
    case 'erc721': {
      const symbol = book.get(asset.token.toLowerCase())?.symbol
      return `token id ${asset.tokenId}${symbol ? ` ${symbol}` : ''}`
    }
    case 'erc1155':
      return `${amount} of id ${asset.tokenId}`
  }
}

function changeReport(change: NetChange, book: TokenBook): ChangeReport {
  const amount = change.delta < 0n ? -change.delta : change.delta
  return {
    asset: assetReport(change.asset, book),
    direction: change.delta < 0n ? 'out' : 'in',
    amount: amount.toString(),
    display: display(change.asset, amount, book),
  }
}

/**
 * `- 100 EFT, + 100 VSH`: what goes out first, then what comes in (each in asset order); raw
 * amounts with the token address when units are unknown.
 */
export function summarize(changes: readonly ChangeReport[]): string {
  if (changes.length === 0) return 'no change'
  const ordered = [
    ...changes.filter((c) => c.direction === 'out'),
    ...changes.filter((c) => c.direction === 'in'),
  ]
  return ordered
    .map((c) => {
      const what = c.display ?? `${c.amount} (raw units) of ${c.asset.token ?? 'ETH'}`
      return `${c.direction === 'out' ? '-' : '+'} ${what}`
    })
    .join(', ')
}

/** Account changes as answered, in the (already deterministic) order of `net`. */
export function accountReports(
  net: readonly AccountChanges[],
  sender: Address,
  book: TokenBook,
): AccountReport[] {
  const me = sender.toLowerCase()
  return net.map((a) => ({
    account: a.account,
    isSender: a.account.toLowerCase() === me,
    changes: a.changes.map((c) => changeReport(c, book)),
  }))
}

function approvalReport(a: ApprovalChange, sender: Address, book: TokenBook): ApprovalReport {
  const meta = book.get(a.token.toLowerCase())
  return {
    kind: a.kind,
    token: a.token,
    owner: a.owner,
    spender: a.spender,
    amount: a.amount === 'all' ? 'all' : a.amount.toString(),
    tokenId: a.tokenId === undefined ? null : a.tokenId.toString(),
    expiration: a.expiration === undefined ? null : a.expiration.toString(),
    revoke: a.revoke,
    ownerIsSender: a.owner.toLowerCase() === sender.toLowerCase(),
    via: a.via,
    display: a.amount === 'all' || a.kind === 'erc721' ? null : humanAmount(a.amount, meta),
  }
}

/** The `effects` field for one transaction (or a bundle's net, with the bundle's first sender). */
export function effectsReport(
  effects: ExecutionEffects,
  sender: Address,
  source: 'eth_simulateV1' | 'debug_traceCall',
  book: TokenBook,
  tokenMetadata: { limit: number; omitted: number },
): EffectsReport {
  const assetChanges = accountReports(effects.net, sender, book)
  const mine = assetChanges.find((a) => a.isSender)?.changes ?? []
  return {
    available: true,
    source,
    assetChanges,
    approvalChanges: effects.approvals.map((a) => approvalReport(a, sender, book)),
    senderNet: { changes: mine, summary: summarize(mine) },
    tokenMetadata,
  }
}
