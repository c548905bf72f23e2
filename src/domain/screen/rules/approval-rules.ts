import { tokenAmountText } from '../../effects/token-amount.js'
import type { ApprovalEffect } from '../../protocols/declared-effects.js'
import { recogniseCode } from '../../protocols/known-code.js'
import { effectsOfSites } from '../call-effects.js'
import type { CallSite } from '../call-sites.js'
import type { ScreenConfig, ScreenContext, TransactionInput } from '../context.js'
import { asApprovalEffect, hiddenApprovals, seenEffects } from '../effect-facts.js'
import {
  codeOf,
  delegateOf,
  heldBy,
  hitAt,
  isKeyAccount,
  type RuleHit,
  type RuleInput,
  type ScreenRule,
} from '../screen-rule.js'

function describe(
  a: ApprovalEffect,
  site: CallSite,
  tx: TransactionInput,
  ctx: ScreenContext,
  unlimited: bigint,
): string {
  return `${grant(a, ctx, unlimited)}${heldBy(a.byCaller, site, tx)}`
}

/**
 * Every approval the rules judge: the decoded calldata's, then those emitted during execution
 * that the calldata does not show (`hidden-approval`), judged alike and located at the top level.
 */
function approvals(ctx: ScreenContext, sites: readonly CallSite[]) {
  // Four rules (five evaluations) judge the same approvals of one screen: derived once.
  const memo = APPROVALS.get(sites)
  if (memo !== undefined && memo.ctx === ctx) return memo.list
  const list = approvalsOf(ctx, sites)
  APPROVALS.set(sites, { ctx, list })
  return list
}

type Approvals = { site: CallSite; effect: ApprovalEffect }[]

/** {@link approvals} of a screen's sites, by the sites' array (one per screened transaction). */
const APPROVALS = new WeakMap<readonly CallSite[], { ctx: ScreenContext; list: Approvals }>()

function approvalsOf(ctx: ScreenContext, sites: readonly CallSite[]): Approvals {
  const root = sites[0]
  const hidden =
    root === undefined
      ? []
      : hiddenApprovals(seenEffects(ctx), ctx.tx.from, sites).map((a) => ({
          site: root,
          effect: asApprovalEffect(a),
        }))
  return [...effectsOfSites(sites, 'approvals'), ...hidden]
}

function grant(a: ApprovalEffect, ctx: ScreenContext, unlimited: bigint): string {
  const amount = (raw: bigint | undefined) =>
    raw === undefined ? '' : tokenAmountText(raw, a.token, ctx.tokens, unlimited)
  switch (a.kind) {
    case 'operator':
      return `${a.via} gives ${a.spender} every token of collection ${a.token}`
    case 'erc721':
      return `${a.via} lets ${a.spender} take token id ${a.tokenId} of collection ${a.token}`
    case 'erc20-or-erc721':
      if (a.amount === 0n) {
        return `${a.via}(${a.spender}, 0) on ${a.token} revokes an allowance if it is an ERC-20 token, but lets ${a.spender} take token id 0 if it is an ERC-721 (its standard is not known)`
      }
      return `${a.via} lets ${a.spender} spend ${amount(a.amount)} of token ${a.token}`
    default:
      return `${a.via} lets ${a.spender} spend ${amount(a.amount)} of token ${a.token}`
  }
}

/**
 * The token's total supply when an allowance exceeds it (so it is unlimited in effect); only for
 * amounts known to be ERC-20 (an ERC-721 `approve` names a token id, which may exceed a supply).
 */
function supplyAbove(
  ctx: RuleInput['ctx'],
  approval: { kind: string; token: string; amount?: bigint },
): bigint | undefined {
  if (approval.amount === undefined || approval.kind === 'erc721' || approval.kind === 'operator') {
    return undefined
  }
  const key = approval.token.toLowerCase()
  if (approval.kind === 'erc20-or-erc721' && ctx.tokenStandards?.get(key) !== 'erc20') {
    return undefined
  }
  const supply = ctx.tokens?.get(key)?.totalSupply
  return supply !== undefined && supply > 0n && approval.amount > supply ? supply : undefined
}

