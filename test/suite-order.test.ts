import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import config from '../vitest.config.js'
import { LONG_FILES, LongFilesFirst, longFilesFirst } from './support/long-files-first.js'

const ROOT = new URL('..', import.meta.url).pathname

describe('the order of the suite (test/support/long-files-first.ts)', () => {
  it('names only test files that exist, once each', () => {
    expect(LONG_FILES.filter((file) => !/^test\/.+\.test\.ts$/.test(file))).toEqual([])
    expect(LONG_FILES.filter((file) => !existsSync(join(ROOT, file)))).toEqual([])
    expect(new Set(LONG_FILES).size).toBe(LONG_FILES.length)
  })

  it('is the sequencer of the suite', () => {
    expect(config.test?.sequence?.sequencer).toBe(LongFilesFirst)
  })

  it("starts each project's long files first, longest first, and keeps the rest in order", () => {
    const [longest, second] = LONG_FILES as [string, string]
    const file = (project: string, path: string) => ({ project, path })
    const given = [
      file('isolated', 'test/b.test.ts'),
      file('isolated', second),
      file('isolated', 'test/a.test.ts'),
      file('isolated', longest),
      file('shared-modules', 'test/c.test.ts'),
      file('shared-modules', 'test/contracts/artifacts.test.ts'),
      file('shared-modules', 'test/d.test.ts'),
    ]
    expect(
      longFilesFirst(
        given,
        (f) => f.path,
        (f) => f.project,
      ),
    ).toEqual([
      file('isolated', longest),
      file('isolated', second),
      file('isolated', 'test/b.test.ts'),
      file('isolated', 'test/a.test.ts'),
      file('shared-modules', 'test/contracts/artifacts.test.ts'),
      file('shared-modules', 'test/c.test.ts'),
      file('shared-modules', 'test/d.test.ts'),
    ])
  })

  it("never splits a project's files, even when a long file comes after another project's", () => {
    const file = (project: string, path: string) => ({ project, path })
    expect(
      longFilesFirst(
        [
          file('isolated', 'test/a.test.ts'),
          file('shared-modules', 'test/b.test.ts'),
          file('isolated', 'test/e2e/soak.test.ts'),
        ],
        (f) => f.path,
        (f) => f.project,
      ).map((f) => f.path),
    ).toEqual(['test/e2e/soak.test.ts', 'test/a.test.ts', 'test/b.test.ts'])
  })
})
