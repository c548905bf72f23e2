import { lowerHex } from '@pre-send-guard/client/types'
import { type Address, type Hex, zeroAddress } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import type { ApprovalChange, Asset } from '../effects/decode-logs.js'
import { assetKey, type ExecutionEffects, senderChanges } from '../effects/execution-effects.js'
import { type TokenBook, tokenAmountText } from '../effects/token-amount.js'
import type { ApprovalEffect } from '../protocols/declared-effects.js'
import { recogniseCode } from '../protocols/known-code.js'
import type { KnownKind } from '../protocols/protocol-module.js'
import { catalogued, counterpartyAccounts, isOwnBeneficiary } from './beneficiary-effects.js'
import { knownCallSite } from './call-args.js'
import { callEffects, effectsOfSites } from './call-effects.js'
import { type CallSite, callSites, hasCalldata } from './call-sites.js'
import type { ScreenContext, TransactionInput } from './context.js'

/** The execution effects when the simulation succeeded and was seen; else undefined. */
export function seenEffects(ctx: ScreenContext): ExecutionEffects | undefined {
  if (ctx.execution?.available !== true || ctx.call.status !== 'success') return undefined
  return ctx.execution.effects
}

/**
 * Where the calldata says value goes: the target of a call without calldata (a plain ETH send,
 * at top level or nested)
 * and the recipient of every transfer the decoded calldata makes, and the vault an ERC-4626
 * `deposit`/`mint` pays its assets into (its receiver is judged by `output-to-third-party`, so
 * the same deposit is not a drain as well). Lower-case.
 */
export function declaredRecipients(sites: readonly CallSite[]): Set<string> {
  const out = new Set<string>()
  // Plain ETH sends at any depth (an `aggregate3Value` item without calldata pays its target).
  for (const site of sites) {
    if (site.kind !== 'command' && !hasCalldata(site)) out.add(site.target.toLowerCase())
  }
  for (const { site, effect } of effectsOfSites(sites, 'transfers')) {
    out.add(effect.to.toLowerCase())
    if (effect.output === 'vault') {
      out.add(site.target.toLowerCase())
    }
  }
  return out
}

/**
 * Recipients the calldata declares ({@link declaredRecipients}) and the counterparties of the
 * trades it makes (Seaport's offerer and consideration recipients: paying them is the price of
 * what the sender receives). Lower-case.
 */
export function acceptedRecipients(sites: readonly CallSite[]): Set<string> {
  const out = declaredRecipients(sites)
  for (const site of sites) {
    const known = knownCallSite(site)
    if (known) for (const a of counterpartyAccounts(known)) out.add(a.toLowerCase())
  }
  return out
}

/**
 * True when the transaction is an action of recognised protocol code credited to the sender:
 * the top-level target is known code that keeps accounts (an OP-stack predeploy, WETH or a
 * catalogued lending, bridge or position protocol at its canonical address or with its code hash,
 * or a known router that pays the sender something back,
 * `src/domain/protocols/known-code.ts`), and every beneficiary a catalogued call names is the
 * sender or the account making that call. Then where the sender's assets go inside the protocol
 * (an aToken, a message passer, a pool) is the protocol's accounting, and what comes back is a
 * claim the logs need not show (a Morpho position, an L1 withdrawal, a repaid debt).
 */
export function creditedProtocolAction(
  tx: TransactionInput,
  sites: readonly CallSite[],
  codes: ReadonlyMap<string, Hex>,
  effects: ExecutionEffects,
): boolean {
  const root = recogniseCode(tx.to, codes.get(tx.to.toLowerCase()))
  if (root === undefined) return false
  // Only code whose own accounting returns what it takes; a known router when the sender does
  // get something back (its inputs went to pools; a swap paying someone else stays a drain).
  // Multicall3, MultiSend, Permit2 and the EntryPoints run whatever calls they are given: the
  // rules judge them as they are.
  const credits =
    CREDITING_KINDS.has(root.kind) ||
    (ROUTER_KINDS.has(root.kind) && senderChanges(effects, tx.from).some((c) => c.delta > 0n))
  // What the sender asked of a protocol must be actions the catalogue knows (or a plain value
  // send, a bridge's `receive`): a function it does not know (a flash loan with a receiver, say)
  // may hand the sender's assets to anyone, and gets no credit. A router's calls are all read.
  const asked = ROUTER_KINDS.has(root.kind) || askedOfCatalogue(sites)
  return (
    credits &&
    asked &&
    sites.every((site) =>
      callEffects(site).beneficiaries.every((b) => isOwnBeneficiary(b, site, tx)),
    )
  )
}

/**
 * The transaction asks only catalogued actions: a plain value send, a catalogued call, or a
 * container (`multicall`) whose every call is catalogued.
 */
function askedOfCatalogue(sites: readonly CallSite[]): boolean {
  const [root, ...nested] = sites
  if (root === undefined) return false
  if (!hasCalldata(root)) return true
  const isCatalogued = (site: CallSite) => {
    const known = knownCallSite(site)
    return known !== undefined && catalogued(known) !== undefined
  }
  if (isCatalogued(root)) return true
  return nested.length > 0 && nested.every(isCatalogued)
}

/** Known code whose accounting credits the caller for what it takes (see creditedProtocolAction). */
const CREDITING_KINDS: ReadonlySet<KnownKind> = new Set(['weth', 'op-predeploy', 'protocol'])
/** Known routers: credited only when the sender receives something back. */
const ROUTER_KINDS: ReadonlySet<KnownKind> = new Set(['router', 'universal-router'])

