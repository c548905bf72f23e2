import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt } from '../../scripts/build.mjs'

const DIST = new URL('../../dist', import.meta.url).pathname

/** Index of the first UTF-16 code unit above 0x7f in `text`, or -1. */
function firstNonAscii(text: string): number {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return i
  return -1
}

// V8 keeps the source of every loaded chunk in the heap while the process runs, as two bytes
// per character once the chunk holds one character outside ASCII: the bundle is built without
// comments (scripts/build.mjs) and our markup writes such characters as escapes.
describe('the service bundle', () => {
  it('is ASCII only, so its sources cost one byte a character in the heap', () => {
    ensureBuilt()
    const offenders: string[] = []
    for (const entry of readdirSync(DIST, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.js')) continue
      const path = join(entry.parentPath, entry.name)
      const text = readFileSync(path, 'utf8')
      const at = firstNonAscii(text)
      if (at >= 0)
        offenders.push(`${path.slice(DIST.length + 1)}: ...${text.slice(at - 40, at + 10)}`)
    }
    expect(offenders).toEqual([])
  }, 120_000)
})
