import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureAgentkitBuilt } from '../../scripts/build.mjs'

/**
 * `@pre-send-guard/agentkit` as someone outside this repository gets it: `npm pack` of it and
 * of the client it depends on (not on the registry from here), installed into a project of its
 * own beside the newest `@coinbase/agentkit` and `viem` this registry serves (the versions this
 * repository installed) with `npm install --prefer-offline` (the cache the repository's own
 * install filled). Then: the tarball's files and manifest, one copy of AgentKit with its own
 * pinned viem nested and the user's viem on top, the package loads in plain Node, and strict
 * TypeScript (skipLibCheck off) finds no error in this package's or the client's declarations,
 * in a consumer of every export or in any documented snippet (the package's README, the
 * AgentKit section of docs/buyer-kit.md).
 *
 * AgentKit brings ~700 packages (1.3 GB): extracting them took 1.5 to 9 minutes here,
 * depending on the machine's load. So the consumer project is kept between runs under
 * `node_modules/.cache/pre-send-guard/agentkit-consumer/<key>`, the key hashing everything that
 * decides what npm installs there (the versions asked for, and both packages' dependency
 * lists); a new key starts from an empty folder (and old ones are deleted). Both tarballs are
 * packed and installed again on every run, with no lockfile, so npm resolves the whole tree
 * again and only re-extracts what changed. On a clean clone (CI) the folder is always cold:
 * `--offline` would not do there, as `npm ci` caches the tarballs its lockfile names but not the
 * registry's package documents that resolving `@coinbase/agentkit@0.10.4` by name reads. This
 * file is the suite's longest, so it starts first (test/support/long-files-first.ts).
 */
const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = join(ROOT, 'packages', 'agentkit')
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const CHECK_TYPES = join(ROOT, 'test', 'support', 'check-types.mjs')
const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const installed = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'))
    .version as string
/** What a user gets today: the newest AgentKit and viem this registry serves. */
const AGENTKIT = installed('@coinbase/agentkit')
const VIEM = installed('viem')

let work: string
let project: string
let files: string[]

/** The kept consumer project for these versions and dependency lists (see above). */
function consumerProject(asked: string[]): string {
  const manifests = ['client', 'agentkit'].map((name) => {
    const m = JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'))
    return [m.dependencies, m.peerDependencies]
  })
  const key = createHash('sha256')
    .update(JSON.stringify([asked, manifests]))
    .digest('hex')
    .slice(0, 16)
  const parent = join(ROOT, 'node_modules', '.cache', 'pre-send-guard', 'agentkit-consumer')
  if (existsSync(parent)) {
    for (const old of readdirSync(parent)) {
      if (old !== key) rmSync(join(parent, old), { recursive: true, force: true })
    }
  }
  const dir = join(parent, key)
  mkdirSync(dir, { recursive: true })
  // Our packages and the lockfile go every time: npm resolves the tree again.
  rmSync(join(dir, 'node_modules', '@pre-send-guard'), { recursive: true, force: true })
  rmSync(join(dir, 'package-lock.json'), { force: true })
  return dir
}

const quietNpm = (): NodeJS.ProcessEnv => ({
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'error',
})

async function pack(dir: string): Promise<{ tarball: string; files: string[] }> {
  const packed = await run(NPM, ['pack', '--json', '--pack-destination', work], {
    cwd: dir,
    env: quietNpm(),
  })
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[]
  return { tarball: join(work, info!.filename), files: info!.files.map((f) => f.path) }
}

beforeAll(async () => {
  ensureAgentkitBuilt()
  work = mkdtempSync(join(tmpdir(), 'psg-agentkit-pack-'))
  const client = await pack(join(ROOT, 'packages', 'client'))
  const agentkit = await pack(PACKAGE)
  files = agentkit.files
  const asked = [
    `@coinbase/agentkit@${AGENTKIT}`,
    `viem@${VIEM}`,
    `typescript@${rootManifest.devDependencies.typescript}`,
    `@types/node@${rootManifest.devDependencies['@types/node']}`,
  ]
  project = consumerProject(asked)
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
      client.tarball,
      agentkit.tarball,
      ...asked,
    ],
    { cwd: project, env: quietNpm(), timeout: 540_000 },
  ).catch((error: { stderr?: string }) => {
    throw new Error(
      `npm install --prefer-offline in the consumer project failed (is the npm registry reachable, or the cache filled by npm install in the repository?): ${error.stderr ?? String(error)}`,
    )
  })
}, 600_000)

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

