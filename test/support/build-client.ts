// vitest globalSetup: the client package compiled once before any test file runs. The service
// imports its shared answer types (`@pre-send-guard/client/types`) at run time, and the CLI,
// pack and MCP tests run the package's compiled executables, as a user would.
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureClientBuilt } from '../../scripts/build.mjs'

export default function setup(): void {
  ensureClientBuilt()
}
