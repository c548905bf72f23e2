#!/usr/bin/env node
// The `pre-send-guard-mcp` executable (stdio MCP server). A committed file (not the build output
// itself), so npm links it when a workspace install runs before `prepare` has compiled dist/.
import '../dist/mcp/bin.js'
