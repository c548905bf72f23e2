#!/usr/bin/env node
// Compiles the client package (packages/client, to packages/client/dist) with tsc (it ships
// `.d.ts`) and bundles its browser challenge checker (dist/browser/check-challenge.js, which
// the service serves at /assets/check-challenge.js), and then bundles the service (src/, to
// dist/) with esbuild, so `npm start`, `npm run buyer` and the package's executables run plain
// `node` and never transpile or bundle at run time. The client comes first: the service
// imports the answer schemas and vocabulary it shares with buyers
// (`@pre-send-guard/client/schemas`, `/types`).
//
// The service is one bundle (code-split at its dynamic imports) rather than one file per
// module: Node resolves, reads and compiles a few dozen chunks instead of ~1,500 module
// files, which is most of start-up's module-load time. Type checking is `npm run typecheck`'s
// job (and `npm test`'s); the bundle is built from the same sources, including the packages
// whose own files must stay where they are (wasm, native binaries, worker-thread transports).
//
// A build is stale when the fingerprint of its inputs (path, size and mtime of every file it
// reads: sources, tsconfig, package.json, the lockfile and this script for the client;
// sources, package.json, the lockfile, this script, the contract artifacts and the client's
// build for the service) differs from the one stored beside the build. `ensureBuilt()`
// compiles only then; it builds into a scratch directory and swaps it in whole, so a
// half-written build is never run and two starts never mix builds.
//
//   node scripts/build.mjs              build both when stale (npm run build)
//   node scripts/build.mjs --client     only the client package
//   node scripts/build.mjs --agentkit   the client, then the AgentKit package (packages/agentkit)
//   node scripts/build.mjs --if-possible  the same, but only a note when TypeScript is not
//                                       installed (npm's `prepare` under `npm ci --omit=dev`)
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLIENT = join(ROOT, 'packages', 'client')
const AGENTKIT = join(ROOT, 'packages', 'agentkit')

/** What each build compiles, from what, to where. */
const TARGETS = {
  client: {
    label: 'packages/client/src/ to packages/client/dist/',
    tsconfig: join(CLIENT, 'tsconfig.json'),
    dist: join(CLIENT, 'dist'),
    main: join(CLIENT, 'dist', 'cli', 'bin.js'),
    // The browser bundle holds its dependencies' code (zod, viem parts) and this script's
    // esbuild options: a changed lockfile or script rebuilds it.
    files: [
      join(CLIENT, 'tsconfig.json'),
      join(CLIENT, 'package.json'),
      join(ROOT, 'package-lock.json'),
      join(ROOT, 'scripts', 'build.mjs'),
    ],
    dirs: [join(CLIENT, 'src')],
    /** Package executables: npm links them before `prepare` builds them, so no mode is set yet. */
    executables: [join('cli', 'bin.js'), join('mcp', 'bin.js')],
    /**
     * Browser bundles made from the compiled build (entry -> output, inside the build): the
     * buyer kit's challenge checker, which the service serves at /assets/check-challenge.js.
     */
    browserBundles: [[join('client', 'check-challenge.js'), join('browser', 'check-challenge.js')]],
  },
  agentkit: {
    label: 'packages/agentkit/src/ to packages/agentkit/dist/',
    tsconfig: join(AGENTKIT, 'tsconfig.json'),
    dist: join(AGENTKIT, 'dist'),
    main: join(AGENTKIT, 'dist', 'index.js'),
    // It compiles against the client's declarations: a new client build rebuilds it.
    files: [
      join(AGENTKIT, 'tsconfig.json'),
      join(AGENTKIT, 'package.json'),
      join(ROOT, 'package-lock.json'),
      join(ROOT, 'scripts', 'build.mjs'),
    ],
    dirs: [join(AGENTKIT, 'src'), join(CLIENT, 'dist')],
    executables: [],
  },
  service: {
    label: 'src/ to dist/',
    bundle: true,
    dist: join(ROOT, 'dist'),
    main: join(ROOT, 'dist', 'src', 'main.js'),
    // The bundle holds the dependencies' code too: a changed lockfile or client build rebuilds it.
    files: ['package.json', 'package-lock.json', 'scripts/build.mjs'].map((f) => join(ROOT, f)),
    dirs: [join(ROOT, 'src'), join(ROOT, 'contracts', 'artifacts'), join(CLIENT, 'dist')],
    executables: [],
  },
}

