import type { Address } from 'viem'
import type { SimulatedLog } from '../preflight/chain-reader.js'
import type { PositionChange } from '../preflight/position-reads.js'
import type { ReceivedTokenFacts, SellLoss } from '../tokens/token-facts.js'
import { type ApprovalChange, type Asset, type AssetMove, decodeLogs } from './decode-logs.js'

/** One account's net change in one asset (negative: it lost). */
export interface NetChange {
  asset: Asset
  delta: bigint
}

/** An account whose holdings changed, with its non-zero net changes in a fixed order. */
export interface AccountChanges {
  account: Address
  changes: NetChange[]
}

/** What executing one call (or a whole bundle) did, as the screen reads it. */
export interface ExecutionEffects {
  moves: AssetMove[]
  approvals: ApprovalChange[]
  /** Accounts with a non-zero net change: the sender first, then by address. */
  net: AccountChanges[]
  /**
   * Positions a protocol keeps in storage that the transaction changed (read before and after
   * it in the same simulation); absent when none was read or none changed.
   */
  positions?: PositionChange[]
  /**
   * Facts on each ERC-20 the sender receives (lists, sellability, taxes); absent when it
   * receives none.
   */
  receivedTokens?: ReceivedTokenFacts[]
  /** Tokens the sender sells that lose part of what it sends on the way; absent when none. */
  sellLosses?: SellLoss[]
}

const STANDARD_ORDER: Record<Asset['standard'], number> = {
  eth: 0,
  erc20: 1,
  erc721: 2,
  erc1155: 3,
}

/** A stable key for an asset: `eth`, `erc20:0x…`, `erc721:0x…:42`. Lower-case. */
export function assetKey(asset: Asset): string {
  switch (asset.standard) {
    case 'eth':
      return 'eth'
    case 'erc20':
      return `erc20:${asset.token.toLowerCase()}`
    default:
      return `${asset.standard}:${asset.token.toLowerCase()}:${asset.tokenId}`
  }
}

/** Orders assets ETH, ERC-20, ERC-721, ERC-1155, then by token address and id. */
export function compareAssets(a: Asset, b: Asset): number {
  const byStandard = STANDARD_ORDER[a.standard] - STANDARD_ORDER[b.standard]
  if (byStandard !== 0) return byStandard
  if (a.standard === 'eth' || b.standard === 'eth') return 0
  const ta = a.token.toLowerCase()
  const tb = b.token.toLowerCase()
  if (ta !== tb) return ta < tb ? -1 : 1
  const ia = 'tokenId' in a ? a.tokenId : 0n
  const ib = 'tokenId' in b ? b.tokenId : 0n
  return ia < ib ? -1 : ia > ib ? 1 : 0
}

/**
 * Net changes per account over the moves, deterministic: the sender first, then accounts by
 * lower-case address, each account's assets by {@link compareAssets}. Zero nets are dropped.
 */
export function netChanges(moves: readonly AssetMove[], sender: Address): AccountChanges[] {
  const byAccount = new Map<string, { account: Address; assets: Map<string, NetChange> }>()
  const add = (account: Address, asset: Asset, delta: bigint): void => {
    const key = account.toLowerCase()
    let entry = byAccount.get(key)
    if (!entry) {
      entry = { account, assets: new Map() }
      byAccount.set(key, entry)
    }
    const k = assetKey(asset)
    const change = entry.assets.get(k) ?? { asset, delta: 0n }
    change.delta += delta
    entry.assets.set(k, change)
  }
  for (const move of moves) {
    // A move to oneself changes nothing.
    if (move.from.toLowerCase() === move.to.toLowerCase()) continue
    add(move.from, move.asset, -move.amount)
    add(move.to, move.asset, move.amount)
  }
  const me = sender.toLowerCase()
  const accounts = [...byAccount.entries()]
    .map(([key, { account, assets }]) => ({
      key,
      account,
      changes: [...assets.values()]
        .filter((c) => c.delta !== 0n)
        .sort((a, b) => compareAssets(a.asset, b.asset)),
    }))
    .filter((a) => a.changes.length > 0)
    .sort((a, b) => (a.key === me ? -1 : b.key === me ? 1 : a.key < b.key ? -1 : 1))
  return accounts.map(({ account, changes }) => ({ account, changes }))
}

/** The effects of logs emitted in order (one call's, or every call's of a bundle). */
export function executionEffects(logs: readonly SimulatedLog[], sender: Address): ExecutionEffects {
  const { moves, approvals } = decodeLogs(logs)
  return { moves, approvals, net: netChanges(moves, sender) }
}

/** The sender's net changes (empty when nothing of the sender's changed). */
export function senderChanges(effects: ExecutionEffects, sender: Address): NetChange[] {
  const me = sender.toLowerCase()
  return effects.net.find((a) => a.account.toLowerCase() === me)?.changes ?? []
}

/** The ERC-20 tokens the sender gains net (in the order of its changes, the asset order). */
export function receivedTokens(effects: ExecutionEffects, sender: Address): Address[] {
  return senderChanges(effects, sender).flatMap((c) =>
    c.asset.standard === 'erc20' && c.delta > 0n ? [c.asset.token] : [],
  )
}

/** ERC-20 tokens whose metadata the report and findings want, in first-seen order. */
export function effectTokens(effects: ExecutionEffects): Address[] {
  const seen = new Set<string>()
  const out: Address[] = []
  const add = (token: Address) => {
    const key = token.toLowerCase()
    if (seen.has(key)) return
    seen.add(key)
    out.push(token)
  }
  for (const account of effects.net) {
    for (const change of account.changes)
      if (change.asset.standard === 'erc20') add(change.asset.token)
  }
  for (const approval of effects.approvals) {
    if (approval.kind === 'erc20' || approval.kind === 'permit2') add(approval.token)
  }
  return out
}
