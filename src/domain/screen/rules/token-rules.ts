import { getAddress } from 'viem'
import { receivedTokens, senderChanges } from '../../effects/execution-effects.js'
import { BASE_MAINNET } from '../../network/network-profile.js'
import { hiddenCharacters } from '../../text/hidden-characters.js'
import { lookAlikeMix } from '../../text/look-alike-scripts.js'
import type { OwnerPower } from '../../tokens/owner-powers.js'
import {
  type Impersonation,
  impersonationOf,
  listedToken,
  listsOf,
} from '../../tokens/token-lists.js'
import type { ScreenContext } from '../context.js'
import { seenEffects } from '../effect-facts.js'
import type { RuleHit, RuleInput, ScreenRule } from '../screen-rule.js'

/**
 * Every ERC-20 the sender receives (a positive net change in execution) that copies a listed
 * token's symbol or name at another address. Tokens it only sends, approves or names are not
 * judged: holding or spending a copy costs it nothing more, receiving one for value does.
 */
function impersonations(ctx: ScreenContext): { copy: Impersonation; detail: string }[] {
  const effects = seenEffects(ctx)
  if (ctx.tokens === undefined || effects === undefined) return []
  const received = senderChanges(effects, ctx.tx.from).flatMap((c) =>
    c.asset.standard === 'erc20' && c.delta > 0n ? [c.asset.token] : [],
  )
  const out: { copy: Impersonation; detail: string }[] = []
  for (const token of received) {
    const claimed = ctx.tokens.get(token.toLowerCase())?.claimed
    if (claimed === undefined) continue
    const copy = impersonationOf(token, claimed)
    if (copy === undefined) continue
    const label = copy.by === 'symbol' ? claimed.symbol : claimed.name
    const drawn = copy.drawnAs === undefined ? '' : ` (drawn ${JSON.stringify(copy.drawnAs)})`
    out.push({
      copy,
      detail: `The sender receives token ${token}, whose ${copy.by} ${JSON.stringify(label)}${drawn} copies ${copy.copies.symbol} (${copy.copies.name}), which is ${copy.copies.address} on Base (${listsOf(copy.copies)}): it is not that token.`,
    })
  }
  return out
}

function hits(ctx: ScreenContext, payment: boolean): RuleHit[] {
  return impersonations(ctx)
    .filter((i) => i.copy.paymentToken === payment)
    .map((i) => ({ detail: i.detail }))
}

/** A token posing as one agents pay with (USDC, WETH, ...) at another address. */
export const tokenImpersonatesPaymentToken: ScreenRule = {
  id: 'token-impersonates-payment-token',
  severity: 'critical',
  title: 'A token copies a payment token',
  checks:
    "A token the sender receives (an ERC-20 whose balance execution raises), at an address on neither pinned token list (Uniswap's default list, the Superchain token list; their Base entries), has the symbol or name of USDC, USDbC, EURC, WETH, cbBTC, cbETH, DAI or USDT, compared after Unicode normalisation (NFKC, invisible and spacing characters removed, confusable characters mapped to their prototype per UTS #39, case ignored).",
  why: 'An agent that takes a look-alike for USDC has been paid nothing: the copy is worth what its issuer says, and swaps or payments in it are the classic scam on Base.',
  example: `A swap that buys 1,000 \`USDC\` from a pool whose token is \`0xFake…\`, not ${BASE_MAINNET.usdc.address}; a token whose symbol is \`USDC\` with a zero-width space inside, or spelled with a Cyrillic \`С\`.`,
  evaluate: ({ ctx }: RuleInput) => hits(ctx, true),
}

/** A token posing as another listed token at another address. */
export const tokenImpersonatesListed: ScreenRule = {
  id: 'token-impersonates-listed',
  severity: 'warning',
  title: 'A token copies a listed token',
  checks:
    "A token the sender receives, at an address on neither pinned token list, has the symbol, or the name (3 characters or more), of another Base token on Uniswap's default list or the Superchain token list, compared after the same normalisation as `token-impersonates-payment-token`; payment tokens are left to that rule.",
  why: 'Copies of listed tokens borrow their reputation: the agent may believe it bought AERO or DEGEN and hold a token anyone can mint.',
  example: 'A swap that buys `AERO` from a token at an address the lists do not carry.',
  evaluate: ({ ctx }: RuleInput) => hits(ctx, false),
}

/** What is deceptive in one label: its hidden characters, its look-alike letters of another script. */
function deceptionIn(label: string): string[] {
  const found: string[] = []
  const hidden = hiddenCharacters(label)
  if (hidden.length > 0) {
    const bidi = hidden.some((h) => h.bidi)
    found.push(
      `hidden characters (${hidden.map((h) => `${h.codePoint} ${h.name}`).join(', ')})${bidi ? ': a bidi control reorders the text drawn after it' : ''}`,
    )
  }
  const mix = lookAlikeMix(label)
  if (mix !== undefined) {
    const letters = mix.lookAlikes.map(
      (l) => `${l.letter} (${l.codePoint}, ${l.script}) reads as ${l.looksLike}`,
    )
    found.push(`letters of ${mix.scripts.join(' and ')} mixed: ${letters.join(', ')}`)
  }
  return found
}

