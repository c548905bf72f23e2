#!/usr/bin/env node
// `npm run buyer` and `npm run demo`: the client package's compiled CLI (pre-send-guard-buyer),
// compiled first only when its sources changed. Plain node, no tsx. Its help and hints name
// `npm run buyer --`, the way it is run here (the package's executable names itself).
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CLIENT_CLI, ensureClientBuilt } from './build.mjs'

try {
  ensureClientBuilt()
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
const { runCli } = await import(pathToFileURL(join(CLIENT_CLI, '..', 'index.js')).href)
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  command: 'npm run buyer --',
})
