#!/usr/bin/env node
// The `pre-send-guard-buyer` executable: loads the TypeScript CLI through tsx (a dependency).
import { register } from 'tsx/esm/api'

register()
const { runCli } = await import('./cli.ts')
process.exitCode = await runCli(process.argv.slice(2))
