import { afterAll, afterEach } from 'vitest'
import { takeContractViolations } from './openapi-contract.js'

/**
 * Vitest setup file: a test during which the guard answered outside its OpenAPI document fails,
 * naming every drift (see `openapi-contract.ts`).
 */
function failOnViolations(): void {
  const violations = takeContractViolations()
  if (violations.length > 0) {
    throw new Error(
      `responses leave the served OpenAPI document:\n${[...new Set(violations)].join('\n')}`,
    )
  }
}

afterEach(failOnViolations)
afterAll(failOnViolations)
