import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The client package is compiled first: the service and several tests run its build.
    globalSetup: ['test/support/build-client.ts'],
    // Every response a test receives from the guard is held against its OpenAPI document.
    setupFiles: ['test/support/contract-setup.ts'],
    // Each file starts its own anvil; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
