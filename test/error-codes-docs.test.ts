import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../src/errors.js'
import { statusForCode } from '../src/http/error-status.js'

const root = new URL('../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')

interface Row {
  status: number
  code: string
  when: string
}

/** The rows of the error table under docs/api.md's "## Errors" (`| 422 | \`code\` | when |`). */
function errorTable(doc: string): Row[] {
  const section = doc.split(/^## /m).find((part) => part.startsWith('Errors\n'))
  if (section === undefined) throw new Error('docs/api.md has no "## Errors" section')
  const lines = section.split('\n').filter((line) => line.startsWith('|'))
  expect(lines.slice(0, 2)).toEqual(['| status | code | when |', '|---|---|---|'])
  return lines.slice(2).map((line) => {
    const m = /^\| (\d{3}) \| `([a-z0-9_]+)` \| (.+) \|$/.exec(line)
    if (m === null) throw new Error(`not a "| status | \`code\` | when |" row: ${line}`)
    return { status: Number(m[1]), code: m[2] as string, when: m[3] as string }
  })
}

/** Whether a source file under src/ names `code` as a string literal, the HTTP mapping aside. */
function raisedInSource(code: string): boolean {
  const files = readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && file !== 'http/error-status.ts',
  )
  const literal = new RegExp(`['"]${code}['"]`)
  return files.some((file) => literal.test(read(`src/${file}`)))
}

describe("docs/api.md's error table", () => {
  const rows = errorTable(read('docs/api.md'))
  const documented = rows.map((row) => row.code)

  it('lists every code of ERROR_CODES, once, and no code that does not exist', () => {
    expect(ERROR_CODES.filter((code) => !documented.includes(code))).toEqual([])
    expect(documented.filter((code) => !(ERROR_CODES as readonly string[]).includes(code))).toEqual(
      [],
    )
    expect(new Set(documented).size).toBe(documented.length)
  })

  it('puts each code under the status the service answers it with', () => {
    const misplaced = rows
      .filter((row) => statusForCode(row.code as (typeof ERROR_CODES)[number]) !== row.status)
      .map((row) => `${row.code}: documented ${row.status}`)
    expect(misplaced).toEqual([])
  })

  it('marks as reserved exactly the codes no source file raises', () => {
    const reserved = rows.filter((row) => row.when.startsWith('**reserved**')).map((r) => r.code)
    const unraised = ERROR_CODES.filter((code) => !raisedInSource(code))
    expect(reserved).toEqual(unraised)
    // The check sees a raised code: the paid route's own one, and the start-up server's.
    expect(raisedInSource('payment_identifier_conflict')).toBe(true)
    expect(raisedInSource('service_starting')).toBe(true)
  })
})