/** Unlimited or near-unlimited allowance. */
export const unlimitedAllowance: ScreenRule = {
  id: 'unlimited-allowance',
  severity: 'warning',
  title: 'Unlimited or near-unlimited token allowance',
  checks:
    'An ERC-20 `approve`/`increaseAllowance`, EIP-2612 or DAI `permit`, or Permit2 `approve`/`permit` (direct or as a Universal Router command) grants an allowance at or above `unlimitedAllowanceThreshold` (default 2^128; Permit2 max is 2^160-1; DAI `allowed=true` is unlimited), or above the `totalSupply()` of the token read at the pinned block (an ERC-20 amount only). An `approve` on a token known to be an ERC-721 names a token id, not an amount, and is not checked; when the standard is not known it is checked, and the detail says so. An unlimited allowance to known infrastructure (Permit2, or the Universal Router through an expiring Permit2 allowance) is `unlimited-allowance-to-known-spender` instead.',
  why: 'An unlimited allowance lets the spender take the whole balance, now and later, if it is malicious or gets compromised. Approve what the transaction needs.',
  example: '`approve(router, 2^256-1)` on USDC.',
  evaluate({ ctx, sites, config }: RuleInput) {
    return unlimitedGrants({ ctx, sites, config }, false)
  },
}

/**
 * The unlimited allowances of the transaction as hits: those to known infrastructure (`toKnown`:
 * `unlimited-allowance-to-known-spender`'s, see {@link knownSpender}) or those to any other.
 */
export function unlimitedGrants(
  { ctx, sites, config }: Pick<RuleInput, 'ctx' | 'sites' | 'config'>,
  toKnown: boolean,
): RuleHit[] {
  const hits: RuleHit[] = []
  for (const { site, effect: approval } of approvals(ctx, sites)) {
    if (approval.revoke || approval.amount === undefined) continue
    const supply = supplyAbove(ctx, approval)
    if (approval.amount < config.unlimitedAllowanceThreshold && supply === undefined) continue
    const known = knownSpender(ctx, approval, config)
    if ((known !== undefined) !== toKnown) continue
    // The shared approve selector: for an ERC-721 the value is a token id, not an amount.
    const unsure =
      approval.kind === 'erc20-or-erc721'
        ? ` (if ${approval.token} is an ERC-721 it is token id ${approval.amount} instead: its standard is not known)`
        : ''
    const knownNote = known === undefined ? '' : ` ${known}`
    hits.push(
      hitAt(
        site,
        approval.amount >= config.unlimitedAllowanceThreshold
          ? `${describe(approval, site, ctx.tx, ctx, config.unlimitedAllowanceThreshold)}, at or above ${config.unlimitedAllowanceThreshold}${unsure}.${knownNote}`
          : `${describe(approval, site, ctx.tx, ctx, config.unlimitedAllowanceThreshold)}, more than the token's whole supply (${supply} raw units at block ${ctx.block.number}): in effect unlimited.${knownNote}`,
      ),
    )
  }
  return hits
}

/**
 * Why an unlimited allowance's spender is known infrastructure, or undefined: an ERC-20
 * allowance to Permit2 (it moves tokens only for spenders the owner signs a permit or an expiring
 * Permit2 allowance for), or a Permit2 allowance to the Universal Router that expires within
 * `permit2ExpiryWarnSeconds` (what the Uniswap app grants). Recognised by canonical address or
 * code hash (`src/domain/protocols/known-code.ts`), never by name.
 */
function knownSpender(
  ctx: ScreenContext,
  approval: ApprovalEffect,
  config: ScreenConfig,
): string | undefined {
  const known = recogniseCode(approval.spender, codeOf(ctx, approval.spender))
  if (known === undefined) return undefined
  if (approval.kind !== 'permit2' && approval.kind !== 'operator' && known.kind === 'permit2') {
    return `The spender is ${known.name}: it moves tokens only for spenders the owner signs a permit or an expiring Permit2 allowance for.`
  }
  const expires = approval.expiration
  if (
    approval.kind === 'permit2' &&
    known.kind === 'universal-router' &&
    expires !== undefined &&
    expires !== 0n &&
    expires <= ctx.block.timestamp + config.permit2ExpiryWarnSeconds
  ) {
    return `The spender is the ${known.name}, for a Permit2 allowance that expires within ${config.permit2ExpiryWarnSeconds} s (at ${expires}).`
  }
  return undefined
}

