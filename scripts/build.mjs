#!/usr/bin/env node
// Compiles the service (src/) to JavaScript in dist/ with tsc (tsconfig.build.json), so
// `npm start` runs plain `node` and never transpiles at run time.
//
// A build is stale when the fingerprint of its inputs (path, size and mtime of every source,
// the tsconfigs, package.json and the contract artifacts it copies) differs from the one stored
// beside the build. `ensureBuilt()` compiles only then; it builds into a scratch directory and
// swaps it in whole, so a half-written dist/ is never run and two starts never mix builds.
//
//   node scripts/build.mjs              build when stale (npm run build)
//   node scripts/build.mjs --if-possible  the same, but only a note when TypeScript is not
//                                       installed (npm's `prepare` under `npm ci --omit=dev`)
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
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
const DIST = join(ROOT, 'dist')
const STAMP = join(DIST, '.build-fingerprint')
/** The compiled entry point `npm start` runs. */
export const MAIN = join(DIST, 'src', 'main.js')

const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json']
const INPUT_DIRS = ['src', join('contracts', 'artifacts')]

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else if (entry.isFile()) yield path
  }
}

/** A hash over every input's path, size and mtime: any edit, checkout, addition or removal changes it. */
export function fingerprint() {
  const lines = []
  const add = (path) => {
    const st = statSync(path)
    lines.push(`${relative(ROOT, path)}\t${st.size}\t${st.mtimeMs}`)
  }
  for (const file of INPUT_FILES) add(join(ROOT, file))
  for (const dir of INPUT_DIRS) for (const path of walk(join(ROOT, dir))) add(path)
  return createHash('sha256').update(lines.sort().join('\n')).digest('hex')
}

/** Whether dist/ holds a complete build of the current sources. */
export function isFresh(print = fingerprint()) {
  if (!existsSync(MAIN)) return false
  try {
    return readFileSync(STAMP, 'utf8').trim() === print
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
 * Compiles when stale. Returns `true` when dist/ is fresh afterwards. Without TypeScript
 * (a `--omit=dev` install) it fails with a message saying how to get a build, unless
 * `optional` is set.
 */
export function ensureBuilt({ optional = false } = {}) {
  // Taken before compiling: an edit made during the build leaves the next start stale.
  const print = fingerprint()
  if (isFresh(print)) return true
  const tsc = tscPath()
  if (!tsc) {
    const message =
      'pre-send-guard: the compiled service (dist/) is missing or older than src/, and TypeScript is not installed to build it (an install without devDependencies?). Run `npm install`, then `npm start`.'
    if (optional) {
      process.stderr.write(`${message}\n`)
      return false
    }
    throw new Error(message)
  }
  const scratch = join(ROOT, `dist.building-${process.pid}`)
  rmSync(scratch, { recursive: true, force: true })
  process.stderr.write('pre-send-guard: compiling src/ to dist/ (once per source change)...\n')
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', scratch],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  )
  if (result.status !== 0) {
    rmSync(scratch, { recursive: true, force: true })
    throw new Error(
      `pre-send-guard: compiling src/ failed (tsc exit ${result.status ?? result.signal})`,
    )
  }
  writeFileSync(join(scratch, '.build-fingerprint'), `${print}\n`)
  rmSync(DIST, { recursive: true, force: true })
  renameSync(scratch, DIST)
  return true
}

/**
 * Makes the embedded ledger's template cluster (see src/adapters/storage/pglite-files.ts) with
 * the compiled code, so that the first `npm start` copies it instead of running initdb. A
 * no-op when it exists; a failure is only a note (the service makes it when missing).
 */
export function prepareLedgerTemplate() {
  const module = join(DIST, 'src', 'adapters', 'storage', 'pglite-files.js')
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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    if (ensureBuilt({ optional: process.argv.includes('--if-possible') })) prepareLedgerTemplate()
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}
