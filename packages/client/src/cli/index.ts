/**
 * `@pre-send-guard/client/cli`: the `pre-send-guard-buyer` command line as a function, for
 * scripts and tests that want its exit code and output without a child process.
 */

export { runCli } from './cli.js'
export { DEFAULT_URL, USAGE, usage } from './cli-args.js'
export { type CliIo, DEFAULT_COMMAND, EXIT, UsageError } from './cli-output.js'
