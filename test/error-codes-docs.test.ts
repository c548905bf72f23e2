import { readdirSync, readFileSync } from 'node:fs'
import { ROUTES } from '@pre-send-guard/client/types'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../src/errors.js'
import { statusForCode } from '../src/http/error-status.js'
import { CODES_OUTSIDE_OPERATIONS, operationErrorCodes } from '../src/routes/route-error-codes.js'

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

describe('the codes each operation answers (src/routes/route-error-codes.ts)', () => {
  const paths = [
    ...Object.values(ROUTES).filter((path) => path !== ROUTES.mcp),
    '/healthz',
    '/readyz',
    '/metrics',
    '/devnet/faucet',
  ]

  it('knows every documented path, and every code is answered somewhere or said not to be', () => {
    const answered = new Set(
      paths.flatMap((path) => {
        const codes = operationErrorCodes(path)
        expect(codes, path).toBeDefined()
        return [...(codes ?? [])]
      }),
    )
    const nowhere = ERROR_CODES.filter(
      (code) => !answered.has(code) && CODES_OUTSIDE_OPERATIONS[code] === undefined,
    )
    expect(nowhere).toEqual([])
    expect(operationErrorCodes('/no/such/route')).toBeUndefined()
  })

  it('keeps the payment codes to the paid route and the reader codes to the evidence route', () => {
    const payment = ['payment_in_progress', 'settlement_pending', 'ledger_unavailable'] as const
    const reader = ['reader_unavailable', 'phishing_domain', 'unsafe_url'] as const
    for (const code of payment) {
      expect(operationErrorCodes(ROUTES.paidTransactionPreflight)?.has(code), code).toBe(true)
      expect(operationErrorCodes(ROUTES.transactionPreflight)?.has(code), code).toBe(false)
    }
    for (const code of reader) {
      expect(operationErrorCodes(ROUTES.evidence)?.has(code), code).toBe(true)
      expect(operationErrorCodes(ROUTES.bundlePreflight)?.has(code), code).toBe(false)
    }
  })
})