/** The compiled entry point `npm start` runs. */
export const MAIN = TARGETS.service.main
/** The compiled buyer CLI (`pre-send-guard-buyer`, `npm run buyer`). */
export const CLIENT_CLI = TARGETS.client.main

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else if (entry.isFile()) yield path
  }
}

/** A hash over every input's path, size and mtime: any edit, checkout, addition or removal changes it. */
export function fingerprint(target = TARGETS.service) {
  const lines = []
  const add = (path) => {
    const st = statSync(path)
    lines.push(`${relative(ROOT, path)}\t${st.size}\t${st.mtimeMs}`)
  }
  for (const file of target.files) add(file)
  for (const dir of target.dirs) for (const path of walk(dir)) add(path)
  return createHash('sha256').update(lines.sort().join('\n')).digest('hex')
}

/** Whether the target's build holds a complete build of its current sources. */
export function isFresh(print = fingerprint(), target = TARGETS.service) {
  if (!existsSync(target.main)) return false
  try {
    return readFileSync(join(target.dist, '.build-fingerprint'), 'utf8').trim() === print
  } catch {
    return false
  }
}

function tscPath() {
  try {
    return createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc')
  } catch {
    return undefined
  }
}

/**
 * Packages the service bundle leaves to Node's own loader: files they read beside their code
 * (PGlite's wasm and data, anvil's binary), worker-thread transports (pino), or optional
 * native parts (pg). Each is loaded once, from node_modules.
 */
const SERVICE_EXTERNAL = [
  '@electric-sql/pglite',
  '@foundry-rs/*',
  'ioredis',
  'pg',
  'pino',
  'pino-pretty',
]

/**
 * Bundles the service's entry points into `outdir` (ESM, split at dynamic imports, so code
 * a run does not need, such as MCP or Redis, is still loaded only on use). Paths stay
 * relative to the project root (`dist/src/main.js`), and chunks sit in `dist/chunks/`, two
 * levels below the root like the sources they came from, so files read beside the code
 * (`docs/`) are found the same way.
 */
function bundleService(outdir) {
  const require = createRequire(join(ROOT, 'package.json'))
  const { buildSync } = require('esbuild')
  buildSync({
    absWorkingDir: ROOT,
    entryPoints: [
      'src/main.ts',
      'src/adapters/storage/pglite-files.ts',
      'src/adapters/devnet/devnet-state.ts',
    ],
    outbase: '.',
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    // V8 keeps the source text of every loaded chunk in the heap for as long as the process
    // runs (functions compile lazily from it), and as two bytes per character once a chunk
    // holds a single non-ASCII one (esbuild escapes strings, never comments): no whitespace or
    // comments, and ASCII only (test/e2e/service-bundle.test.ts), cut the sources loaded at
    // start from 9 MB of heap to about 4. Identifiers and syntax are kept as written; stack
    // traces point into the chunks, `node --enable-source-maps` maps them back to src/.
    minifyWhitespace: true,
    external: SERVICE_EXTERNAL,
    // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __pre_send_guard_require } from 'node:module'; const require = __pre_send_guard_require(import.meta.url);",
    },
    logLevel: 'warning',
  })
}

/**
 * Bundles each browser entry of a compiled build for the browser (ESM, minified, es2020), so
 * the service serves a file made at install time, the very `checkChallenge` the CLI runs,
 * instead of bundling on a request. A failure fails the build: a stale build is never kept.
 */
function bundleBrowser(target, dir) {
  if (!target.browserBundles) return
  const require = createRequire(join(ROOT, 'package.json'))
  const { buildSync } = require('esbuild')
  for (const [entry, out] of target.browserBundles) {
    buildSync({
      entryPoints: [join(dir, entry)],
      outfile: join(dir, out),
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      minify: true,
      logLevel: 'silent',
    })
  }
}

