import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

// The layering rules live in .dependency-cruiser.cjs (docs/architecture.md draws them); this
// runs dependency-cruiser itself, so `npm test` fails on a domain file importing an adapter,
// an adapter importing the composition, or any import circle, type-only ones included.

const ROOT = new URL('..', import.meta.url).pathname
const CONFIG = join(ROOT, '.dependency-cruiser.cjs')
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs')

interface Violation {
  from: string
  to: string
  rule: { name: string }
  cycle?: { name: string }[]
}

/** Runs dependency-cruiser in `cwd` on `paths`; the violations, one readable line each. */
async function cruise(cwd: string, paths: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [DEPCRUISE, '--config', CONFIG, '--output-type', 'json', ...paths],
    // Exit code 1 means violations; they are in the JSON either way.
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    if (!error.stdout) throw new Error(`dependency-cruiser failed: ${error.stderr}`)
    return { stdout: error.stdout }
  })
  const result = JSON.parse(stdout) as {
    summary: { violations: Violation[]; totalCruised: number }
  }
  expect(result.summary.totalCruised).toBeGreaterThan(0)
  return result.summary.violations.map((v) =>
    v.cycle
      ? `${v.rule.name}: ${[v.from, ...v.cycle.map((step) => step.name)].join(' -> ')}`
      : `${v.rule.name}: ${v.from} -> ${v.to}`,
  )
}

describe('the layering (.dependency-cruiser.cjs)', () => {
  it('holds in src/ and the packages: rooms point one way, no import circle', async () => {
    expect(await cruise(ROOT, ['src', 'packages/client/src', 'packages/agentkit/src'])).toEqual([])
  }, 120_000)

  // The control: the same rules on a scratch tree that breaks each of them must fail.
  const scratch = mkdtempSync(join(tmpdir(), 'psg-layering-'))
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(scratch, path)), { recursive: true })
    writeFileSync(join(scratch, path), text)
  }

  it('fails a domain file importing an adapter, an adapter importing the composition, a type-only circle, and a package reaching into the service or the client into the AgentKit package', async () => {
    write(
      'tsconfig.json',
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
    )
    write('src/adapters/rpc/io.ts', "export const io = 'io'\n")
    write('src/domain/screen/rule.ts', "import { io } from '../../adapters/rpc/io.js'\nio\n")
    write('src/service/wiring.ts', "export const wiring = 'wiring'\n")
    write(
      'src/adapters/metrics/setup.ts',
      "import { wiring } from '../../service/wiring.js'\nwiring\n",
    )
    write('src/domain/a.ts', "import type { B } from './b.js'\nexport type A = { b?: B }\n")
    write('src/domain/b.ts', "import type { A } from './a.js'\nexport type B = { a?: A }\n")
    write('packages/agentkit/src/kit.ts', "export const kit = 'kit'\n")
    write(
      'packages/client/src/uses-kit.ts',
      "import { kit } from '../../agentkit/src/kit.js'\nimport { io } from '../../../src/adapters/rpc/io.js'\nkit\nio\n",
    )
    expect((await cruise(scratch, ['src', 'packages'])).sort()).toEqual([
      'adapters-are-not-composition: src/adapters/metrics/setup.ts -> src/service/wiring.ts',
      'client-stays-lean: packages/client/src/uses-kit.ts -> packages/agentkit/src/kit.ts',
      'domain-is-pure: src/domain/screen/rule.ts -> src/adapters/rpc/io.ts',
      'no-circular: src/domain/a.ts -> src/domain/b.ts -> src/domain/a.ts',
      'packages-are-not-the-service: packages/client/src/uses-kit.ts -> src/adapters/rpc/io.ts',
    ])
  }, 120_000)
})
