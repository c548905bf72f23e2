#!/usr/bin/env node
// `npm start`: the compiled service in this very process (no tsx, no second node). Compiles
// first only when a source is newer than the build (see build.mjs); the install's `prepare`
// has normally built it already.
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ensureBuilt, MAIN } from './build.mjs'

try {
  ensureBuilt()
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
// While it serves, the service records itself (pid, URL, start time) in the checkout's
// node_modules/.cache/pre-send-guard/instances, so `npm run demo` / `npm run buyer` in another
// shell find the newest live guard of this checkout (see packages/client/src/cli/running-guards.ts).
// A value already set wins: a test points it at a scratch directory, or sets it empty for none.
if (process.env.PRE_SEND_GUARD_INSTANCES === undefined) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  process.env.PRE_SEND_GUARD_INSTANCES = join(
    root,
    'node_modules',
    '.cache',
    'pre-send-guard',
    'instances',
  )
}
await import(pathToFileURL(MAIN).href)
