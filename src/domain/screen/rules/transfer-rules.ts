import { tokenAmountText } from '../../effects/token-amount.js'
import { BURN_ADDRESSES } from '../../evm/burn-addresses.js'
import type { TransferEffect } from '../../protocols/declared-effects.js'
import { effectsOfSites } from '../call-effects.js'
import type { CallSite } from '../call-sites.js'
import type { ScreenContext } from '../context.js'
import {
  codeOf,
  heldBy,
  hitAt,
  isKeyAccount,
  type RuleHit,
  type RuleInput,
  type ScreenRule,
} from '../screen-rule.js'

/** `transfer moves 5 (raw units) of token 0xT from 0xF to 0xR`: the movement as detail text. */
export function describeTransfer(t: TransferEffect, site: CallSite, ctx: ScreenContext): string {
  const token = t.token === undefined ? '' : ` of token ${t.token}`
  const from = t.from === undefined ? '' : ` from ${t.from}`
  // A plain integer of a known token gets its units; token ids are named as ids; lists and
  // bounds stay raw.
  const nft = t.tokenId === true || (t.via === 'transferFrom' && site.tokenStandard === 'erc721')
  const amount = nft
    ? `token id ${t.amount}`
    : /^[0-9]+$/.test(t.amount)
      ? tokenAmountText(BigInt(t.amount), t.token, ctx.tokens)
      : `${t.amount} (raw units)`
  return `${t.via} moves ${amount}${token}${from}${heldBy(t.byCaller, site, ctx.tx)} to ${t.to}`
}

/** Tokens sent to the token contract itself. */
export const transferToTokenContract: ScreenRule = {
  id: 'transfer-to-token-contract',
  severity: 'critical',
  title: 'Tokens sent to the token contract itself',
  checks:
    "A token transfer (ERC-20/721/1155 transfer or transferFrom, Permit2 transfer, Universal Router TRANSFER/SWEEP) whose recipient is the token's own contract.",
  why: 'Almost no token can send back what it holds: the tokens are lost. A classic copy-paste mistake.',
  example: '`transfer(USDC, 1000000)` sent to USDC.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: transfer } of effectsOfSites(sites, 'transfers')) {
      if (transfer.token === undefined) continue
      if (transfer.to.toLowerCase() !== transfer.token.toLowerCase()) continue
      hits.push(hitAt(site, `${describeTransfer(transfer, site, ctx)}, the token contract itself.`))
    }
    return hits
  },
}

/** Tokens sent to the zero address or a burn address. */
export const transferToBurnAddress: ScreenRule = {
  id: 'transfer-to-burn-address',
  severity: 'critical',
  title: 'Tokens sent to the zero address or a burn address',
  checks:
    'A token transfer, or a Universal Router swap/wrap/unwrap/sweep output, whose recipient is `0x0000…0000`, `0x…dEaD` or `0xdEaD…0000`.',
  why: 'Nobody holds the keys to these addresses: whatever is sent there is destroyed.',
  example: '`transfer(0x000000000000000000000000000000000000dEaD, 5000)`.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: transfer } of effectsOfSites(sites, 'transfers')) {
      if (!BURN_ADDRESSES.has(transfer.to.toLowerCase())) continue
      hits.push(hitAt(site, `${describeTransfer(transfer, site, ctx)}, a burn address.`))
    }
    return hits
  },
}

/** transferFrom / safeTransferFrom to an account without code. */
export const pullTransferToNoCode: ScreenRule = {
  id: 'pull-transfer-to-no-code',
  severity: 'warning',
  title: 'transferFrom to an address without contract code',
  checks:
    "`transferFrom`, `safeTransferFrom`, `safeBatchTransferFrom` or a Permit2 transfer moves tokens to a recipient that has no code at the pinned block (or only an EIP-7702 delegation) and is not the sender, from an owner other than the account making the call (an owner sending its own NFT is not a pull; a spender collecting to itself risks nothing of its own). Universal Router `PERMIT2_TRANSFER_FROM` commands, which pull the router caller's tokens through Permit2, are always checked: honest routes pay pools and the router, not people.",
  why: 'Pulling tokens by allowance into a plain account is how drainers empty approvals; a sender moving its own tokens to a person normally uses `transfer`.',
  example:
    "`transferFrom(alice, 0xEOA, 1000)` sent by a spender Alice approved (not Alice's own `safeTransferFrom(alice, friend, id)`).",
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: transfer } of effectsOfSites(sites, 'transfers')) {
      if (!transfer.pull || BURN_ADDRESSES.has(transfer.to.toLowerCase())) continue
      // An owner moving its own tokens (an NFT gift, say) is not a pull by allowance.
      if (transfer.from?.toLowerCase() === site.caller.toLowerCase()) continue
      // A spender collecting to the signer itself puts nothing of the signer's at risk.
      if (transfer.to.toLowerCase() === ctx.tx.from.toLowerCase()) continue
      const code = codeOf(ctx, transfer.to)
      if (code === undefined || !isKeyAccount(code)) continue
      hits.push(
        hitAt(site, `${describeTransfer(transfer, site, ctx)}, which has no contract code.`),
      )
    }
    return hits
  },
}
