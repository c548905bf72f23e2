import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createGuardClient } from '../client/guard-client.js'
import { guardUrl, parseCliArgs, required, usage } from './cli-args.js'
import { checkAuthorizationCommand } from './cli-authorization.js'
import {
  challengeCommand,
  checkCommand,
  discoverCommand,
  evidenceCommand,
  receiptCommand,
} from './cli-commands.js'
import { flowCommand } from './cli-flow.js'
import { type CliIo, EXIT, printer, UsageError } from './cli-output.js'
import { checkTypedCommand } from './cli-typed-data.js'
import { checkUserOperationCommand } from './cli-user-operation.js'
import { findRunningGuard } from './running-guards.js'

/**
 * Runs one CLI command and resolves to its exit code ({@link EXIT}).
 *
 * @example
 * process.exitCode = await runCli(['check', '--from', a, '--to', b, '--json'])
 */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  let parsed: ReturnType<typeof parseCliArgs>
  try {
    parsed = parseCliArgs(argv)
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${usage(io.command)}`)
    return EXIT.error
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  if (values.help || command === undefined || command === 'help') {
    io.stdout(usage(io.command))
    return command === undefined && !values.help ? EXIT.error : EXIT.ok
  }
  const json = values.json ?? false
  const target = await guardUrl(values.url, io.env, () => runningGuard(io))
  const print = printer(io, json, target)
  if (target.instance) {
    // Say which guard: a checkout may run several (the newest live one is asked).
    const { pid, startedAt } = target.instance
    io.stderr(
      `guard: ${target.url} (the newest running \`npm start\` here: pid ${pid}, started ${startedAt})\n`,
    )
  }
  const guard = createGuardClient({
    baseUrl: target.url,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  })
  try {
    switch (command) {
      case 'discover':
        return await discoverCommand(guard, print)
      case 'check':
        return await checkCommand(guard, print, values)
      case 'check-typed':
        return await checkTypedCommand(guard, print, values)
      case 'check-authorization':
        return await checkAuthorizationCommand(guard, print, values)
      case 'check-userop':
        return await checkUserOperationCommand(guard, print, values)
      case 'challenge':
        return await challengeCommand(guard, print, values)
      case 'flow':
        return await flowCommand(guard, print, values, io)
      case 'receipt':
        return await receiptCommand(guard, print, required(rest[0], 'receipt <id>'))
      case 'evidence':
        return await evidenceCommand(guard, print, required(rest[0], 'evidence <url>'), values)
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`)
    }
  } catch (error) {
    return print.failure(error)
  }
}

/** The newest live guard `npm start` runs in this project, if any (never an error: a hint). */
function runningGuard(io: CliIo) {
  if (io.runningGuard) return io.runningGuard()
  const dir = io.env.PRE_SEND_GUARD_INSTANCES
  return findRunningGuard({
    ...(dir ? { dir } : {}),
    ...(io.fetch ? { fetch: io.fetch } : {}),
  })
}

function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
  }
}

function isEntry(): boolean {
  const entry = process.argv[1]
  if (!entry) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isEntry()) process.exitCode = await runCli(process.argv.slice(2))
