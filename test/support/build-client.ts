// vitest globalSetup: the client package and the service compiled once before any test file runs. The service
// imports its shared answer types (`@pre-send-guard/client/types`) at run time, and the CLI,
// pack and MCP tests run the package's compiled executables, as a user would.
// @ts-expect-error: a plain-JavaScript script without type declarations
import { ensureBuilt } from '../../scripts/build.mjs'
import { ensureDevnetState } from '../../src/adapters/devnet/devnet-state.js'

// The devnet state (Base's infrastructure, see src/adapters/devnet/devnet-state.ts) is built
// here too when missing, once, rather than by the first test files that start a devnet at once.
export default async function setup(): Promise<void> {
  // The client package, then the service's bundle (`dist/`, what `npm start` runs and the tests
  // that start the service as a process spawn), each only when a source changed.
  ensureBuilt()
  await ensureDevnetState((message) => process.stderr.write(`${message}\n`))
}
