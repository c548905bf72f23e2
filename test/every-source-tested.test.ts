import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { transformSync } from 'esbuild'
import { describe, expect, it } from 'vitest'

// Every file of src/ with code in it is run by at least one test: a test file imports it,
// directly or through other files (test helpers, other src files), or starts it as a process
// (the compiled src/main.ts, `MAIN` of scripts/build.mjs, see test/support/guard-process.ts). A new src file that no test reaches
// fails here. `npm run test:related -- <file>` lists the tests that reach a file
// (docs/architecture.md, "Where the tests are"). Type-only imports do not count (they run
// nothing), and files that are types only (empty once compiled) have nothing to run.

const ROOT = new URL('..', import.meta.url).pathname
const THIS_FILE = new URL(import.meta.url).pathname

/** Files with code that no test runs, each with the reason. Keep it empty where possible. */
const NOT_RUN_BY_ANY_TEST: Record<string, string> = {
  // Only its types (RpcObserver, RpcOutcome) are imported; the function itself has no caller
  // in src/ either (the JSON-RPC client observes its exchanges itself).
  'src/adapters/fetch/observed-fetch.ts': 'observedFetch() has no caller',
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else if (entry.isFile() && path.endsWith('.ts')) yield path
  }
}

/**
 * What a file runs: relative imports (static, dynamic, side-effect, re-exports; not
 * `import type`/`export type`) and the `src/*.ts` files it names (a test starting the service
 * as a process).
 */
function runs(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specifiers: string[] = []
  for (const m of text.matchAll(
    /\b(import|export)\s+(type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
  )) {
    if (!m[2]) specifiers.push(m[3] as string)
  }
  for (const m of text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]/g))
    specifiers.push(m[1] as string)
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) specifiers.push(m[1] as string)
  const targets = specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')))
  for (const m of text.matchAll(/['"](src\/[\w./-]+\.ts)['"]/g)) {
    targets.push(join(ROOT, m[1] as string))
  }
  // A test that starts the compiled service (`MAIN` of scripts/build.mjs, dist/src/main.js) runs
  // src/main.ts, bundled.
  if (/\bimport\s*\{[^}]*\bMAIN\b[^}]*\}\s*from\s*['"][./]*scripts\/build\.mjs['"]/.test(text)) {
    targets.push(join(ROOT, 'src', 'main.ts'))
  }
  return targets.filter((path) => existsSync(path) && statSync(path).isFile())
}

/** A file that compiles to nothing (types, interfaces, declarations) has nothing to run. */
function hasCode(path: string): boolean {
  if (path.endsWith('.d.ts')) return false
  const { code } = transformSync(readFileSync(path, 'utf8'), {
    loader: 'ts',
    legalComments: 'none',
  })
  return code.trim() !== ''
}

describe('every src/ file with code', () => {
  it('is run by at least one test (imported, transitively, or started as a process)', () => {
    const reached = new Set<string>()
    // Every test file and helper, but this one: it names files without running them.
    const queue = [...walk(join(ROOT, 'test'))].filter((path) => path !== THIS_FILE)
    for (const file of queue) reached.add(file)
    while (queue.length > 0) {
      for (const next of runs(queue.pop() as string)) {
        if (!reached.has(next)) {
          reached.add(next)
          queue.push(next)
        }
      }
    }
    const sources = [...walk(join(ROOT, 'src'))].map((path) => relative(ROOT, path))
    expect(sources.length).toBeGreaterThan(100)
    const unreached = sources.filter(
      (path) => !reached.has(join(ROOT, path)) && hasCode(join(ROOT, path)),
    )
    expect(unreached.sort()).toEqual(Object.keys(NOT_RUN_BY_ANY_TEST).sort())
  })
})
