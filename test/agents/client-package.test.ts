import { execFile } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { OpenAPIHono } from '@hono/zod-openapi'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PAGE_PATHS, QUICKSTART_PACKAGES, registerPages } from '../../src/routes/pages.js'
import { BAZAAR_INPUT_EXAMPLE } from '../../src/routes/paid-route-bazaar.js'
import { tsSnippets } from '../support/page-snippets.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/**
 * The client package as someone outside this repository gets it: `npm pack` makes the tarball,
 * and a fresh temporary project installs it beside viem (the version this repository installs,
 * the newest 2.x available offline) with `npm install --prefer-offline`: packages come from the
 * local npm cache, which the repository's own install filled; only what the cache lacks (a
 * lockfile install such as `npm ci` caches tarballs, not the registry's package documents that
 * resolving `viem@2.57.1` by name needs) is asked of the npm registry. Then:
 * one copy of viem; the tarball's README, CHANGELOG and LICENSE; its CLI and MCP server run
 * from the install against a real guard; and strict `tsc` (skipLibCheck off) passes on a
 * consumer of every subpath and on every documented snippet (the package's README,
 * docs/buyer-kit.md, the served pages), and one README snippet runs. Plus its module graph: no
 * import cycles, and the layers only import downwards.
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
/** The viem a user has: the one this repository installed (the newest 2.x this registry serves). */
const VIEM = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'viem', 'package.json'), 'utf8'))
  .version as string

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
  // The pages' quickstart packages too (their snippets import them), tsx aside: nothing runs it.
  const quickstart = QUICKSTART_PACKAGES.filter(
    (p) => !p.startsWith('tsx@') && !p.startsWith('viem@'),
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
      `viem@${VIEM}`,
      ...quickstart,
      `typescript@${TYPESCRIPT}`,
      `@types/node@${TYPES_NODE}`,
    ],
    { cwd: project, env: quietNpm(), timeout: 240_000 },
  ).catch((error: { stderr?: string }) => {
    throw new Error(
      `npm install --prefer-offline in the consumer project failed (is the npm registry reachable, or the cache filled by npm install in the repository?): ${error.stderr ?? String(error)}`,
    )
  })
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
    // What npm shows on the package's page, and the licence it is given under.
    expect(files).toEqual(
      expect.arrayContaining(['package/README.md', 'package/CHANGELOG.md', 'package/LICENSE']),
    )
    const installed = join(project, 'node_modules', '@pre-send-guard', 'client')
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
    )
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/)
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    expect(manifest.license).toBe('MIT')
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx')
    // viem is the user's: a peer with a range, never a dependency of its own.
    expect(manifest.dependencies.viem).toBeUndefined()
    expect(manifest.peerDependencies).toEqual({ viem: expect.stringMatching(/^\^2\.\d+\.\d+$/) })
    expect(
      statSync(join(project, 'node_modules', '.bin', 'pre-send-guard-buyer')).mode & 0o111,
    ).not.toBe(0)
  })

  it("installs beside the user's viem with exactly one copy of viem", async () => {
    const listed = await run(NPM, ['ls', 'viem', '--all', '--parseable'], {
      cwd: project,
      env: quietNpm(),
    })
    const copies = listed.stdout
      .trim()
      .split('\n')
      .filter((line) => /[\\/]node_modules[\\/]viem$/.test(line))
    expect(copies).toEqual([join(project, 'node_modules', 'viem')])
    const version = JSON.parse(readFileSync(join(copies[0]!, 'package.json'), 'utf8')).version
    expect(version).toBe(VIEM)
    // And npm sees the peer range satisfied (no "invalid" or "missing" peer in the tree).
    const tree = await run(NPM, ['ls', 'viem', '--all', '--json'], {
      cwd: project,
      env: quietNpm(),
    })
    expect(tree.stdout).not.toMatch(/"invalid"|"missing"|"problems"/)
  })

  it('its installed CLI runs with plain node and checks a transaction against the guard', async () => {
    const bin = join(project, 'node_modules', '.bin', 'pre-send-guard-buyer')
    const help = await run(bin, ['--help'], { cwd: project })
    expect(help.stdout).toMatch(/Pre-Send Guard buyer kit/)
    // Help for a consumer project: the executable's own name, never this repository's script.
    expect(help.stdout).toContain('Usage: pre-send-guard-buyer <command>')
    expect(help.stdout).not.toContain('npm run buyer')
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
        files: ['consumer.ts', ...snippetFiles()],
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

  it('its installed MCP server answers the official SDK client over stdio', async () => {
    const { BUYER_PRIVATE_KEY: _k, ...env } = process.env as Record<string, string>
    const client = new Client({ name: 'consumer', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: join(project, 'node_modules', '.bin', 'pre-send-guard-mcp'),
        args: ['--url', guard.baseUrl],
        cwd: project,
        env,
        stderr: 'pipe',
      }),
    )
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain('preflight_transaction')
      const answer = await client.callTool({
        name: 'preflight_transaction',
        arguments: { ...BAZAAR_INPUT_EXAMPLE },
      })
      expect(answer.structuredContent).toMatchObject({ verdict: 'sign', environment: 'devnet' })
    } finally {
      await client.close()
    }
  }, 60_000)

  it("runs the README's direct-call snippet against the guard", async () => {
    const snippet = markdownSnippets(join(PACKAGE, 'README.md')).find((code) =>
      code.includes('guard.preflight('),
    )
    expect(snippet).toBeDefined()
    const js = ts.transpileModule(snippet!.replaceAll('http://127.0.0.1:8402', guard.baseUrl), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText
    writeFileSync(join(project, 'direct-call.mjs'), js)
    const ran = await run(process.execPath, ['direct-call.mjs'], { cwd: project })
    expect(ran.stderr).toBe('')
    expect(ran.stdout).toMatch(/^sign \[.*\] \d+\n$/)
  }, 60_000)

  it('documents the MCP server through the scoped package, never a bare npx name', () => {
    const read = (f: string) => readFileSync(join(ROOT, f), 'utf8')
    const bare = /npx pre-send-guard-mcp|"args": \["pre-send-guard-mcp"\]/
    // The MCP configuration itself lives in the package README and the buyer kit's docs.
    for (const text of ['docs/buyer-kit.md', 'packages/client/README.md'].map(read)) {
      expect(text).not.toMatch(bare)
      expect(text).toContain('"-p", "@pre-send-guard/client", "pre-send-guard-mcp"')
    }
    // The root README names the command and links there.
    const readme = read('README.md')
    expect(readme).not.toMatch(bare)
    expect(readme).toContain('npx -y -p @pre-send-guard/client pre-send-guard-mcp')
    expect(readme).toContain('(packages/client/README.md)')
  })
})

