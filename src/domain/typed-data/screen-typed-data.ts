import type { Finding, Verdict } from '../screen/context.js'
import { compareFindings, verdictOf } from '../screen/screen-transaction.js'
import type { TypedDataRuleInput } from './typed-data-rule.js'
import { TYPED_DATA_RULES } from './typed-data-rules.js'

/**
 * Runs every typed-data rule and explains the verdict, with the transaction screen's verdict
 * classes and finding order. Pure: the same input gives deep-equal output.
 */
export function screenTypedData(input: TypedDataRuleInput): {
  verdict: Verdict
  findings: Finding[]
} {
  const seen = new Set<string>()
  const findings: Finding[] = []
  for (const rule of TYPED_DATA_RULES) {
    for (const detail of rule.evaluate(input)) {
      const key = `${rule.id}\n${detail}`
      if (seen.has(key)) continue
      seen.add(key)
      findings.push({ id: rule.id, severity: rule.severity, title: rule.title, detail })
    }
  }
  findings.sort(compareFindings)
  return { verdict: verdictOf(findings), findings }
}
