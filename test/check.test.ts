import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { checkParts, runSideBySide } from '../scripts/check.mjs'

// `npm run check` (scripts/check.mjs): the client build, then tsc over tsconfig.json and biome
// side by side, each part's output one labelled block, the whole failing when a part fails.

const ROOT = new URL('..', import.meta.url).pathname

type Part = { name: string; typecheck: boolean; command: string[] }

/** The root files of tsconfig.json as tsc reads them (no program is built). */
function rootFiles(): string[] {
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
  return parsed.fileNames.map((name) => relative(ROOT, name))
}

/** Every TypeScript file under `dir`, outside node_modules. */
function* typescriptFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory() && entry.name !== 'node_modules') yield* typescriptFiles(path)
    else if (entry.isFile() && /\.(ts|tsx|mts|cts)$/.test(entry.name)) yield path
  }
}

describe('npm run check (scripts/check.mjs)', () => {
  it('type-checks every TypeScript file of src, test, scripts, bench and vitest.config.ts', () => {
    const ours = ['src', 'test', 'scripts', 'bench'].flatMap((dir) => [...typescriptFiles(dir)])
    expect(rootFiles().sort()).toEqual([...ours, 'vitest.config.ts'].sort())
  })

  it('runs tsc over tsconfig.json and biome (npm run typecheck: tsc alone)', () => {
    const parts = checkParts() as Part[]
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
    expect(parts.filter((part) => part.typecheck).map((part) => part.command.slice(1))).toEqual([
      ['--max-semi-space-size=64', tsc, '--noEmit', '-p', 'tsconfig.json'],
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
