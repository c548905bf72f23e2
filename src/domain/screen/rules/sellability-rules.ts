import type { ReceivedTokenFacts, SellLoss } from '../../tokens/received-token-facts.js'
import type { ScreenContext } from '../context.js'
import { seenEffects } from '../effect-facts.js'
import type { RuleHit, RuleInput, ScreenRule } from '../screen-rule.js'

/** A tax at or above this many basis points is critical. */
export const CRITICAL_TAX_BPS = 5_000
/** A tax at or above this many basis points (and below the critical one) is a warning. */
export const WARNING_TAX_BPS = 500

/** `95 %`, `2.5 %`: basis points as a percentage, at most two decimals. */
export function percent(bps: number): string {
  return `${Number((bps / 100).toFixed(2))} %`
}

/** `USDC (0x8335…2913)`, or the address alone when the symbol is unknown. */
function named(ctx: ScreenContext, token: string): string {
  const symbol = ctx.tokens?.get(token.toLowerCase())?.symbol
  return symbol ? `${symbol} (${token})` : token
}

function received(ctx: ScreenContext): ReceivedTokenFacts[] {
  return seenEffects(ctx)?.receivedTokens ?? []
}

function losses(ctx: ScreenContext): SellLoss[] {
  return seenEffects(ctx)?.sellLosses ?? []
}

/** Why a received token does not sell, in the probe's own figures. */
function whyNotSellable(t: ReceivedTokenFacts): string {
  const m = t.measured
  if (m === undefined) return 'it could not be moved'
  if (!m.moved) return `moving the ${m.received} units received to a fresh address reverts`
  if (m.pool === undefined) return 'it could not be moved'
  if (!m.delivered) return `paying the ${m.received} units received into pool ${m.pool} reverts`
  if (m.poolGot === 0n) return `pool ${m.pool} receives nothing of the ${m.received} units sent`
  return `selling the ${m.received} units received to pool ${m.pool} pays nothing back`
}

/** The taxes of a received token at or above `min` (and below `max`), as `a sell tax of 95 %`. */
function taxes(t: ReceivedTokenFacts, min: number, max: number): string[] {
  const out: string[] = []
  for (const kind of ['buy', 'sell', 'transfer'] as const) {
    const bps = t.taxBps[kind]
    if (bps !== null && bps >= min && bps < max) out.push(`a ${kind} tax of ${percent(bps)}`)
  }
  return out
}

function taxHits(ctx: ScreenContext, min: number, max: number): RuleHit[] {
  return received(ctx).flatMap((t) => {
    // A token that does not sell at all is `token-honeypot`'s.
    if (t.sellable === false) return []
    const found = taxes(t, min, max)
    if (found.length === 0) return []
    return [
      {
        detail: `The sender receives ${named(ctx, t.token)}, which keeps ${found.join(' and ')} of what is moved (measured in the simulation: the buy from the pool's transfers, the sell and transfer by moving the amount received on in a later simulated block).`,
      },
    ]
  })
}

/** A received token that cannot be moved or sold back. */
export const tokenHoneypot: ScreenRule = {
  id: 'token-honeypot',
  severity: 'critical',
  title: 'A token received cannot be sold',
  checks:
    'For each ERC-20 the sender receives from a Uniswap v2/v3 swap the calldata names, the same `eth_simulateV1` request runs a later block in which the sender (given the code of our SellProbe contract) moves the amount received to a fresh address and sells it back through the pool it was bought from (the factory finds the pair or pool; a v2 pair is paid then swapped, a v3 pool swapped with the callback). The rule fires when the move reverts, the payment into the pool reverts, or the pool pays nothing back.',
  why: 'A honeypot lets anyone buy and nobody but its owner sell: what the agent paid is gone the moment the swap lands.',
  example:
    'A Router02 `swapExactETHForTokens` buying a token whose transfer into its pair reverts for everyone but the owner.',
  evaluate: ({ ctx }: RuleInput) =>
    received(ctx)
      .filter((t) => t.sellable === false)
      .map((t) => ({
        detail: `The sender receives ${named(ctx, t.token)}, which cannot be sold: ${whyNotSellable(t)}.`,
      })),
}

/** A received token that keeps half or more of what is moved. */
export const tokenTaxCritical: ScreenRule = {
  id: 'token-tax-critical',
  severity: 'critical',
  title: 'A token received keeps half or more of each move',
  checks: `For each ERC-20 the sender receives, its buy tax (received less than the pool sent, from the logs), sell tax (the pool receives less than the sender sends it) or transfer tax (a fresh address receives less), measured as \`token-honeypot\` describes, is ${percent(CRITICAL_TAX_BPS)} or more. Tokens that do not sell at all are left to \`token-honeypot\`.`,
  why: 'A token that keeps most of every move is worth a fraction of its price the moment it is bought: selling it back returns little or nothing.',
  example: 'Buying a memecoin through the Universal Router whose sell tax is 95 %.',
  evaluate: ({ ctx }: RuleInput) => taxHits(ctx, CRITICAL_TAX_BPS, Number.POSITIVE_INFINITY),
}

/** A received token that keeps a noticeable share of what is moved. */
export const tokenTax: ScreenRule = {
  id: 'token-tax',
  severity: 'warning',
  title: 'A token received keeps a share of each move',
  checks: `As \`token-tax-critical\`, for a tax of ${percent(WARNING_TAX_BPS)} or more and below ${percent(CRITICAL_TAX_BPS)}.`,
  why: 'A transfer tax makes every move of the token cost: the agent holds less than it was quoted and gets less again when it sells.',
  example: 'Buying a token that keeps 10 % of every buy, sell and transfer.',
  evaluate: ({ ctx }: RuleInput) => taxHits(ctx, WARNING_TAX_BPS, CRITICAL_TAX_BPS),
}

/** Selling a held token whose own logic keeps part of what is sold. */
export const tokenSellLoss: ScreenRule = {
  id: 'token-sell-loss',
  severity: 'warning',
  title: 'A token sold loses part of the amount on the way',
  checks: `An ERC-20 whose balance the transaction lowers for the sender reaches the swap pools of the execution (addresses that emit a Uniswap v2 or v3 \`Swap\` event) short of what the sender's balance lost, by ${percent(WARNING_TAX_BPS)} or more: the rest went to the token's own transfer logic (or to another recipient in the same transaction).`,
  why: 'A sell tax takes its share before the pool prices the sale: the agent sells less than it spends, often far less than a quote said.',
  example:
    'Approving Router02 and selling a held token with `swapExactTokensForETHSupportingFeeOnTransferTokens` when the token keeps 95 % of every sell.',
  evaluate: ({ ctx }: RuleInput) =>
    losses(ctx)
      .filter((l) => l.lossBps >= WARNING_TAX_BPS)
      .map((l) => ({
        detail: `The sender sells ${named(ctx, l.token)}: its balance loses ${l.debited} units but the swap pools receive ${l.credited}, so ${percent(l.lossBps)} of the amount sold is lost to the token on the way.`,
      })),
}
