#!/usr/bin/env node
// `npm start`: the compiled service in this very process (no tsx, no second node). Compiles
// first only when a source is newer than the build (see build.mjs); the install's `prepare`
// has normally built it already.
import { pathToFileURL } from 'node:url'
import { ensureBuilt, MAIN } from './build.mjs'

try {
  ensureBuilt()
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
await import(pathToFileURL(MAIN).href)
