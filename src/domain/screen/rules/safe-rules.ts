import type { CallSite } from '../call-sites.js'
import { formatWei, hitAt, type RuleHit, type RuleInput, type ScreenRule } from '../screen-rule.js'
import { officialMultisendTarget } from './protocol-rules.js'

const EXEC_TRANSACTION =
  'execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)'

function arg(site: CallSite, name: string): unknown {
  return site.call.known ? site.call.args.find((a) => a.name === name)?.value : undefined
}

/** Safe transaction executed as a delegatecall. */
export const safeDelegatecall: ScreenRule = {
  id: 'safe-delegatecall',
  severity: 'critical',
  title: 'Safe transaction runs as a delegatecall',
  checks:
    "Safe `execTransaction` with `operation = 1` (DelegateCall), unless the target is Safe's own MultiSend or MultiSendCallOnly (recognised by address or code hash: `safe-multisend-batch`, whose items every rule judges).",
  why: "The inner target's code runs with the Safe's own storage and balance: it can add owners, change the threshold, install modules or move every asset. Legitimate batching (MultiSend) also uses it, so a person must check the target.",
  example: '`execTransaction(to=0xLib, value=0, data=0x…, operation=1, …)` on a Safe.',
  evaluate({ ctx, sites }: RuleInput) {
    const hits: RuleHit[] = []
    for (const site of sites) {
      if (!site.call.known || site.call.signature !== EXEC_TRANSACTION) continue
      if (arg(site, 'operation') !== 1) continue
      // The official MultiSend runs only the batch, whose items every rule judges.
      if (officialMultisendTarget(ctx, site) !== undefined) continue
      const inner = site.call.calls?.[0]
      const what = inner?.call.known ? ` calling ${inner.call.name}` : ''
      const value = BigInt(String(arg(site, 'value') ?? '0'))
      hits.push(
        hitAt(
          site,
          `Safe ${site.target} delegatecalls ${String(arg(site, 'to'))}${what} with ${formatWei(value)}; that code runs as the Safe.`,
        ),
      )
    }
    return hits
  },
}
