#!/usr/bin/env node
// `npm run check` (and `npm run typecheck`): the client build first (the service's types import
// its declarations), then tsc and biome side by side. Each part's output is printed as one
// block, labelled with its name, when it ends; the whole fails if any part fails, and names it.
//
// tsc is one program over tsconfig.json, as `npx tsc --noEmit -p .`, run by Node with a larger
// young generation (`--max-semi-space-size=64`): the check allocates heavily (its heap ends at
// ~2.4 GB), and fewer, larger scavenges took 44-53 s against 54-64 s on this 2-core machine.
// Two type checks side by side were measured and not kept (docs/performance.md, "npm run
// check side by side"): two programs by folder, or the one program's files cut in two halves,
// each checked by its own process. Every split builds the program twice and resolves the
// service's types in both, ~40 % more CPU, and on two cores shared with the rest of the
// machine it was no faster than one tsc.
//
//   node scripts/check.mjs             the client build, then tsc and biome
//   node scripts/check.mjs typecheck   the client build, then tsc
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { ensureClientBuilt } from './build.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const BIOME = require.resolve('@biomejs/biome/bin/biome')
const TSC = require.resolve('typescript/bin/tsc')

/**
 * The parts of `npm run check`, each a command run from the project root. `typecheck` marks
 * the parts `npm run typecheck` runs. Colour is asked for only when the output is a terminal
 * (both tools drop it when piped).
 */
export function checkParts({ colour = false } = {}) {
  return [
    {
      name: 'tsc (tsc --noEmit -p tsconfig.json)',
      typecheck: true,
      command: [
        process.execPath,
        '--max-semi-space-size=64',
        TSC,
        '--noEmit',
        '-p',
        'tsconfig.json',
        ...(colour ? ['--pretty'] : []),
      ],
    },
    {
      name: 'biome (biome check .)',
      typecheck: false,
      command: [process.execPath, BIOME, 'check', '.', ...(colour ? ['--colors=force'] : [])],
    },
  ]
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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
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
