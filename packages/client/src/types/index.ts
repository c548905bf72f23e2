/**
 * The answer vocabulary the service and its buyers share: verdicts, severities, environments,
 * error codes, payment reasons, typed-data kinds. The answer schemas
 * (`@pre-send-guard/client/schemas`) are built from these lists, and the service's domain takes
 * its codes from here, so a new code cannot reach one side only. No runtime dependency.
 */

/** One explained finding of the risk screen (declared with the answers it is part of). */
export type { Finding } from '../schemas/preflight.js'
export * from './vocabulary.js'
