import type { Address } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import { callEffects } from './call-effects.js'
import { callSites } from './call-sites.js'
import type { TransactionInput } from './context.js'

/**
 * Tokens whose amounts the calldata rules name (allowances, Permit2 grants, transfers of a plain
 * amount), lower-case, deduplicated, in call order: the preflight reads their `symbol` and
 * `decimals` so findings give amounts in token units too. ERC-721 collections are harmless here:
 * they answer no `decimals`, so their ids stay raw.
 */
export function calldataTokens(tx: TransactionInput, decoded: DecodedCall): Address[] {
  const out = new Set<string>()
  for (const site of callSites(tx, decoded)) {
    const effects = callEffects(site)
    for (const a of effects.approvals) {
      if (a.kind !== 'operator' && a.kind !== 'erc721') out.add(a.token.toLowerCase())
    }
    for (const t of effects.transfers) {
      if (t.token !== undefined && /^[0-9]+$/.test(t.amount)) out.add(t.token.toLowerCase())
    }
  }
  return [...out] as Address[]
}
