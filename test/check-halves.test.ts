import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { checkParts, halves, runSideBySide } from '../scripts/check.mjs'

// `npm run check` runs `tsc --noEmit -p tsconfig.json` as two halves side by side
// (scripts/check.mjs): each builds the whole program and checks its half of the files. These
// tests hold that no file loses its check: the cut puts every file in exactly one half, on the
// project's own files as tsconfig.json names them (no program is built here).

const ROOT = new URL('..', import.meta.url).pathname

type Part = { name: string; typecheck: boolean; command: string[] }

/** The root files of tsconfig.json as tsc reads them, with their sizes. */
function rootFiles() {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )
  if (!parsed) throw new Error('tsconfig.json: unreadable')
  expect(parsed.errors).toEqual([])
  return parsed.fileNames.map((name) => ({ name, size: statSync(name).size }))
}

/** Every TypeScript file under `dir`, outside node_modules. */
function* typescriptFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory() && entry.name !== 'node_modules') yield* typescriptFiles(path)
    else if (entry.isFile() && /\.(ts|tsx|mts|cts)$/.test(entry.name)) yield path
  }
}

describe('the type check in two halves (scripts/check.mjs)', () => {
  it('starts from tsconfig.json naming every TypeScript file of src, test, scripts, bench and vitest.config.ts', () => {
    const ours = ['src', 'test', 'scripts', 'bench'].flatMap((dir) => [...typescriptFiles(dir)])
    expect(
      rootFiles()
        .map(({ name }) => relative(ROOT, name))
        .sort(),
    ).toEqual([...ours, 'vitest.config.ts'].sort())
  })

  it("puts each of the project's files in exactly one half, the halves within a file of each other in size", () => {
    const files = rootFiles()
    const [first, second] = halves(files, 2) as [string[], string[]]
    expect([...first, ...second].sort()).toEqual(files.map(({ name }) => name).sort())
    expect(first.filter((name) => second.includes(name))).toEqual([])
    const size = (names: string[]) =>
      names.reduce((sum, name) => sum + (files.find((f) => f.name === name)?.size ?? 0), 0)
    const largest = Math.max(...files.map((f) => f.size))
    expect(Math.abs(size(first) - size(second))).toBeLessThanOrEqual(largest)
    expect(first.length).toBeGreaterThan(files.length / 4)
    expect(second.length).toBeGreaterThan(files.length / 4)
  })

  it('cuts any list the same way: every file once, in one of n runs, files of no size included', () => {
    const files = [
      { name: 'd.d.ts', size: 0 },
      { name: 'a.ts', size: 50 },
      { name: 'c.ts', size: 10 },
      { name: 'b.ts', size: 30 },
      { name: 'e.ts', size: 20 },
    ]
    expect(halves(files, 2)).toEqual([['a.ts'], ['b.ts', 'c.ts', 'd.d.ts', 'e.ts']])
    expect(halves(files, 3).flat().sort()).toEqual(files.map((f) => f.name).sort())
    expect(halves(files, 1)).toEqual([['a.ts', 'b.ts', 'c.ts', 'd.d.ts', 'e.ts']])
  })

  it('is what npm run check runs (both halves and biome) and npm run typecheck (both halves)', () => {
    const parts = checkParts() as Part[]
    const script = join(ROOT, 'scripts', 'check.mjs')
    expect(parts.filter((part) => part.typecheck).map((part) => part.command.slice(1))).toEqual([
      [script, '--half', '1/2'],
      [script, '--half', '2/2'],
    ])
    expect(parts.filter((part) => !part.typecheck).map((part) => part.command.slice(2))).toEqual([
      ['check', '.'],
    ])
  })
})

describe('runSideBySide (scripts/check.mjs)', () => {
  it('prints each part as one block when it ends and names every part that failed', async () => {
    const node = (script: string) => [process.execPath, '-e', script]
    const writes: string[] = []
    const failed = await runSideBySide(
      [
        {
          name: 'slow',
          command: node("console.log('slow 1'); setTimeout(() => console.log('slow 2'), 600)"),
        },
        {
          name: 'fails',
          command: node(
            "console.log('fails 1'); setTimeout(() => { console.error('fails 2'); process.exit(3) }, 200)",
          ),
        },
        { name: 'killed', command: node("process.kill(process.pid, 'SIGTERM')") },
        { name: 'missing', command: [join(ROOT, 'no-such-command')] },
      ],
      { write: (text: string) => writes.push(text) },
    )
    expect(failed).toEqual(['fails', 'killed', 'missing'])
    expect(writes).toHaveLength(4)
    const block = (name: string) => writes.find((text) => text.startsWith(`── ${name}: `))
    expect(block('slow')).toMatch(/^── slow: ok, \d+\.\d s\nslow 1\nslow 2\n$/)
    expect(block('fails')).toMatch(/^── fails: FAILED \(exit 3\), \d+\.\d s\nfails 1\nfails 2\n$/)
    expect(block('killed')).toMatch(/^── killed: FAILED \(signal SIGTERM\), \d+\.\d s\n$/)
    expect(block('missing')).toMatch(/^── missing: FAILED \(spawn .*ENOENT\), \d+\.\d s\n$/)
    // The slow part's lines came before and after the failing part's: still one block, last.
    expect(writes.at(-1)).toBe(block('slow'))
  })
})
