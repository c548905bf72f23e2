#!/usr/bin/env node
// `npm run check` (and `npm run typecheck`): the client build first (the service's types import
// its declarations), then the independent checks side by side, one per core: the type check in
// two halves and biome. Each part's output is printed as one block, labelled with its name,
// when it ends; the whole fails if any part fails, and names it.
//
// The type check is `tsc --noEmit -p tsconfig.json` cut in two by files, not by programs: each
// half builds the whole program (same options, same files, ~12 s) and asks TypeScript for the
// semantic diagnostics of its own half of the files. Two programs by folder (the AgentKit
// tests apart) were tried first and were slower: every test imports the service, so each
// program checked most of src/ again (docs/performance.md, "npm run check side by side"). The
// report is tsc's: the first half also reports the configuration, options and global
// diagnostics; a syntax error in any file stops both halves before checking, as it stops tsc.
// `test/check-halves.test.ts` holds the cut to every file exactly once.
//
//   node scripts/check.mjs                 the client build, then both halves and biome
//   node scripts/check.mjs typecheck       the client build, then both halves
//   node scripts/check.mjs --half 1/2      one half of the type check (what the parts run)
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureClientBuilt } from './build.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const BIOME = require.resolve('@biomejs/biome/bin/biome')
const SELF = fileURLToPath(import.meta.url)
const HALVES = 2

/**
 * The parts of `npm run check`, each a command run from the project root. `typecheck` marks
 * the parts `npm run typecheck` runs. Colour is asked for only when the output is a terminal
 * (both tools drop it when piped).
 */
export function checkParts({ colour = false } = {}) {
  const pretty = colour ? ['--pretty'] : []
  return [
    ...Array.from({ length: HALVES }, (_, i) => ({
      name: `tsc, half ${i + 1} of ${HALVES} (tsconfig.json)`,
      typecheck: true,
      command: [process.execPath, SELF, '--half', `${i + 1}/${HALVES}`, ...pretty],
    })),
    {
      name: 'biome (biome check .)',
      typecheck: false,
      command: [process.execPath, BIOME, 'check', '.', ...(colour ? ['--colors=force'] : [])],
    },
  ]
}

/**
 * `files` (each `{name, size}`) cut into `count` runs of about equal size: in path order, each
 * file joins the run with the least size so far. Every file is in exactly one run. (Runs of
 * consecutive files, a folder per half, were slower: 51 and 64 s against 36 and 44 s, since
 * one half then held the tests and resolved most of the service's types again.)
 */
export function halves(files, count) {
  const sorted = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const runs = Array.from({ length: count }, () => ({ names: [], size: 0 }))
  for (const file of sorted) {
    const least = runs.reduce((min, run) => (run.size < min.size ? run : min))
    least.names.push(file.name)
    least.size += file.size
  }
  return runs.map((run) => run.names)
}

/**
 * One half of `tsc --noEmit -p tsconfig.json`: prints the diagnostics tsc would print for that
 * half's files (and, in the first half, those of no file) and returns whether there were none.
 */
function checkHalf(index, count, pretty) {
  const ts = require('typescript')
  const configPath = join(ROOT, 'tsconfig.json')
  const host = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => '\n',
  }
  const print = (diagnostics) => {
    if (diagnostics.length === 0) return
    const format = pretty ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics
    process.stdout.write(format(diagnostics, host))
  }
  const read = ts.readConfigFile(configPath, ts.sys.readFile)
  if (read.error) {
    if (index === 0) print([read.error])
    return false
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT)
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: parsed.errors,
  })
  const all = program.getSourceFiles()
  const mine = new Set(
    halves(
      all.map((file) => ({
        name: file.fileName,
        // Declarations are not checked (skipLibCheck); they weigh nothing in the cut.
        size: file.isDeclarationFile ? 0 : file.text.length,
      })),
      count,
    )[index],
  )
  const files = all.filter((file) => mine.has(file.fileName))
  const checked = files.filter((file) => !file.isDeclarationFile).length
  const own = all.filter((file) => !file.isDeclarationFile).length
  process.stdout.write(`checks ${checked} of the program's ${own} files (not declarations)\n`)
  // tsc's order: configuration and options, then syntax (stop there if any), then the rest.
  const before =
    index === 0
      ? [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics()]
      : []
  const syntax = all.flatMap((file) => program.getSyntacticDiagnostics(file))
  if (syntax.length > 0) {
    const own = syntax.filter((d) => d.file && mine.has(d.file.fileName))
    print([...before, ...own])
    if (own.length === 0) process.stdout.write('syntax errors in the other half: not checked\n')
    return false
  }
  const diagnostics = [
    ...before,
    ...(index === 0 ? program.getGlobalDiagnostics() : []),
    ...files.flatMap((file) => program.getSemanticDiagnostics(file)),
  ]
  print(diagnostics)
  return diagnostics.length === 0
}

/**
 * Starts every part at once and writes each one's output (stdout and stderr as they came) to
 * `write` as a single block when it ends, headed by its name, outcome and time. Resolves to
 * the names of the parts that failed (a non-zero exit, a signal, or a command that would not
 * start), in the order given.
 */
export async function runSideBySide(
  parts,
  { cwd = ROOT, write = (text) => process.stdout.write(text) } = {},
) {
  const outcomes = await Promise.all(
    parts.map(
      (part) =>
        new Promise((resolve) => {
          const started = performance.now()
          const chunks = []
          let settled = false
          const end = (ok, why) => {
            if (settled) return
            settled = true
            const seconds = ((performance.now() - started) / 1000).toFixed(1)
            const output = Buffer.concat(chunks).toString('utf8')
            const body = output === '' || output.endsWith('\n') ? output : `${output}\n`
            write(`── ${part.name}: ${ok ? 'ok' : `FAILED (${why})`}, ${seconds} s\n${body}`)
            resolve(ok)
          }
          const [file, ...args] = part.command
          const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
          child.stdout.on('data', (chunk) => chunks.push(chunk))
          child.stderr.on('data', (chunk) => chunks.push(chunk))
          child.on('error', (error) => end(false, error.message))
          child.on('close', (code, signal) =>
            end(code === 0, signal ? `signal ${signal}` : `exit ${code}`),
          )
        }),
    ),
  )
  return parts.filter((_, i) => !outcomes[i]).map((part) => part.name)
}

if (process.argv[1] && SELF === process.argv[1]) {
  const half = process.argv.indexOf('--half')
  if (half !== -1) {
    const [index, count] = (process.argv[half + 1] ?? '').split('/').map(Number)
    if (!Number.isInteger(index) || !Number.isInteger(count) || index < 1 || index > count) {
      process.stderr.write('usage: check.mjs --half <i>/<n>, 1 <= i <= n\n')
      process.exit(64)
    }
    process.exit(checkHalf(index - 1, count, process.argv.includes('--pretty')) ? 0 : 2)
  }
  const typecheckOnly = process.argv.includes('typecheck')
  try {
    ensureClientBuilt()
  } catch (error) {
    process.stderr.write(
      `check: the client build failed: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    process.exit(1)
  }
  const parts = checkParts({ colour: process.stdout.isTTY === true }).filter(
    (part) => part.typecheck || !typecheckOnly,
  )
  const failed = await runSideBySide(parts)
  if (failed.length > 0) {
    process.stderr.write(`check failed: ${failed.join('; ')}\n`)
    process.exit(1)
  }
}
