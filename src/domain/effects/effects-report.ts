import type {
  AccountReport,
  ApprovalReport,
  AssetReport,
  ChangeReport,
  EffectsReport,
} from '@pre-send-guard/client/schemas'
import { type Address, maxUint160, maxUint256 } from 'viem'
import type { OwnerPower } from '../tokens/owner-powers.js'
import type { ApprovalChange, Asset } from './decode-logs.js'
import type { AccountChanges, ExecutionEffects, NetChange } from './execution-effects.js'
import { groupedUnits, humanAmount, type TokenBook, type TokenMetadata } from './token-amount.js'

// The `effects` answer shapes are declared with the other answers, in the client package's
// schemas; this module builds them.
export type {
  AccountReport,
  ApprovalReport,
  AssetReport,
  ChangeReport,
  EffectsReport,
} from '@pre-send-guard/client/schemas'

import { POSITION_FIELD_KINDS } from '../protocols/protocol-module.js'

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
    display: a.amount === 'all' || a.kind === 'erc721' ? null : allowanceDisplay(a, meta),
  }
}

/**
 * An allowance in units a person reads. The largest value the allowance can hold (uint256 for
 * an ERC-20, uint160 for Permit2) is what wallets call unlimited: it is shown as `unlimited
 * USDC` (or `unlimited` when the symbol is unreadable), never as a 78-digit number.
 */
function allowanceDisplay(a: ApprovalChange, meta: TokenMetadata | undefined): string | null {
  if (a.amount === 'all') return null
  if (a.amount === maxUint256 || (a.kind === 'permit2' && a.amount === maxUint160)) {
    return meta?.symbol ? `unlimited ${meta.symbol}` : 'unlimited'
  }
  return humanAmount(a.amount, meta)
}

/**
 * The `effects` field for one transaction (or a bundle's net, with the bundle's first sender).
 * Each ERC-20 the sender gains net (`effects.receivedTokens`, which the preflight sets) is listed
 * in `receivedTokens` with the lists that carry it, its sell and tax facts (null where not
 * measured) and the owner powers its code shows (from `powers`, lower-case keys; null where its
 * code was not read). When the sender gains no ERC-20, the field is absent.
 */
export function effectsReport(
  effects: ExecutionEffects,
  sender: Address,
  source: 'eth_simulateV1' | 'debug_traceCall',
  book: TokenBook,
  tokenMetadata: { limit: number; omitted: number },
  powers?: ReadonlyMap<string, readonly OwnerPower[]>,
): EffectsReport {
  const assetChanges = accountReports(effects.net, sender, book)
  const mine = assetChanges.find((a) => a.isSender)?.changes ?? []
  const positions = effects.positions ?? []
  const received = effects.receivedTokens ?? []
  return {
    available: true,
    source,
    assetChanges,
    approvalChanges: effects.approvals.map((a) => approvalReport(a, sender, book)),
    senderNet: { changes: mine, summary: summarize(mine) },
    tokenMetadata,
    ...(positions.length > 0
      ? {
          positionChanges: positions.map((p) => ({
            protocol: p.protocol,
            contract: p.contract,
            market: p.market,
            account: p.account,
            isSender: p.account.toLowerCase() === sender.toLowerCase(),
            field: p.field,
            kind: POSITION_FIELD_KINDS[p.field],
            before: p.before.toString(),
            after: p.after.toString(),
          })),
        }
      : {}),
    ...(received.length > 0
      ? {
          receivedTokens: received.map((f) => {
            const shown = powers?.get(f.token.toLowerCase())
            return {
              token: f.token,
              listed: [...f.listed],
              sellable: f.sellable,
              taxBps: { ...f.taxBps },
              ownerPowers: shown === undefined ? null : [...shown],
            }
          }),
        }
      : {}),
  }
}