/** The ```ts blocks of a markdown file, as a reader would copy them. */
function markdownSnippets(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)
}

/** Every documented TypeScript snippet as a file of the consumer project (names for tsc). */
function snippetFiles(): string[] {
  const dir = join(project, 'snippets')
  mkdirSync(dir, { recursive: true })
  const sources: [string, string[]][] = [
    ['readme', markdownSnippets(join(PACKAGE, 'README.md'))],
    ['buyer-kit', markdownSnippets(join(ROOT, 'docs', 'buyer-kit.md'))],
    ['pages', pageSnippets],
  ]
  expect(sources.map(([, found]) => found.length > 0)).toEqual([true, true, true])
  return sources.flatMap(([name, found]) =>
    found.map((code, i) => {
      const file = join('snippets', `${name}-${i}.ts`)
      // Each snippet is its own module, as its own file would be.
      writeFileSync(
        join(project, file),
        /^(import|export) /m.test(code) ? code : `${code}\nexport {}\n`,
      )
      return file
    }),
  )
}

const pageSnippets: string[] = []
beforeAll(async () => {
  const app = new OpenAPIHono()
  registerPages(app, {
    publicBaseUrl: 'https://guard.example',
    environment: 'mainnet',
    payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  })
  for (const page of PAGE_PATHS) {
    const body = await (await app.request(page)).text()
    pageSnippets.push(...tsSnippets(body).map((s) => s.code))
  }
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
