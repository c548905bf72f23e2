import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BAZAAR_INPUT_EXAMPLE } from '../../src/routes/paid-route-bazaar.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * The client package as someone outside this repository gets it: `npm pack` makes the tarball,
 * a fresh temporary project installs it (its dependencies from the local npm cache, else the
 * registry), runs its CLI against a real guard, and compiles a strict TypeScript consumer
 * against its published types. Plus its module graph: no import cycles, and the layers only
 * import downwards (types <- client <- viem <- cli; mcp uses client and the CLI's payer only).
 */
const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = join(ROOT, 'packages', 'client')
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const TYPESCRIPT = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies
  .typescript as string
const TYPES_NODE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies[
  '@types/node'
] as string

let work: string
let project: string
let tarball: string
let guard: ServedGuard

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'psg-client-pack-'))
  const packed = await run(NPM, ['pack', '--json', '--pack-destination', work], {
    cwd: PACKAGE,
    env: quietNpm(),
  })
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[]
  tarball = join(work, info!.filename)
  project = join(work, 'consumer')
  await run('mkdir', ['-p', project])
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '0.0.0', private: true, type: 'module' }),
  )
  await run(
    NPM,
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      tarball,
      `typescript@${TYPESCRIPT}`,
      `@types/node@${TYPES_NODE}`,
    ],
    { cwd: project, env: quietNpm(), timeout: 240_000 },
  )
  guard = await startServedGuard()
}, 300_000)

afterAll(async () => {
  await guard?.stop()
  if (work) rmSync(work, { recursive: true, force: true })
})

function quietNpm(): NodeJS.ProcessEnv {
  // No lifecycle noise and no update check; the user's cache is used as is.
  return { ...process.env, npm_config_update_notifier: 'false', npm_config_loglevel: 'error' }
}

