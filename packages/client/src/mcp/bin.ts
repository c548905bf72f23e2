#!/usr/bin/env node
// The `pre-send-guard-mcp` executable: the stdio MCP server for desktop agents. stdout carries
// the protocol; anything for people goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  createGuardMcpServer,
  DEFAULT_GUARD_URL,
  DEFAULT_SPEND_CAP,
  GuardMcpConfigError,
  type GuardMcpOptions,
  optionsFromEnv,
} from './server.js'

let options: GuardMcpOptions
try {
  options = optionsFromEnv(process.env, process.argv.slice(2))
} catch (error) {
  // Exiting would show an MCP client only "Connection closed": serve, and let every tool
  // answer with the reason (the key itself is never part of it).
  const configError =
    error instanceof GuardMcpConfigError ? error : new GuardMcpConfigError(String(error))
  process.stderr.write(
    `pre-send-guard-mcp: ${configError.message}; every tool answers with this error until the server is restarted with a fixed configuration\n`,
  )
  options = { guardUrl: DEFAULT_GUARD_URL, spendCap: DEFAULT_SPEND_CAP, configError }
}
const server = createGuardMcpServer(options)
await server.connect(new StdioServerTransport())
if (!options.configError) {
  process.stderr.write(
    `pre-send-guard-mcp: serving tools for ${options.guardUrl} over stdio (${options.payer ? `payer ${options.payer.address}` : 'no payer: paid tool disabled'})\n`,
  )
}
