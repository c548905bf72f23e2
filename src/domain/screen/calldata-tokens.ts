import type { Address } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import { catalogueToken } from './beneficiary-effects.js'
import { BURN_ADDRESSES } from './burn-addresses.js'
import { knownCallSite } from './call-args.js'
import { callEffects } from './call-effects.js'
import { callSites } from './call-sites.js'
import type { TransactionInput } from './context.js'
import type { TransferEffect } from './transfer-effects.js'

/**
 * Tokens whose amounts the calldata rules name (allowances, Permit2 grants, transfers of a plain
 * amount, the token a catalogued protocol call names, a vault's own shares), then the recipients
 * `transfer-to-other-token-contract` judges, lower-case,
 * deduplicated, tokens first then recipients, each in call order: the preflight reads their
 * `symbol` and `decimals` (riding in the `eth_simulateV1` it makes anyway) so findings give
 * amounts in token units too, and a recipient that answers `decimals` is known to be a token
 * contract. ERC-721 collections are harmless here: they answer no `decimals`, so their ids stay raw.
 */
export function calldataTokens(tx: TransactionInput, decoded: DecodedCall): Address[] {
  const tokens = new Set<string>()
  const recipients = new Set<string>()
  for (const site of callSites(tx, decoded)) {
    const effects = callEffects(site)
    for (const a of effects.approvals) {
      if (a.kind !== 'operator' && a.kind !== 'erc721') tokens.add(a.token.toLowerCase())
    }
    for (const t of effects.transfers) {
      if (t.token !== undefined && /^[0-9]+$/.test(t.amount)) tokens.add(t.token.toLowerCase())
      if (site.kind !== 'command' && recipientMayBeToken(t)) recipients.add(t.to.toLowerCase())
    }
    for (const t of effects.transfers) {
      // A vault's shares are the vault's own token.
      if (t.output === 'vault' && !t.pull) tokens.add(site.target.toLowerCase())
    }
    const known = knownCallSite(site)
    const token = known ? catalogueToken(known) : undefined
    if (token !== undefined) tokens.add(token.toLowerCase())
  }
  return [...new Set([...tokens, ...recipients])] as Address[]
}

/**
 * True for a transfer `transfer-to-other-token-contract` judges: a token moved (not a router or
 * vault output, which pay pools and receivers by design) to neither a burn address nor the token
 * itself (rules of their own).
 */
export function recipientMayBeToken(t: TransferEffect): boolean {
  if (t.token === undefined || t.output) return false
  const to = t.to.toLowerCase()
  return !BURN_ADDRESSES.has(to) && to !== t.token.toLowerCase()
}