/**
 * A token whose symbol or name, as it claims them, carries what a reader does not see for what
 * it is: bidi controls, invisible or format characters, letters of another script that pass
 * for Latin ones. Every token whose metadata the preflight read is judged: its symbol is what
 * the answer's effects and findings show.
 */
export const tokenLabelDeceptive: ScreenRule = {
  id: 'token-label-deceptive',
  severity: 'warning',
  title: "A token's symbol or name hides characters or mixes look-alike scripts",
  checks:
    "A token whose metadata the preflight read (the tokens the calldata names, the sender's swaps trade or execution moves) has a `symbol()` or `name()` holding a bidi control (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), another format character (category Cf: zero-width spaces and joiners, soft hyphen, invisible tag letters), another default-ignorable code point (variation selectors, Hangul fillers), a control, private-use or unassigned code point, or a space other than U+0020 (the joiners and variation selectors inside an emoji excepted); or mixing letters of several scripts beyond UTS #39's highly restrictive sets (one script, or Latin with Han and Japanese kana, Bopomofo or Hangul) when one of them passes for a Latin letter or digit (Unicode's confusables.txt). Everywhere the answer quotes such a label (effects, findings) its hidden characters are written as escapes (`\\u202E`).",
  why: 'The agent, or the person it asks, reads the symbol to know what it receives: a right-to-left override makes `CDSU` read `USDC`, a Cyrillic `С` passes for a Latin C, and invisible tag characters carry words no one sees but a model reads. No honest token needs them.',
  example:
    'A swap that pays out a token whose symbol is `\\u202ECDSU` (a right-to-left override, then `CDSU`): a page or a terminal draws `USDC`.',
  evaluate: ({ ctx }: RuleInput) => {
    if (ctx.tokens === undefined) return []
    const out: RuleHit[] = []
    for (const [token, meta] of ctx.tokens) {
      for (const by of ['symbol', 'name'] as const) {
        const label = meta.claimed?.[by]
        if (label === null || label === undefined) continue
        const found = deceptionIn(label)
        if (found.length === 0) continue
        out.push({
          detail: `Token ${getAddress(token)} has the ${by} ${JSON.stringify(label)}, with ${found.join('; and ')}.`,
        })
      }
    }
    return out
  },
}

/** How each power reads in a finding. */
const POWER_TEXT: Record<OwnerPower, string> = {
  pause: 'pause transfers',
  blacklist: 'blacklist holders',
  'set-fees': 'change its fees or taxes',
  mint: 'mint more',
  upgrade: 'replace its code (upgradeable)',
}

/**
 * A token the sender receives whose code shows owner powers over holders, when it is on neither
 * pinned list and not known code: genuine tokens (USDC can pause and blacklist) stay quiet, their
 * powers are still in `effects.receivedTokens`.
 */
export const tokenOwnerPowers: ScreenRule = {
  id: 'token-owner-powers',
  severity: 'info',
  title: "A received token's owner can pause, blacklist, set fees, mint or upgrade it",
  checks:
    "A token the sender receives (an ERC-20 whose balance execution raises), on neither pinned token list and not recognised known code, whose runtime code the preflight read has, among its solc dispatcher's selectors, functions that pause transfers, blacklist holders, set fees or taxes, or upgrade (upgradeTo, upgradeToAndCall), or pushes an ERC-1967 or ZeppelinOS proxy slot (the list: src/domain/tokens/owner-powers.ts). A mint function is named beside those but alone raises nothing (every bridged token mints for its bridge). The finding names the token, its address, the powers and the functions found.",
  why: 'What the agent holds is only as good as what the owner may do to it: pause or blacklist traps the balance, a fee setter can turn a buyable token into a 99 % sell tax after the buy, a mint dilutes it, an upgrade replaces every rule. Information, not a verdict: most of these powers have honest uses.',
  example:
    'A swap that buys a token whose code has `setSellTax(uint256)` and `blacklist(address)`: "its owner can blacklist holders (blacklist(address)) and change its fees or taxes (setSellTax(uint256))".',
  evaluate: ({ ctx }: RuleInput) => {
    const effects = seenEffects(ctx)
    if (effects === undefined || ctx.ownerPowers === undefined) return []
    return receivedTokens(effects, ctx.tx.from).flatMap((token) => {
      const found = ctx.ownerPowers?.get(token.toLowerCase())
      // `mint` alone is no finding: every bridged token on Base (OptimismMintableERC20) mints
      // for its bridge, and minting dilutes holders without trapping what they hold.
      if (found === undefined || found.powers.every((p) => p === 'mint')) return []
      if (found.knownAs !== undefined || listedToken(token) !== undefined) return []
      const symbol = ctx.tokens?.get(token.toLowerCase())?.symbol
      const powers = found.powers.map(
        (p) => `${POWER_TEXT[p]} (${(found.evidence[p] ?? []).join(', ')})`,
      )
      return [
        {
          detail: `The sender receives token ${token}${symbol ? ` (${symbol})` : ''}, whose code shows its owner can ${joinAnd(powers)}.`,
        },
      ]
    })
  },
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}
