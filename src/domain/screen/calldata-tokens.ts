import { lowerHex } from '@pre-send-guard/client/types'
import type { Address } from 'viem'
import type { DecodedCall } from '../calldata/decode-calldata.js'
import type { JsonValue } from '../calldata/json-value.js'
import { isAddressShaped } from '../evm/checksummed.js'
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

/** A Uniswap v3 packed path: 20-byte tokens joined by 3-byte fees. */
const V3_PATH = /^0x[0-9a-fA-F]{40}(?:[0-9a-fA-F]{6}[0-9a-fA-F]{40})+$/

/**
 * The tokens the swaps in the calldata name, lower-case, deduplicated, in call order: every
 * `path` (a v2 `address[]` or a v3 packed `bytes` path), `tokenIn`/`tokenOut`, and Aerodrome
 * `routes` `from`/`to`, at any depth of the decoded arguments (Router02, SwapRouter02, Universal
 * Router commands, Aerodrome). What a swap buys is known before it runs, so the preflight reads
 * those tokens' code in its one wave (their owner powers, `token-owner-powers`).
 */
export function swapTokens(tx: TransactionInput, decoded: DecodedCall): Address[] {
  const out = new Set<Address>()
  const address = (v: JsonValue | undefined) => {
    if (typeof v === 'string' && isAddressShaped(v)) out.add(lowerHex(v))
  }
  const walk = (value: JsonValue, key: string | undefined): void => {
    if (key === 'path' && typeof value === 'string' && V3_PATH.test(value)) {
      for (let i = 2; i < value.length; i += 46) address(`0x${value.slice(i, i + 40)}`)
      return
    }
    if (key === 'path' && Array.isArray(value)) {
      for (const v of value) address(v)
      return
    }
    if (key === 'tokenIn' || key === 'tokenOut') {
      address(value)
      return
    }
    if (key === 'routes' && Array.isArray(value)) {
      for (const r of value) {
        if (r !== null && typeof r === 'object' && !Array.isArray(r)) {
          address(r.from)
          address(r.to)
        }
      }
      return
    }
    if (Array.isArray(value)) for (const v of value) walk(v, undefined)
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, k)
    }
  }
  for (const site of callSites(tx, decoded)) {
    if (!site.call.known) continue
    for (const arg of site.call.args) walk(arg.value, arg.name)
  }
  return [...out]
}
