import { zeroAddress } from 'viem'
import { senderChanges } from '../../effects/execution-effects.js'
import { tokenAmountText } from '../../effects/token-amount.js'
import {
  acceptedRecipients,
  creditedProtocolAction,
  describeAsset,
  hiddenApprovals,
  seenEffects,
  senderLosses,
} from '../effect-facts.js'
import {
  codeOf,
  isKeyAccount,
  type RuleHit,
  type RuleInput,
  type ScreenRule,
} from '../screen-rule.js'

/** The node could not show what execution does. */
export const executionNotVisible: ScreenRule = {
  id: 'execution-not-visible',
  severity: 'info',
  title: 'The screen could not see what execution does',
  checks:
    'The Base RPC offers neither `eth_simulateV1` nor `debug_traceCall` (or could not simulate), so there are no asset or approval changes and the effect rules (`hidden-approval`, `drain-shape`, `assets-to-no-code-recipient`) could not run. Info, not a warning: every other rule still ran, and a node without these methods must not turn every answer into `review`.',
  why: "What a contract the screen cannot decode does with the sender's assets is then unknown; treat an unfamiliar target with care.",
  example:
    'Any preflight against an RPC endpoint that answers "method not found" to `eth_simulateV1` and `debug_traceCall`.',
  evaluate({ ctx }) {
    if (ctx.execution?.available !== false) return []
    return [{ detail: `Execution effects are not available: ${ctx.execution.reason}.` }]
  },
}

/** An approval of the sender's assets emitted during execution that the calldata did not show. */
export const hiddenApproval: ScreenRule = {
  id: 'hidden-approval',
  severity: 'warning',
  title: "Execution grants an approval of the sender's assets that the calldata does not show",
  checks:
    "An `Approval` (ERC-20 or ERC-721), `ApprovalForAll` or Permit2 `Approval`/`Permit` event emitted during the simulated execution grants a spender the sender's assets, and no approval in the decoded calldata names the same token and spender. The approval rules (`unlimited-allowance`, `approval-to-eoa`, `approval-for-all`, `permit2-long-expiry`) judge it as they judge calldata approvals. An ERC-20 `Approval` whose spender is a contract the transaction calls and whose token left the sender in the same execution records an existing allowance being spent (OpenZeppelin 4, Aave aTokens emit the remainder), not a grant.",
  why: 'An approval a wrapper makes out of sight (a relayed permit, a delegated account) is the shape of approval phishing; the agent never saw what it grants.',
  example:
    "`relay(token, sender, spender, 2^256-1, …)` on an unknown contract that forwards the sender's EIP-2612 permit.",
  evaluate({ ctx, sites, config }: RuleInput) {
    return hiddenApprovals(seenEffects(ctx), ctx.tx.from, sites).map((a) => {
      const what =
        a.amount === 'all'
          ? `every token of ${a.token}`
          : a.kind === 'erc721'
            ? `token id ${a.tokenId} of ${a.token}`
            : `${tokenAmountText(a.amount, a.token, ctx.tokens, config.unlimitedAllowanceThreshold)} of token ${a.token}`
      return {
        detail: `A ${a.via} event emitted during execution lets ${a.spender} take ${what} from the sender; the decoded calldata shows no such approval.`,
      }
    })
  },
}

