import { defineConfig } from 'vitest/config'
import { LongFilesFirst } from './test/support/long-files-first.js'

/**
 * Test files that run the guard in this process (its app, its domain, a devnet they start
 * themselves) and keep no state beyond their own: they share a worker's loaded modules
 * (`isolate: false`). Loading viem, hono, zod and the service again for every file was most of
 * their time (import ~200 s of ~210 s for 21 of them on two busy cores; 43 s of 66 s shared).
 * Each file still starts its own anvil, app and ledger; what the modules keep between files is
 * memos of pure functions (code recognition by code hash, checksums, parsed client addresses).
 * The setup file runs again before every file (vitest re-evaluates setup files), so every
 * response is still held against the OpenAPI document. The other files (the service as a
 * process, the paid path with its timed leases and stalls, storage threads, the buyer kit's
 * executables, the devnet and e2e) keep a fresh module graph each.
 */
const SHARED_MODULES = [
  'test/*.test.ts',
  'test/account-abstraction/**/*.test.ts',
  'test/contracts/**/*.test.ts',
  'test/corpus/**/*.test.ts',
  'test/delegation/**/*.test.ts',
  'test/effects/**/*.test.ts',
  'test/evidence/**/*.test.ts',
  'test/http/**/*.test.ts',
  'test/preflight/**/*.test.ts',
  'test/screen/**/*.test.ts',
  'test/typed-data/**/*.test.ts',
]

export default defineConfig({
  test: {
    // Every test/**/*.test.ts is in exactly one of the two projects below.
    // The client package is compiled first: the service and several tests run its build.
    globalSetup: ['test/support/build-client.ts'],
    // Every response a test receives from the guard is held against its OpenAPI document.
    setupFiles: ['test/support/contract-setup.ts'],
    // Each file starts its own anvil; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    // The long files start first, so they overlap the rest instead of ending the run alone.
    sequence: { sequencer: LongFilesFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'shared-modules', include: SHARED_MODULES, isolate: false },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: SHARED_MODULES },
      },
    ],
  },
})
