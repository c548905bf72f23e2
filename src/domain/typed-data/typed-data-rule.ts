import { type Address, formatUnits } from 'viem'
import type { ScreenConfig } from '../screen/context.js'
import type { RuleDescription } from '../screen/screen-rule.js'
import type { TypedDataFacts } from './read-typed-data-facts.js'
import type { ValidTypedData } from './typed-data.js'
import type { RecognisedTypedData } from './typed-data-reading.js'

/** What every typed-data rule may read: the validated data, what it is, and the chain facts. */
export interface TypedDataRuleInput {
  data: ValidTypedData
  recognised: RecognisedTypedData
  facts: TypedDataFacts
  /** The pinned block's timestamp (seconds). */
  blockTime: bigint
  chainId: number
  signer: Address
  config: ScreenConfig
}

/** A documented typed-data rule: same catalogue entry as a transaction rule, its own check. */
export interface TypedDataRule extends RuleDescription {
  /** One detail per firing. Pure: same input, same details. */
  evaluate(input: TypedDataRuleInput): string[]
}

/**
 * A token amount as raw units and, when the token's decimals are readable, in whole tokens:
 * `1500000 (1.5 USDC)`, `1500000 (1.5 at 6 decimals)` or `1500000 raw units`.
 */
export function formatAmount(facts: TypedDataFacts, token: Address, amount: bigint): string {
  const t = facts.tokens.get(token.toLowerCase())
  if (t?.decimals === undefined) return `${amount} raw units`
  const units = formatUnits(amount, t.decimals)
  return t.symbol
    ? `${amount} (${units} ${t.symbol})`
    : `${amount} (${units} at ${t.decimals} decimals)`
}

/** `30 days`, `2 hours`, `90 seconds`: a rough human reading of a span. */
export function formatSpan(seconds: bigint): string {
  const day = 86_400n
  if (seconds >= 365n * day) return `${seconds / (365n * day)} years`
  if (seconds >= day) return `${seconds / day} days`
  if (seconds >= 3600n) return `${seconds / 3600n} hours`
  if (seconds >= 60n) return `${seconds / 60n} minutes`
  return `${seconds} seconds`
}
