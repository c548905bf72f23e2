import { undecodedCalldata } from '../../calldata/decode-calldata.js'
import {
  addressLikeWords,
  GUESS_LIMITS,
  guessedAddresses,
} from '../../calldata/guessed-addresses.js'
import { type ExecutionEffects, senderChanges } from '../../effects/execution-effects.js'
import type { CallSite } from '../call-sites.js'
import type { ScreenContext } from '../context.js'
import { seenEffects } from '../effect-facts.js'
import { hitAt, type RuleHit, type RuleInput, type ScreenRule } from '../screen-rule.js'

/** Most strangers one finding names (the detail stays one readable line for hostile calldata). */
const NAMED_LIMIT = 5

/**
 * The accounts taking part in the execution, lower-case: the sender, every call's target and
 * caller, every contract that emitted a log, every account assets moved between, and the
 * parties of approvals that do not grant the sender's assets (contracts wiring each other up).
 */
function participants(
  ctx: ScreenContext,
  sites: readonly CallSite[],
  effects: ExecutionEffects,
): Set<string> {
  const me = ctx.tx.from.toLowerCase()
  const out = new Set<string>([me, ctx.tx.to.toLowerCase()])
  for (const site of sites) {
    out.add(site.target.toLowerCase())
    out.add(site.caller.toLowerCase())
  }
  for (const emitter of ctx.logEmitters ?? []) out.add(emitter)
  for (const move of effects.moves) {
    out.add(move.from.toLowerCase())
    out.add(move.to.toLowerCase())
    if (move.asset.standard !== 'eth') out.add(move.asset.token.toLowerCase())
  }
  for (const approval of effects.approvals) {
    if (approval.owner.toLowerCase() === me) continue
    out.add(approval.owner.toLowerCase())
    out.add(approval.spender.toLowerCase())
  }
  return out
}

/** An undecoded call that names an account outside the execution while the sender loses assets. */
export const unknownCallNamesStranger: ScreenRule = {
  id: 'unknown-call-names-stranger',
  severity: 'warning',
  title: 'Calldata the screen does not decode names an outside account while assets leave',
  checks:
    "A call whose selector no protocol module knows (the top-level call or a batch item), while the sender's net position falls in the simulated execution: its argument layout is recovered from the bytes (`@openchainxyz/abi-guesser`) and every address argument, at any depth, that is neither the sender nor the account making the call nor an account taking part in the execution (a call's target, a contract that emitted a log, an account assets moved between, a party to an approval between contracts) is named with its argument path. Calldata over 1024 bytes or with more than 4 offset-like words is not guessed at, nor more than 4 calls of one transaction (the guess's cost grows fast on hostile layouts).",
  why: "A deposit, a bridge or a stake whose recipient or beneficiary is a stranger looks like the same call made for yourself: the stranger's address sits in the calldata in plain sight even when the function is unknown. An address the execution never touches is someone the sender's assets are credited to (in the contract's storage, or on another chain), not a party the sender pays for something it gets back.",
  example:
    "`deposit(1000e6, 0xStranger)` on an unfamiliar vault that takes the sender's USDC and credits `0xStranger`.",
  evaluate({ ctx, sites }: RuleInput) {
    const effects = seenEffects(ctx)
    if (effects === undefined) return []
    if (!senderChanges(effects, ctx.tx.from).some((c) => c.delta < 0n)) return []
    let taking: Set<string> | undefined
    let guessed = 0
    const hits: RuleHit[] = []
    for (const site of sites) {
      const data = undecodedCalldata(site.call)
      if (data === undefined || guessed >= GUESS_LIMITS.maxCalls) continue
      taking ??= participants(ctx, sites, effects)
      const inside = taking
      // The guess costs; calldata whose every address-like word is a participant needs none.
      if ([...addressLikeWords(data)].every((a) => inside.has(a))) continue
      guessed++
      const strangers = guessedAddresses(data).filter((n) => !inside.has(n.address.toLowerCase()))
      if (strangers.length === 0) continue
      const listed = strangers
        .slice(0, NAMED_LIMIT)
        .map((s) => `${s.address} (${s.path})`)
        .join(', ')
      const more =
        strangers.length > NAMED_LIMIT ? `, and ${strangers.length - NAMED_LIMIT} more` : ''
      hits.push(
        hitAt(
          site,
          `Selector ${site.call.selector} on ${site.target} is not decoded; its arguments name ${listed}${more}, which the execution does not touch, while the sender loses assets: they may be credited with them.`,
        ),
      )
    }
    return hits
  },
}
