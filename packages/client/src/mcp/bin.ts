#!/usr/bin/env node
// The `pre-send-guard-mcp` executable: the stdio MCP server for desktop agents. stdout carries
// the protocol; anything for people goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { createGuardMcpServer, optionsFromEnv } from './server.js'

let options: ReturnType<typeof optionsFromEnv>
try {
  options = optionsFromEnv(process.env, process.argv.slice(2))
} catch (error) {
  process.stderr.write(`pre-send-guard-mcp: ${(error as Error).message}\n`)
  process.exit(3)
}
const server = createGuardMcpServer(options)
await server.connect(new StdioServerTransport())
process.stderr.write(
  `pre-send-guard-mcp: serving tools for ${options.guardUrl} over stdio (${options.payer ? `payer ${options.payer.address}` : 'no payer: paid tool disabled'})\n`,
)
