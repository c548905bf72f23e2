import { hasCalldata } from '../call-sites.js'
import { codeOf, formatWei, hitAt, type RuleHit, type ScreenRule } from '../screen-rule.js'

/** Calldata sent to an address without code. */
export const calldataToNoCode: ScreenRule = {
  id: 'calldata-to-no-code',
  severity: 'warning',
  title: 'Calldata sent to an address without code',
  checks:
    'The transaction, or a call nested in it, carries calldata to an address with no code at the pinned block.',
  why: 'Nothing will run: the call silently succeeds and does nothing. Usually a wrong address, or a contract that exists on another chain but not on Base.',
  example:
    '`approve(spender, 100)` sent to a token address copied from Ethereum mainnet that is empty on Base.',
  evaluate({ ctx, sites }) {
    const hits: RuleHit[] = []
    // One finding per empty address: multicall items repeat their container's target.
    const reported = new Set<string>()
    for (const site of sites) {
      // Universal Router commands run inside the router: they are not calls of their own.
      if (site.kind === 'command' || !hasCalldata(site)) continue
      if (codeOf(ctx, site.target) !== '0x' || reported.has(site.target.toLowerCase())) continue
      reported.add(site.target.toLowerCase())
      hits.push(hitAt(site, `${site.target} has no code, yet the call carries calldata.`))
    }
    return hits
  },
}

/** Value sent along with calldata to an address without code. */
export const valueWithCalldataToNoCode: ScreenRule = {
  id: 'value-with-calldata-to-no-code',
  severity: 'critical',
  title: 'Value sent with calldata to an address without code',
  checks:
    'ETH is sent together with calldata to an address with no code (top-level, Safe inner call or Multicall3 `aggregate3Value`).',
  why: 'The calldata shows a contract was intended, but the ETH lands in an account no contract controls and the intended call never runs.',
  example: 'A 0.5 ETH `deposit()` sent to a WETH address that has no code on this chain.',
  evaluate({ ctx, sites }) {
    const hits: RuleHit[] = []
    for (const site of sites) {
      if (site.kind === 'command' || site.value === 0n || !hasCalldata(site)) continue
      if (codeOf(ctx, site.target) !== '0x') continue
      hits.push(
        hitAt(
          site,
          `${formatWei(site.value)} goes with calldata to ${site.target}, which has no code.`,
        ),
      )
    }
    return hits
  },
}
