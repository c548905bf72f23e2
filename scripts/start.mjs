#!/usr/bin/env node
// `npm start`: the compiled service in this very process (no tsx, no second node). Compiles
// first only when a source is newer than the build (see build.mjs); the install's `prepare`
// has normally built it already.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ensureBuilt, MAIN } from './build.mjs'

try {
  ensureBuilt()
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
recordUrl()
await import(pathToFileURL(MAIN).href)

/**
 * Records where this guard will listen (PORT, HOST as the service reads them) in
 * node_modules/.cache, so `npm run demo` / `npm run buyer` in another shell find a guard
 * started with another PORT (see packages/client/src/cli/cli-args.ts, guardUrl). Best effort: the service
 * itself refuses a bad PORT, and a stale record only makes the CLI say to start the guard.
 */
function recordUrl() {
  const port = process.env.PORT ?? '8402'
  if (!/^[1-9][0-9]{0,4}$/.test(port)) return
  const host = process.env.HOST ?? '127.0.0.1'
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  const url = `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  try {
    const file = join(root, 'node_modules', '.cache', 'pre-send-guard', 'url')
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `${url}\n`)
  } catch {
    // A read-only install: the CLI falls back to PORT, PRE_SEND_GUARD_URL or --url.
  }
}
