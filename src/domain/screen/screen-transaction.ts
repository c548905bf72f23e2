import type { DecodedCall } from '../calldata/decode-calldata.js'
import { escapeHidden } from '../text/hidden-characters.js'
import { callSites } from './call-sites.js'
import type { Finding, ScreenConfig, ScreenContext, Severity, Verdict } from './context.js'
import { SCREEN_RULES } from './rule-catalogue.js'

/** Thresholds the issue documents as defaults; the service's config may override each. */
export const DEFAULT_SCREEN_CONFIG: ScreenConfig = {
  gasWarnThreshold: 1_000_000n,
  unlimitedAllowanceThreshold: 2n ** 128n,
  permit2ExpiryWarnSeconds: 30n * 24n * 60n * 60n,
}

const RANK: Record<Severity, number> = { critical: 0, warning: 1, info: 2 }

/** The verdict for a set of findings: the worst severity decides (critical -> block, warning -> review). */
export function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === 'critical')) return 'block'
  if (findings.some((f) => f.severity === 'warning')) return 'review'
  return 'sign'
}

/**
 * The findings of rules that judge plain facts (delegations, user operations): one per detail a
 * rule returns, in the rules' order (sort with {@link compareFindings}).
 */
export function findingsOf<F>(
  rules: readonly (Pick<Finding, 'id' | 'severity' | 'title'> & {
    evaluate(facts: F): string[]
  })[],
  facts: F,
): Finding[] {
  return rules.flatMap((rule) =>
    rule.evaluate(facts).map((detail) => ({
      id: rule.id,
      severity: rule.severity,
      title: rule.title,
      detail: printable(detail),
    })),
  )
}

/** Orders findings by severity, id, path (top level first), then detail, so output is reproducible. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    RANK[a.severity] - RANK[b.severity] ||
    compare(a.id, b.id) ||
    compare(a.path ?? '', b.path ?? '') ||
    compare(a.detail, b.detail)
  )
}

/**
 * Details quote node error texts, revert strings, token symbols and names, which may carry NULs
 * and other control characters (PostgreSQL text refuses `\u0000`, terminals misprint the rest),
 * bidi controls and invisible characters (which make the text read as something else): each is
 * written as its `\uXXXX` escape instead, so the detail stays readable, storable and shows what
 * is there. Tabs and line feeds are kept: a multi-line revert string stays readable.
 */
function printable(detail: string): string {
  return detail
    .split(/([\t\n])/)
    .map((part) => (part === '\t' || part === '\n' ? part : escapeHidden(part)))
    .join('')
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Runs every rule of the catalogue over one simulated transaction and explains the verdict.
 * Pure and deterministic: the same context, decoded calldata and config give deep-equal output.
 */
export function screenTransaction(
  ctx: ScreenContext,
  decoded: DecodedCall,
  config: ScreenConfig,
): { verdict: Verdict; findings: Finding[] } {
  const input = { ctx, decoded, config, sites: callSites(ctx.tx, decoded, ctx.tokenStandards) }
  const seen = new Set<string>()
  const findings: Finding[] = []
  for (const rule of SCREEN_RULES) {
    for (const hit of rule.evaluate(input)) {
      const finding: Finding = {
        id: rule.id,
        severity: rule.severity,
        title: rule.title,
        detail: printable(hit.detail),
      }
      if (hit.path !== undefined) finding.path = hit.path
      // The same fact reached twice (e.g. a batch permit repeating a token) is reported once.
      const key = JSON.stringify([finding.id, finding.path ?? '', finding.detail])
      if (seen.has(key)) continue
      seen.add(key)
      findings.push(finding)
    }
  }
  findings.sort(compareFindings)
  return { verdict: verdictOf(findings), findings }
}
