import { lowerHex } from '@pre-send-guard/client/types'
import type { Address } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import { BURN_ADDRESSES } from '../evm/burn-addresses.js'
import type { TransferEffect } from '../protocols/declared-effects.js'
import { readersOf } from '../protocols/protocol-modules.js'
import { catalogued, catalogueToken } from './beneficiary-effects.js'
import { knownCallSite } from './call-args.js'
import { callEffects } from './call-effects.js'
import { callSites } from './call-sites.js'
import type { TransactionInput } from './context.js'

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
  const { tokens, recipients } = calldataTokenParts(tx, decoded)
  return [...new Set([...tokens, ...recipients])]
}

/**
 * {@link calldataTokens} in its two parts: the tokens the calldata names, and the recipients
 * `transfer-to-other-token-contract` judges (each lower-case, deduplicated, in call order).
 */
export function calldataTokenParts(
  tx: TransactionInput,
  decoded: DecodedCall,
): { tokens: Address[]; recipients: Address[] } {
  const tokens = new Set<Address>()
  const recipients = new Set<Address>()
  for (const site of callSites(tx, decoded)) {
    const effects = callEffects(site)
    for (const a of effects.approvals) {
      if (a.kind !== 'operator' && a.kind !== 'erc721') tokens.add(lowerHex(a.token))
    }
    for (const t of effects.transfers) {
      if (t.token !== undefined && /^[0-9]+$/.test(t.amount)) tokens.add(lowerHex(t.token))
      if (site.kind !== 'command' && recipientMayBeToken(t)) recipients.add(lowerHex(t.to))
    }
    for (const t of effects.transfers) {
      // A vault's shares are the vault's own token.
      if (t.output === 'vault' && !t.pull) tokens.add(lowerHex(site.target))
    }
    const known = knownCallSite(site)
    const token = known ? catalogueToken(known) : undefined
    if (token !== undefined) tokens.add(lowerHex(token))
    // A market that is its own receipt token (Comet's cUSDCv3) mints or burns it.
    if (known && catalogued(known)?.ownToken) tokens.add(lowerHex(site.target))
  }
  return { tokens: [...tokens], recipients: [...recipients] }
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

/**
 * The tokens the swaps in the calldata name, lower-case, deduplicated, in call order: what each
 * swap's protocol module reads from it (`ProtocolModule.swaps`: a path, the tokens in and out,
 * Aerodrome's routes), at any depth the decoder opens (Router02, SwapRouter02, Universal Router
 * commands, Aerodrome). What a swap buys is known before it runs, so the preflight reads those
 * tokens' code in its one wave (their owner powers, `token-owner-powers`).
 */
export function swapTokens(tx: TransactionInput, decoded: DecodedCall): Address[] {
  const out = new Set<Address>()
  for (const site of callSites(tx, decoded)) {
    const known = knownCallSite(site)
    const read = known === undefined ? undefined : readersOf(known.key)?.swaps
    if (known === undefined || read === undefined) continue
    for (const token of read(known).tokens) out.add(lowerHex(token))
  }
  return [...out]
}