describe('npm pack of @pre-send-guard/agentkit', () => {
  it('ships compiled JavaScript and declarations, its README, CHANGELOG and LICENSE', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/guarded-wallet-provider.js',
        'README.md',
        'CHANGELOG.md',
        'LICENSE',
        'package.json',
      ]),
    )
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([])
    expect(files.filter((f) => f.endsWith('.map') || f.includes('fingerprint'))).toEqual([])
    const manifest = JSON.parse(
      readFileSync(
        join(project, 'node_modules', '@pre-send-guard', 'agentkit', 'package.json'),
        'utf8',
      ),
    )
    expect(manifest.license).toBe('MIT')
    // AgentKit and viem are the user's; the client is a dependency.
    expect(manifest.peerDependencies).toEqual({
      '@coinbase/agentkit': expect.stringMatching(/^\^0\.10\.\d+$/),
      viem: expect.stringMatching(/^\^2\.\d+\.\d+$/),
    })
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@pre-send-guard/client', 'zod'])
  })

  it("installs beside the user's AgentKit and viem: one AgentKit, the user's viem on top", async () => {
    const listed = await run(NPM, ['ls', '@coinbase/agentkit', 'viem', '--all', '--parseable'], {
      cwd: project,
      env: quietNpm(),
    })
    const paths = listed.stdout.trim().split('\n')
    expect(paths.filter((p) => /[\\/]node_modules[\\/]@coinbase[\\/]agentkit$/.test(p))).toEqual([
      join(project, 'node_modules', '@coinbase', 'agentkit'),
    ])
    const version = (dir: string) =>
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version as string
    expect(version(join(project, 'node_modules', 'viem'))).toBe(VIEM)
    // What this package's createViemWalletProvider bridges: AgentKit's own, older viem.
    const agentkitViem = join(
      project,
      'node_modules',
      '@coinbase',
      'agentkit',
      'node_modules',
      'viem',
    )
    expect(paths).toContain(agentkitViem)
    expect(version(agentkitViem)).not.toBe(VIEM)
    const tree = await run(NPM, ['ls', '@pre-send-guard/agentkit', '--all', '--json'], {
      cwd: project,
      env: quietNpm(),
    })
    expect(tree.stdout).not.toMatch(/"invalid"|"missing"|"problems"/)
  })

  it('loads in plain Node: the ESM package over CommonJS AgentKit', async () => {
    const loaded = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@pre-send-guard/agentkit'); console.log(Object.keys(m).sort().join(','))",
      ],
      { cwd: project, timeout: 120_000 },
    )
    expect(loaded.stdout.trim().split(',')).toEqual(
      expect.arrayContaining([
        'PreSendGuardActionProvider',
        'SpendPolicyError',
        'createViemWalletProvider',
        'preSendGuardActionProvider',
        'withPreSendGuardWalletProvider',
      ]),
    )
  }, 120_000)

  it('compiles a strict consumer and every documented snippet', async () => {
    mkdirSync(join(project, 'snippets'), { recursive: true })
    const snippets = [
      ...markdownSnippets(join(PACKAGE, 'README.md'), 'ts'),
      ...markdownSnippets(join(ROOT, 'docs', 'buyer-kit.md'), 'ts agentkit'),
    ]
    expect(snippets.length).toBeGreaterThanOrEqual(2)
    const names = snippets.map((code, i) => {
      const file = join('snippets', `snippet-${i}.ts`)
      writeFileSync(
        join(project, file),
        /^(import|export) /m.test(code) ? code : `${code}\nexport {}\n`,
      )
      return file
    })
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { EvmWalletProvider } from '@coinbase/agentkit'
import { GuardError, PreSendGuardBaseError } from '@pre-send-guard/client'
import { TransactionBlockedError } from '@pre-send-guard/client/viem'
import {
  GUARD_NETWORKS,
  GuardNetworkMismatchError,
  guardNetworkOf,
  PreSendGuardActionProvider,
  PreSendGuardWalletProvider,
  type PolicyRule,
  type PreSendGuardWalletOptions,
  type SpendPolicy,
  SpendPolicyError,
  UnsupportedNetworkError,
  type WalletCheck,
  withPreSendGuardWalletProvider,
} from '@pre-send-guard/agentkit'

export function guard(provider: EvmWalletProvider, options: PreSendGuardWalletOptions): EvmWalletProvider {
  const wrapped: PreSendGuardWalletProvider = withPreSendGuardWalletProvider(provider, options)
  return wrapped
}
export function explain(error: unknown): string {
  if (error instanceof SpendPolicyError) return error.violations.map((v) => v.rule).join(',')
  if (error instanceof TransactionBlockedError) return error.findings.map((f) => f.id).join(',')
  if (error instanceof GuardError) return error.code
  if (error instanceof UnsupportedNetworkError || error instanceof GuardNetworkMismatchError) return error.shortMessage
  return error instanceof PreSendGuardBaseError ? error.shortMessage : 'unknown'
}
export const policy: SpendPolicy = { recipients: [], limits: { eth: 1n }, unlisted: 'refuse' }
export const verdictOf = (check: WalletCheck) => check.check.verdict
export const provider: PreSendGuardActionProvider['getActions'] = (w) => new PreSendGuardActionProvider({ guard: 'http://127.0.0.1:8402' }).getActions(w)
export const sepolia = guardNetworkOf({ protocolFamily: 'evm', networkId: 'base-sepolia' }) === GUARD_NETWORKS['base-sepolia']
// @ts-expect-error: the rule vocabulary is closed
export const wrong: PolicyRule = 'maybe'
`,
    )
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
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
        files: ['consumer.ts', ...names],
      }),
    )
    // The consumer's own TypeScript builds tsc's program (skipLibCheck off: every declaration
    // is loaded, and every type a checked file uses is resolved through them). AgentKit 0.10.4's
    // own declarations do not all compile against a newer viem (its ZeroDev wallet provider's,
    // through @zerodev/intent): those errors are AgentKit's, so the bodies of the other
    // packages' declarations are not checked (test/support/check-types.mjs: the same errors in
    // our files as `tsc -p`, in a third of its CPU). None may be in this package's
    // declarations, the client's, the consumer or a snippet.
    const compiled = await run(
      process.execPath,
      [
        CHECK_TYPES,
        'tsconfig.json',
        '--skip',
        'node_modules/',
        '--keep',
        'node_modules/@pre-send-guard/',
      ],
      { cwd: project, maxBuffer: 64 * 1024 * 1024 },
    ).then(
      (done) => ({ ...done, code: 0 }),
      (error: { stdout: string; stderr: string; code: number }) => error,
    )
    const errors = `${compiled.stdout}${compiled.stderr}`
      .split('\n')
      .filter((line) => /error TS\d+/.test(line))
    // It fails with diagnostics (exit 2), never silently (a crash is no pass).
    if (compiled.code !== 0) {
      expect(errors.length, `${compiled.stdout}${compiled.stderr}`).toBeGreaterThan(0)
    }
    const ours = errors.filter(
      (line) =>
        !line.startsWith('node_modules/') || line.startsWith('node_modules/@pre-send-guard/'),
    )
    expect(ours).toEqual([])
  }, 400_000)
})

/** The fenced blocks of a markdown file with exactly this info string, as a reader copies them. */
function markdownSnippets(file: string, info: string): string[] {
  const fence = new RegExp(`^\`\`\`${info.replace(' ', '\\s')}\\n([\\s\\S]*?)^\`\`\`$`, 'gm')
  return [...readFileSync(file, 'utf8').matchAll(fence)].map((m) => m[1]!)
}