/** Compiles one target when stale; true when its build is fresh afterwards. */
function buildTarget(target, optional) {
  // Taken before compiling: an edit made during the build leaves the next start stale.
  const print = fingerprint(target)
  if (isFresh(print, target)) return true
  if (target.bundle) {
    const scratch = `${target.dist}.building-${process.pid}`
    rmSync(scratch, { recursive: true, force: true })
    process.stderr.write(`pre-send-guard: bundling ${target.label} (once per source change)...\n`)
    try {
      bundleService(scratch)
    } catch (error) {
      rmSync(scratch, { recursive: true, force: true })
      throw new Error(
        `pre-send-guard: bundling ${target.label} failed: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    writeFileSync(join(scratch, '.build-fingerprint'), `${print}\n`)
    rmSync(target.dist, { recursive: true, force: true })
    renameSync(scratch, target.dist)
    return true
  }
  const tsc = tscPath()
  if (!tsc) {
    const message = `pre-send-guard: the compiled build of ${target.label} is missing or older than its sources, and TypeScript is not installed to build it (an install without devDependencies?). Run \`npm install\`, then \`npm start\`.`
    if (optional) {
      process.stderr.write(`${message}\n`)
      return false
    }
    throw new Error(message)
  }
  const scratch = `${target.dist}.building-${process.pid}`
  rmSync(scratch, { recursive: true, force: true })
  process.stderr.write(`pre-send-guard: compiling ${target.label} (once per source change)...\n`)
  const result = spawnSync(process.execPath, [tsc, '-p', target.tsconfig, '--outDir', scratch], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (result.status !== 0) {
    rmSync(scratch, { recursive: true, force: true })
    throw new Error(
      `pre-send-guard: compiling ${target.label} failed (tsc exit ${result.status ?? result.signal})`,
    )
  }
  try {
    bundleBrowser(target, scratch)
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true })
    throw new Error(
      `pre-send-guard: bundling the browser files of ${target.label} failed: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  for (const bin of target.executables) {
    if (existsSync(join(scratch, bin))) chmodSync(join(scratch, bin), 0o755)
  }
  writeFileSync(join(scratch, '.build-fingerprint'), `${print}\n`)
  rmSync(target.dist, { recursive: true, force: true })
  renameSync(scratch, target.dist)
  return true
}

/**
 * Makes the embedded ledger's template cluster (see src/adapters/storage/pglite-files.ts) with
 * the compiled code, so that the first `npm start` copies it instead of running initdb. A
 * no-op when it exists; a failure is only a note (the service makes it when missing).
 */
export function prepareLedgerTemplate() {
  const module = join(TARGETS.service.dist, 'src', 'adapters', 'storage', 'pglite-files.js')
  const result = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `await (await import(${JSON.stringify(pathToFileURL(module).href)})).ledgerTemplate()`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  )
  if (result.status !== 0) {
    process.stderr.write(
      'pre-send-guard: could not prepare the ledger template now; the first start makes it\n',
    )
  }
}

/**
 * Builds the devnet's state file (Base's infrastructure placed on an anvil, dumped; see
 * src/adapters/devnet/devnet-state.ts) with the compiled code, so that `npm start` loads it
 * instead of placing the world (seconds). A no-op when it is current; a failure is only a
 * note (the service builds it when missing).
 */
export function prepareDevnetState() {
  const module = join(TARGETS.service.dist, 'src', 'adapters', 'devnet', 'devnet-state.js')
  const result = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `await (await import(${JSON.stringify(pathToFileURL(module).href)})).ensureDevnetState((m) => process.stderr.write('pre-send-guard: ' + m + '\\n'))`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  )
  if (result.status !== 0) {
    process.stderr.write(
      'pre-send-guard: could not build the devnet state now; the first devnet start builds it\n',
    )
  }
}

/** Compiles the client package when stale (the buyer CLI and the MCP server need only it). */
export function ensureClientBuilt({ optional = false } = {}) {
  return buildTarget(TARGETS.client, optional)
}

/**
 * Compiles the AgentKit package when stale (after the client, whose declarations it compiles
 * against). Not part of `npm run build`: nothing the service runs needs it; `npm pack` of the
 * package and its tests do.
 */
export function ensureAgentkitBuilt({ optional = false } = {}) {
  return buildTarget(TARGETS.client, optional) && buildTarget(TARGETS.agentkit, optional)
}

/**
 * Compiles what is stale: the client package, then the service. Returns `true` when both are
 * fresh afterwards. Without TypeScript (a `--omit=dev` install) it fails with a message saying
 * how to get a build, unless `optional` is set.
 */
export function ensureBuilt({ optional = false } = {}) {
  return buildTarget(TARGETS.client, optional) && buildTarget(TARGETS.service, optional)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const optional = process.argv.includes('--if-possible')
    if (process.argv.includes('--client')) ensureClientBuilt({ optional })
    else if (process.argv.includes('--agentkit')) ensureAgentkitBuilt({ optional })
    else if (ensureBuilt({ optional })) {
      prepareLedgerTemplate()
      prepareDevnetState()
    }
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}
