import { BURN_ADDRESSES } from '../burn-addresses.js'
import { effectsOfSites } from '../call-effects.js'
import { hasCalldata } from '../call-sites.js'
import {
  codeOf,
  formatWei,
  hitAt,
  isKeyAccount,
  type RuleHit,
  type RuleInput,
  type ScreenRule,
} from '../screen-rule.js'
import { describeTransfer } from './transfer-rules.js'

/** Multicall3 functions whose calls are made by Multicall3 itself, which anyone can call. */
const AGGREGATORS = new Set(['aggregate', 'tryAggregate', 'aggregate3', 'aggregate3Value'])

/** A router output or vault receiver that is neither the sender nor the account making the call. */
export const outputToThirdParty: ScreenRule = {
  id: 'output-to-third-party',
  severity: 'warning',
  title: 'The output goes to a third party',
  checks:
    "A shape that pays its caller unless told otherwise names another recipient: a Universal Router `TRANSFER`, `SWEEP`, `PAY_PORTION`, swap, `WRAP_ETH` or `UNWRAP_WETH` output to an address without code that is neither the sender nor the router's caller (the `MSG_SENDER`/`ADDRESS_THIS` placeholders resolve to those), or an ERC-4626 `deposit`/`mint` (shares) or `withdraw`/`redeem` (assets) whose `receiver` is neither. Burn addresses and the contract itself are left to `transfer-to-burn-address` and `transfer-to-token-contract`.",
  why: 'The sender pays and a stranger receives: a pull into the router followed by a sweep to someone else is the same drain as a direct pull to them, and vault shares credited to another account are theirs to redeem.',
  example:
    '`execute(PERMIT2_TRANSFER_FROM(token, ADDRESS_THIS, 1000), SWEEP(token, 0xStranger, 0))` on the Universal Router; `deposit(1000, 0xStranger)` on a vault.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const { site, effect: t } of effectsOfSites(sites, 'transfers')) {
      if (!t.output || t.pull) continue
      const to = t.to.toLowerCase()
      if (BURN_ADDRESSES.has(to) || to === site.target.toLowerCase()) continue
      if (to === ctx.tx.from.toLowerCase() || to === site.caller.toLowerCase()) continue
      const code = codeOf(ctx, t.to)
      // Routers also pay pools and fee collectors (contracts) in honest routes: people only.
      if (site.kind === 'command' && (code === undefined || !isKeyAccount(code))) continue
      const kind =
        code === undefined
          ? ''
          : isKeyAccount(code)
            ? ', an account without code,'
            : ', a contract,'
      hits.push(
        hitAt(
          site,
          `${describeTransfer(t, site, ctx)}${kind} which is neither the sender ${ctx.tx.from} nor the caller ${site.caller}.`,
        ),
      )
    }
    return hits
  },
}

/** ETH sent with a call that Multicall3 makes: whatever it credits, it credits Multicall3. */
export const valueCreditsAggregator: ScreenRule = {
  id: 'value-credits-aggregator',
  severity: 'warning',
  title: 'Value sent through Multicall3 is credited to Multicall3',
  checks:
    'A Multicall3 `aggregate3Value` call that sends ETH together with calldata (WETH `deposit()`, a payable mint, …).',
  why: 'The called contract sees Multicall3 as `msg.sender` and credits it, not the sender: Multicall3 has no owner, so anyone can take what it holds with one call.',
  example: '`aggregate3Value([{target: WETH, value: 1 ETH, callData: deposit()}])`.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const site of sites) {
      if (site.kind !== 'call' || site.value === 0n || !hasCalldata(site)) continue
      if (site.container === undefined || !AGGREGATORS.has(site.container)) continue
      // Code-less targets are `value-with-calldata-to-no-code`'s: nothing gets credited there.
      if (codeOf(ctx, site.target) === '0x') continue
      const what = site.call.known ? ` (${site.call.name})` : ''
      hits.push(
        hitAt(
          site,
          `${formatWei(site.value)} goes with calldata${what} to ${site.target}, which credits its caller ${site.caller} (Multicall3), not the sender: anyone can take it from there.`,
        ),
      )
    }
    return hits
  },
}
