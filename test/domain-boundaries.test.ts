import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  )
}

// Which rooms the domain may import (no adapters, routes, http, hono; the answer schemas as
// types only) is dependency-cruiser's to check: .dependency-cruiser.cjs, run by
// test/layering.test.ts. What is left here is what no import shows.
describe('the domain (src/domain)', () => {
  const files = sources('src/domain').map((path) => ({ path, text: readFileSync(path, 'utf8') }))

  it('knows no HTTP status: no status codes, no code -> status mapping', () => {
    const offending = files.flatMap(({ path, text }) =>
      [/\bstatusForCode\b/, /\bstatus(Code)?\s*(:|===?|>=?|<=?)\s*[1-5]\d\d\b/]
        .filter((pattern) => pattern.test(text))
        .map((pattern) => `${path}: ${pattern}`),
    )
    expect(files.length).toBeGreaterThan(50)
    expect(offending).toEqual([])
  })

  it('starts no background loop: the process owns its timers (src/process)', () => {
    const loops = files.filter(
      ({ text }) => /\bsetInterval\(/.test(text) && !/withLease/.test(text),
    )
    expect(loops.map((f) => f.path)).toEqual([])
  })
})
