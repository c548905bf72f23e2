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

describe('the domain (src/domain)', () => {
  const files = sources('src/domain').map((path) => ({ path, text: readFileSync(path, 'utf8') }))

  it('knows no HTTP: no status codes, no HTTP layer, no web framework', () => {
    const offending = files.flatMap(({ path, text }) =>
      [
        /\bstatusForCode\b/,
        /from '(hono|@hono\/[^']+)'/,
        /from '[./]+\/(http|routes)\//,
        /\bstatus(Code)?\s*(:|===?|>=?|<=?)\s*[1-5]\d\d\b/,
      ]
        .filter((pattern) => pattern.test(text))
        .map((pattern) => `${path}: ${pattern}`),
    )
    expect(files.length).toBeGreaterThan(50)
    expect(offending).toEqual([])
  })

  it('takes the answer shapes from the shared schemas as types only (no zod at run time)', () => {
    // The domain builds answers whose types are the `z.output` of the client package's
    // schemas; it never parses with them (routes and the client do), so it imports them with
    // `import type` / `export type` only, and the package's vocabulary lists from `/types`.
    const importers = files.filter(({ text }) => text.includes("'@pre-send-guard/client/schemas'"))
    const runtime = importers.flatMap(({ path, text }) =>
      [
        ...text.matchAll(
          /^(import|export)\s+(type\s+)?\{[^}]*\}\s+from\s+'@pre-send-guard\/client\/schemas'/gm,
        ),
      ]
        .filter((m) => m[2] === undefined)
        .map(() => path),
    )
    expect(importers.length).toBeGreaterThan(5)
    expect(runtime).toEqual([])
  })

  it('starts no background loop: the process owns its timers (src/process)', () => {
    const loops = files.filter(
      ({ text }) => /\bsetInterval\(/.test(text) && !/withLease/.test(text),
    )
    expect(loops.map((f) => f.path)).toEqual([])
  })
})
