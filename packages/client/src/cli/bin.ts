#!/usr/bin/env node
// The `pre-send-guard-buyer` executable: the compiled CLI, run by plain node.
import { runCli } from './cli.js'

process.exitCode = await runCli(process.argv.slice(2))
