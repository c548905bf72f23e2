import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { USER_OPERATION_RULE_CATALOGUE } from '../../src/domain/account-abstraction/user-operation-rules.js'
import { DELEGATION_RULE_CATALOGUE } from '../../src/domain/delegation/delegation-rules.js'
import { SCREEN_RULES, RULES as TRANSACTION_RULES } from '../../src/domain/screen/rule-catalogue.js'
import { TYPED_DATA_RULE_CATALOGUE } from '../../src/domain/typed-data/typed-data-rules.js'

/** Every documented rule: the transaction screen's, the typed-data screen's, delegations', user operations'. */
const RULES = [
  ...TRANSACTION_RULES,
  ...TYPED_DATA_RULE_CATALOGUE,
  ...DELEGATION_RULE_CATALOGUE,
  ...USER_OPERATION_RULE_CATALOGUE,
]

const doc = readFileSync(new URL('../../docs/rules.md', import.meta.url), 'utf8')

/** Rows of the catalogue table `| \`id\` | severity | title |`, whatever the column padding. */
function tableRows(): { id: string; severity: string; title: string }[] {
  const rows: { id: string; severity: string; title: string }[] = []
  for (const line of doc.split('\n')) {
    if (!line.startsWith('|')) continue
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim())
    const id = /^`([a-z0-9-]+)`$/.exec(cells[0] ?? '')?.[1]
    const severity = cells[1] ?? ''
    if (cells.length === 3 && id && /^(critical|warning|info)$/.test(severity)) {
      rows.push({ id, severity, title: cells[2] ?? '' })
    }
  }
  return rows
}

/** `### \`id\`` sections with their `**Severity:**` line. */
function sections(): Map<string, string> {
  const out = new Map<string, string>()
  const parts = doc.split(/^### /m).slice(1)
  for (const part of parts) {
    const id = /^`([^`]+)`/.exec(part)?.[1]
    const severity = /\*\*Severity:\*\* ([a-z]+)/.exec(part)?.[1]
    if (id) out.set(id, severity ?? '(missing)')
  }
  return out
}

describe('docs/rules.md and the code catalogue agree', () => {
  it('has each id once in the code, kebab-case', () => {
    const ids = RULES.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
  })

  it('lists the same ids, severities and titles in the table, both ways', () => {
    const documented = tableRows()
      .map((r) => `${r.id} ${r.severity} ${r.title}`)
      .sort()
    const coded = RULES.map((r) => `${r.id} ${r.severity} ${r.title}`).sort()
    expect(documented).toEqual(coded)
  })

  it('has a section per rule with the same severity, both ways', () => {
    const documented = [...sections()].map(([id, severity]) => `${id} ${severity}`).sort()
    const coded = RULES.map((r) => `${r.id} ${r.severity}`).sort()
    expect(documented).toEqual(coded)
  })

  it('documents checks, why and an example for every rule', () => {
    for (const rule of RULES) {
      const section = doc.split(/^### /m).find((part) => part.startsWith(`\`${rule.id}\``)) ?? ''
      expect(section, rule.id).toContain('**Checks:**')
      expect(section, rule.id).toContain('**Why it matters:**')
      expect(section, rule.id).toContain('**Example:**')
    }
  })

  it('documents the same checks, why and example text as the code', () => {
    for (const rule of RULES) {
      const section = doc.split(/^### /m).find((part) => part.startsWith(`\`${rule.id}\``)) ?? ''
      const line = (label: string) => new RegExp(`\\*\\*${label}:\\*\\* (.*)`).exec(section)?.[1]
      expect(line('Checks'), rule.id).toBe(rule.checks)
      expect(line('Why it matters'), rule.id).toBe(rule.why)
      expect(line('Example'), rule.id).toBe(rule.example)
    }
  })

  it('exports the catalogue as the data the screen runs', () => {
    expect(TRANSACTION_RULES.map((r) => r.id)).toEqual(SCREEN_RULES.map((r) => r.id))
    for (const rule of RULES) {
      expect(Object.keys(rule).sort()).toEqual([
        'checks',
        'example',
        'id',
        'severity',
        'title',
        'why',
      ])
    }
  })
})