/** Permit2 allowance expiring far in the future. */
export const permit2LongExpiry: ScreenRule = {
  id: 'permit2-long-expiry',
  severity: 'warning',
  title: 'Permit2 allowance expires far in the future',
  checks:
    "A Permit2 `approve` or `permit` sets an expiration more than `permit2ExpiryWarnSeconds` (default 30 days) after the pinned block's timestamp.",
  why: 'A Permit2 allowance is normally short-lived; one that lasts months stays usable long after the trade it was for.',
  example: 'Permit2 `permit` with `expiration` = 2^48-1 (year 8.9 million).',
  evaluate({ ctx, sites, config }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: approval } of approvals(ctx, sites)) {
      if (approval.kind !== 'permit2' || approval.revoke || approval.expiration === undefined)
        continue
      // Permit2 stores expiration 0 as "this block".
      if (approval.expiration === 0n) continue
      const ahead = approval.expiration - ctx.block.timestamp
      if (ahead <= config.permit2ExpiryWarnSeconds) continue
      hits.push(
        hitAt(
          site,
          `${describe(approval, site, ctx.tx, ctx, config.unlimitedAllowanceThreshold)} until ${approval.expiration} (unix), ${ahead} s after block ${ctx.block.number}; the limit is ${config.permit2ExpiryWarnSeconds} s.`,
        ),
      )
    }
    return hits
  },
}

/** Approval, permit or operator grant to an account without contract code. */
export const approvalToEoa: ScreenRule = {
  id: 'approval-to-eoa',
  severity: 'critical',
  title: 'Approval to an address without contract code',
  checks:
    "An approval (an ERC-20 allowance, or an ERC-721 approval of one token id), permit (EIP-2612 including USDC's `bytes signature` form, DAI, Permit2) or `setApprovalForAll(true)` names a spender or operator that has no code at the pinned block, or only an EIP-7702 delegation. `approve(spender, 0)` counts unless the token is known to be an ERC-20 (for an ERC-721 it approves token id 0).",
  why: 'Protocols spend through contracts; an allowance to a key-controlled account is the usual shape of an approval phishing drain.',
  example:
    '`approve(0xEOA, 2^256-1)`, `setApprovalForAll(0xEOA, true)`, or `approve(0xEOA, 0)` on an NFT collection (token id 0).',
  evaluate({ ctx, sites, config }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: approval } of approvals(ctx, sites)) {
      if (approval.revoke) continue
      const code = codeOf(ctx, approval.spender)
      if (code === undefined || !isKeyAccount(code)) continue
      const delegate = delegateOf(code)
      const what =
        delegate === undefined ? 'has no code' : `is an EIP-7702 account delegated to ${delegate}`
      hits.push(
        hitAt(
          site,
          `${describe(approval, site, ctx.tx, ctx, config.unlimitedAllowanceThreshold)}; ${approval.spender} ${what}.`,
        ),
      )
    }
    return hits
  },
}

/** setApprovalForAll(true) to anyone. */
export const approvalForAll: ScreenRule = {
  id: 'approval-for-all',
  severity: 'warning',
  title: 'Operator approval for a whole collection',
  checks: '`setApprovalForAll(operator, true)` on an ERC-721 or ERC-1155 contract.',
  why: 'The operator can move every token of the collection the sender holds, including ones acquired later.',
  example: '`setApprovalForAll(marketplace, true)` on an NFT collection.',
  evaluate({ ctx, sites, config }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: approval } of approvals(ctx, sites)) {
      if (approval.kind !== 'operator' || approval.revoke) continue
      hits.push(
        hitAt(
          site,
          `${describe(approval, site, ctx.tx, ctx, config.unlimitedAllowanceThreshold)}.`,
        ),
      )
    }
    return hits
  },
}