/** The sender loses assets and receives nothing back, to recipients the calldata does not name. */
export const drainShape: ScreenRule = {
  id: 'drain-shape',
  severity: 'warning',
  title: 'The sender loses assets and receives nothing back',
  checks:
    "In the simulated execution the sender's net position only falls (ETH including the `value` sent, ERC-20, ERC-721, ERC-1155), nothing comes back, and some of it ends up with an account that is not a recipient the calldata declares (a plain ETH send's target, or a decoded transfer's recipient). Plain transfers and approvals the calldata declares never fire it, nor payments to the counterparties of a trade the calldata names (Seaport's offerer and the recipients it signed), nor an action of known protocol code credited to the sender (the top-level target recognised by its canonical address or code hash, and every beneficiary a catalogued call names is the sender or its caller: a supply, a repay, a bridge withdrawal to yourself, where what comes back is a position or an L1 claim the logs do not show). Warning, not critical: a payment also gives nothing back on this chain.",
  why: 'A call whose function name promises a deposit or a swap but that only takes is how drainers empty approvals and wallets.',
  example:
    "`deposit()` on a contract that pulls the sender's approved tokens to a third party, or a payable `swap()` that forwards the ETH elsewhere.",
  evaluate({ ctx, sites }: RuleInput) {
    const effects = seenEffects(ctx)
    if (effects === undefined) return []
    if (senderChanges(effects, ctx.tx.from).some((c) => c.delta > 0n)) return []
    if (creditedProtocolAction(ctx.tx, sites, ctx.codes, effects)) return []
    const losses = senderLosses(effects, ctx.tx.from)
    if (losses.length === 0) return []
    const declared = acceptedRecipients(sites)
    const undeclared = losses.some((l) =>
      l.gainers.some((g) => !declared.has(g.account.toLowerCase())),
    )
    if (!undeclared) return []
    const parts = losses.map((l) => {
      const to =
        l.gainers.length === 0
          ? 'no account gains it'
          : `to ${l.gainers.map((g) => g.account).join(', ')}`
      return `${describeAsset(l.asset, l.amount, ctx.tokens)} ${to}`
    })
    return [{ detail: `The sender loses ${parts.join('; ')}, and receives nothing back.` }]
  },
}

/** The sender's assets end up with an address without code that the calldata does not name. */
export const assetsToNoCodeRecipient: ScreenRule = {
  id: 'assets-to-no-code-recipient',
  severity: 'warning',
  title: "The sender's assets go to an address without code the calldata does not name",
  checks:
    'In the simulated execution an asset the sender loses ends up (net) with an account that has no code at the pinned block (or only an EIP-7702 delegation), is not the zero address, is not a recipient the calldata declares nor a counterparty of a trade it names (the Seaport offerer and the consideration recipients it signed), and the transaction is not an action of known protocol code credited to the sender (as for `drain-shape`).',
  why: 'Protocols keep funds in contracts; value routed to a key-controlled account nobody named is someone taking it.',
  example: "`deposit()` whose contract forwards the sender's tokens to a private key's account.",
  evaluate({ ctx, sites }: RuleInput) {
    const effects = seenEffects(ctx)
    if (effects === undefined) return []
    if (creditedProtocolAction(ctx.tx, sites, ctx.codes, effects)) return []
    const declared = acceptedRecipients(sites)
    const hits: RuleHit[] = []
    for (const loss of senderLosses(effects, ctx.tx.from)) {
      for (const gainer of loss.gainers) {
        const key = gainer.account.toLowerCase()
        if (declared.has(key) || key === zeroAddress) continue
        const code = codeOf(ctx, key)
        if (code === undefined || !isKeyAccount(code)) continue
        hits.push({
          detail: `${describeAsset(loss.asset, gainer.amount, ctx.tokens)} of the sender's goes to ${gainer.account}, which has no contract code and is not a recipient the calldata names.`,
        })
      }
    }
    return hits
  },
}

/** The answer assumes caller-supplied state. */
export const stateOverridden: ScreenRule = {
  id: 'state-overridden',
  severity: 'info',
  title: 'Computed under caller-supplied state overrides: the verdict is hypothetical',
  checks:
    'The bundle request carried `stateOverrides`; every read and the simulation assumed them (the answer also says `hypothetical: true`).',
  why: 'The chain does not hold that state: the verdict describes what would happen if it did.',
  example: "A bundle simulated with the sender's balance overridden to 100 ETH.",
  evaluate({ ctx }) {
    if (ctx.hypothetical !== true) return []
    return [
      {
        detail:
          'State overrides were applied: this answer describes a hypothetical state, not the chain as it is.',
      },
    ]
  },
}
