import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// One hex/address vocabulary, casts only after a check (issue 30): a value becomes viem's
// `Address` or `Hex` through a zod primitive (`/schemas`), a guard (`isAddressText`,
// `isBytesText`... in `/types`, or viem's `isAddress`/`isHex`), a checked conversion
// (`expectAddress`, `expectBytes`) or a typed builder (`hexSlice`, `hexNumber`, `lowerHex`).
// The casts left are the ones where TypeScript cannot see a check that happened (a value
// decoded against an ABI, a typed-data message already walked against its types) or where
// the value is passed on unchecked on purpose; each says why in a `// cast:` comment on its
// line or in the comment just above it. This test holds both: every cast is justified, and
// their number only goes down.

const ROOT = new URL('..', import.meta.url).pathname
const SCANNED = ['src', 'packages/client/src']

/** `as Address`, `as Hex` (`as Hex[]`, `as Hex | null` too) and `` as `0x${string}` ``. */
const CAST = /\bas (?:Address|Hex)\b|\bas `0x\$\{string\}`/g

/** The most casts there may be: lower it when one goes, never raise it. */
const CEILING = 17

/**
 * Lines that are not the project's own casts, by file and text: code shown to buyers as page
 * text.
 */
const EXEMPT: readonly { file: string; line: string; why: string }[] = [
  {
    file: 'src/routes/pages.ts',
    line: 'const key = process.env.BUYER_PRIVATE_KEY as Hex | undefined',
    why: 'the quickstart script, served as page text',
  },
]

interface Cast {
  file: string
  line: number
  text: string
  justified: boolean
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** True when the line, or the run of `//` comment lines just above it, says `cast:`. */
function justified(lines: readonly string[], index: number): boolean {
  if (lines[index]?.includes('// cast:')) return true
  for (let i = index - 1; i >= 0; i--) {
    const above = lines[i]?.trim() ?? ''
    if (!above.startsWith('//')) return false
    if (above.includes('cast:')) return true
  }
  return false
}

function casts(): Cast[] {
  const found: Cast[] = []
  for (const dir of SCANNED) {
    for (const path of sourceFiles(join(ROOT, dir))) {
      const file = relative(ROOT, path)
      const lines = readFileSync(path, 'utf8').split('\n')
      lines.forEach((text, i) => {
        const count = text.match(CAST)?.length ?? 0
        if (count === 0) return
        if (EXEMPT.some((e) => e.file === file && text.trim() === e.line)) return
        for (let n = 0; n < count; n++) {
          found.push({ file, line: i + 1, text: text.trim(), justified: justified(lines, i) })
        }
      })
    }
  }
  return found
}

describe('Address/Hex casts', () => {
  const found = casts()

  it('finds the casts it counts (the scan is not vacuous)', () => {
    expect(found.length).toBeGreaterThan(0)
    for (const e of EXEMPT) {
      const text = readFileSync(join(ROOT, e.file), 'utf8')
      expect(text, `${e.file} no longer holds its exempt line: drop it from EXEMPT`).toContain(
        e.line,
      )
    }
  })

  it('every cast says why in a `// cast:` comment (on its line or just above)', () => {
    const bare = found.filter((c) => !c.justified).map((c) => `${c.file}:${c.line}: ${c.text}`)
    expect(bare, 'check the value instead (a guard or zod primitive), or say why not').toEqual([])
  })

  it(`there are at most ${CEILING} casts (the ratchet only goes down)`, () => {
    expect(found.length, found.map((c) => `${c.file}:${c.line}`).join('\n')).toBeLessThanOrEqual(
      CEILING,
    )
  })
})