describe('npm pack of @pre-send-guard/client', () => {
  it('ships compiled JavaScript and declarations only, with executables and no tsx', async () => {
    const listed = await run('tar', ['-tzf', tarball])
    const files = listed.stdout.trim().split('\n')
    expect(files).toContain('package/dist/cli/bin.js')
    expect(files).toContain('package/dist/mcp/bin.js')
    expect(files).toContain('package/bin/pre-send-guard-buyer.js')
    expect(files).toContain('package/bin/pre-send-guard-mcp.js')
    expect(files).toContain('package/dist/client/index.d.ts')
    expect(files).toContain('package/dist/viem/index.d.ts')
    expect(files).toContain('package/dist/schemas/index.d.ts')
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([])
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([])
    const installed = join(project, 'node_modules', '@pre-send-guard', 'client')
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx')
    expect(
      statSync(join(project, 'node_modules', '.bin', 'pre-send-guard-buyer')).mode & 0o111,
    ).not.toBe(0)
  })

  it('its installed CLI runs with plain node and checks a transaction against the guard', async () => {
    const bin = join(project, 'node_modules', '.bin', 'pre-send-guard-buyer')
    const help = await run(bin, ['--help'], { cwd: project })
    expect(help.stdout).toMatch(/Pre-Send Guard buyer kit/)
    const checked = await run(
      bin,
      [
        'check',
        '--url',
        guard.baseUrl,
        '--from',
        BAZAAR_INPUT_EXAMPLE.from,
        '--to',
        BAZAAR_INPUT_EXAMPLE.to,
        '--json',
      ],
      { cwd: project },
    )
    expect(JSON.parse(checked.stdout)).toMatchObject({ verdict: 'sign', environment: 'devnet' })
  }, 60_000)

  it('compiles a strict TypeScript consumer against every subpath', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          // DOM: viem's and the MCP SDK's own declarations name web types (CryptoKey, HeadersInit).
          lib: ['ES2023', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          verbatimModuleSyntax: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    )
    writeFileSync(
      join(project, 'consumer.ts'),
      `import {
  createGuardClient,
  GuardError,
  PreSendGuardBaseError,
  verifyOfferReceipt,
  type Discovery,
  type PreflightResult,
} from '@pre-send-guard/client'
import { checkChallenge } from '@pre-send-guard/client/client'
import { runCli } from '@pre-send-guard/client/cli'
import { createGuardMcpServer, optionsFromEnv } from '@pre-send-guard/client/mcp'
import {
  ErrorBodySchema,
  PreflightResultSchema,
  type PreflightResult as SharedPreflightResult,
} from '@pre-send-guard/client/schemas'
import { VERDICTS, type Verdict } from '@pre-send-guard/client/types'
import { TransactionBlockedError, withPreSendGuard } from '@pre-send-guard/client/viem'

const guard = createGuardClient({ baseUrl: 'http://127.0.0.1:8402' })
export async function check(from: \`0x\${string}\`, to: \`0x\${string}\`): Promise<Verdict> {
  try {
    const result: PreflightResult = await guard.preflight({ from, to, data: '0x' })
    return result.verdict
  } catch (error) {
    if (error instanceof PreSendGuardBaseError) console.error(error.shortMessage, error.details)
    if (error instanceof GuardError && error.paymentPending) throw error
    return 'block'
  }
}
export const verdicts: readonly Verdict[] = VERDICTS
export const blocked = TransactionBlockedError.prototype instanceof PreSendGuardBaseError
export type Wrap = typeof withPreSendGuard
export type Verify = (d: Discovery) => ReturnType<typeof verifyOfferReceipt>
export const fns = [checkChallenge, runCli, createGuardMcpServer, optionsFromEnv]
// @ts-expect-error: the verdict vocabulary is closed
export const wrong: Verdict = 'maybe'
// The schemas subpath: the answers' zod schemas, and the client's answer type is theirs.
export function parsed(json: unknown): PreflightResult {
  const result: SharedPreflightResult = PreflightResultSchema.parse(json)
  return result
}
export const errorCode = ErrorBodySchema.shape.error.options[0]
`,
    )
    const tsc = join(project, 'node_modules', '.bin', 'tsc')
    const compiled = await run(tsc, ['-p', 'tsconfig.json'], { cwd: project }).catch(
      (error: { stdout: string; stderr: string }) => error,
    )
    expect(`${compiled.stdout}${compiled.stderr}`).toBe('')
  }, 240_000)
})

describe('the package module graph (compiled)', () => {
  const dist = join(PACKAGE, 'dist')
  const graph = new Map<string, string[]>()
  for (const file of walk(dist)) {
    if (!file.endsWith('.js')) continue
    const source = readFileSync(file, 'utf8')
    const imports = [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
      resolve(dirname(file), m[1]!),
    )
    graph.set(file, imports)
  }

  it('has no import cycles', () => {
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'open') {
        cycles.push(
          [...path.slice(path.indexOf(file)), file].map((f) => relative(dist, f)).join(' -> '),
        )
        return
      }
      state.set(file, 'open')
      for (const next of graph.get(file) ?? []) visit(next, [...path, file])
      state.set(file, 'done')
    }
    for (const file of graph.keys()) visit(file, [])
    expect(graph.size).toBeGreaterThan(30)
    expect(cycles).toEqual([])
  })

  it('imports only downwards: types <- schemas <- client <- viem <- cli, and mcp', () => {
    const allowed: Record<string, string[]> = {
      types: ['types'],
      schemas: ['types', 'schemas'],
      client: ['types', 'schemas', 'client'],
      viem: ['types', 'schemas', 'client', 'viem'],
      cli: ['types', 'schemas', 'client', 'viem', 'cli'],
      mcp: ['types', 'schemas', 'client', 'mcp'],
    }
    const wrong: string[] = []
    for (const [file, imports] of graph) {
      const layer = relative(dist, file).split('/')[0]!
      for (const target of imports) {
        const to = relative(dist, target).split('/')[0]!
        if (!allowed[layer]?.includes(to))
          wrong.push(`${relative(dist, file)} -> ${relative(dist, target)}`)
      }
    }
    expect(wrong).toEqual([])
  })
})

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else yield path
  }
}