/** `token:spender` keys (lower-case) of every approval the decoded calldata shows. */
function declaredApprovals(sites: readonly CallSite[]): Set<string> {
  const out = new Set<string>()
  for (const { effect } of effectsOfSites(sites, 'approvals')) {
    out.add(`${effect.token.toLowerCase()}:${effect.spender.toLowerCase()}`)
  }
  return out
}

/**
 * Grants of the sender's assets emitted during execution that the decoded calldata does not
 * show (same token and spender), in log order: the hidden approvals. Revokes are left out.
 */
export function hiddenApprovals(
  effects: ExecutionEffects | undefined,
  sender: Address,
  sites: readonly CallSite[],
): ApprovalChange[] {
  if (effects === undefined) return []
  const declared = declaredApprovals(sites)
  const me = sender.toLowerCase()
  const seen = new Set<string>()
  return effects.approvals.filter((a) => {
    if (a.revoke || a.owner.toLowerCase() !== me) return false
    // An ERC-20 `Approval` with the remaining allowance that a called contract emits by spending
    // it (OpenZeppelin 4, Aave aTokens) records an allowance being used, not granted.
    if (a.kind === 'erc20' && spendsAllowance(effects, sites, a, me)) return false
    const key = `${a.token.toLowerCase()}:${a.spender.toLowerCase()}`
    if (declared.has(key) || seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** The approval's spender is a contract the transaction calls and the token left the owner. */
function spendsAllowance(
  effects: ExecutionEffects,
  sites: readonly CallSite[],
  a: ApprovalChange,
  owner: string,
): boolean {
  const token = a.token.toLowerCase()
  const spender = a.spender.toLowerCase()
  return (
    sites.some((site) => site.target.toLowerCase() === spender) &&
    effects.moves.some(
      (m) =>
        m.asset.standard === 'erc20' &&
        m.asset.token.toLowerCase() === token &&
        m.from.toLowerCase() === owner,
    )
  )
}

/** A hidden approval in the calldata approvals' shape, so the approval rules judge it alike. */
export function asApprovalEffect(a: ApprovalChange): ApprovalEffect {
  const via = `${a.via} event during execution (not in the calldata)`
  const effect: ApprovalEffect = {
    kind: a.kind,
    token: a.token,
    spender: a.spender,
    byCaller: true,
    revoke: a.revoke,
    via,
  }
  if (a.amount !== 'all' && a.kind !== 'erc721') effect.amount = a.amount
  if (a.tokenId !== undefined) effect.tokenId = a.tokenId
  if (a.expiration !== undefined) effect.expiration = a.expiration
  return effect
}

/** `250 EFT (… raw units) of token 0x…`, `1.5 ETH`, `token id 7 of collection 0x…`. */
export function describeAsset(asset: Asset, amount: bigint, book: TokenBook | undefined): string {
  switch (asset.standard) {
    case 'eth':
      return `${tokenAmountText(amount, 'eth', new Map([['eth', { symbol: 'ETH', decimals: 18 }]]))}`
    case 'erc20':
      return `${tokenAmountText(amount, asset.token, book)} of token ${asset.token}`
    case 'erc721':
      return `token id ${asset.tokenId} of collection ${asset.token}`
    case 'erc1155':
      return `${amount} of id ${asset.tokenId} of ${asset.token}`
  }
}

/** One asset the sender lost, and the accounts that ended up with it (net gainers). */
export interface SenderLoss {
  asset: Asset
  amount: bigint
  gainers: { account: Address; amount: bigint }[]
}

/** What the sender lost, asset by asset, with who gained each (the sender excluded). */
export function senderLosses(effects: ExecutionEffects, sender: Address): SenderLoss[] {
  const me = sender.toLowerCase()
  return senderChanges(effects, sender)
    .filter((c) => c.delta < 0n)
    .map((c) => {
      const key = assetKey(c.asset)
      const gainers = effects.net.flatMap((account) => {
        if (account.account.toLowerCase() === me) return []
        const change = account.changes.find((x) => assetKey(x.asset) === key && x.delta > 0n)
        return change === undefined ? [] : [{ account: account.account, amount: change.delta }]
      })
      return { asset: c.asset, amount: -c.delta, gainers }
    })
}

/**
 * The addresses whose code the effect rules will consult: net gainers of what the sender lost
 * that the calldata does not declare (`assets-to-no-code-recipient`) and spenders of approvals
 * the calldata does not show (`approval-to-eoa` on hidden approvals). Lower-case, deduplicated,
 * in a fixed order.
 */
export function effectAddresses(
  effects: ExecutionEffects,
  tx: TransactionInput,
  decoded: DecodedCall,
  codes: ReadonlyMap<string, Hex>,
): Address[] {
  const sites = callSites(tx, decoded)
  const declared = acceptedRecipients(sites)
  const out = new Set<Address>()
  // A credited action of known protocol code: its internal flows are not judged (no code read).
  const losses = creditedProtocolAction(tx, sites, codes, effects)
    ? []
    : senderLosses(effects, tx.from)
  for (const loss of losses) {
    for (const g of loss.gainers) {
      const key = lowerHex(g.account)
      if (!declared.has(key) && key !== zeroAddress) out.add(key)
    }
  }
  for (const a of hiddenApprovals(effects, tx.from, sites)) out.add(lowerHex(a.spender))
  return [...out]
}
