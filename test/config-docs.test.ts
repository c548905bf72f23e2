import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CONFIG_VARIABLES } from '../src/config.js'

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')

/** Variable names in the first column of a markdown table (`| \`A\`, \`B\` | ...`). */
function tableVariables(doc: string): string[] {
  return doc
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)])
    .map((m) => m[1] as string)
}

describe('the configuration documents and the code agree', () => {
  it('docs/configuration.md has one row for every variable src/config.ts reads, and no other', () => {
    const documented = tableVariables(read('docs/configuration.md'))
    expect(new Set(documented).size).toBe(documented.length)
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort())
  })

  it('.env.example sets every variable, and no other', () => {
    const names = read('.env.example')
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]+)=/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined)
    expect([...names].sort()).toEqual([...CONFIG_VARIABLES].sort())
  })

  it('docs/mainnet.md names every variable, each one a real one', () => {
    const doc = read('docs/mainnet.md')
    const named = new Set([...doc.matchAll(/`([A-Z][A-Z0-9_]{2,})(=[^`]*)?`/g)].map((m) => m[1]))
    for (const variable of CONFIG_VARIABLES) expect(named, variable).toContain(variable)
    // Anything else in capitals and backticks must be a known name, not a stale variable.
    const known = new Set<string>([...CONFIG_VARIABLES, ...MAINNET_DOC_OTHER_NAMES])
    for (const name of named) expect(known, `docs/mainnet.md names ${name}`).toContain(name)
  })
})

/** Capitalised names docs/mainnet.md may use that are not service variables. */
const MAINNET_DOC_OTHER_NAMES = [
  'PRE_SEND_PROOF_RECEIPT',
  'PAYMENT_REQUIRED',
  'BUYER_PRIVATE_KEY',
  'PRE_SEND_GUARD_URL',
  'TEST_DATABASE_URL',
]
