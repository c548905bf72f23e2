#!/usr/bin/env node
// `npm run buyer` and `npm run demo`: the client package's compiled CLI (pre-send-guard-buyer),
// compiled first only when its sources changed. Plain node, no tsx.
import { pathToFileURL } from 'node:url'
import { CLIENT_CLI, ensureClientBuilt } from './build.mjs'

try {
  ensureClientBuilt()
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
await import(pathToFileURL(CLIENT_CLI).href)
