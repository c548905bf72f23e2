import type { NetworkFacts } from '@pre-send-guard/client/types'
import type { MiddlewareHandler } from 'hono'
import type { PreflightDeps } from '../domain/preflight/run-preflight.js'

/** What a free preflight route needs. */
export interface FreePreflightRouteDeps {
  maxBodyBytes: number
  /** The network the routes serve (its chain id, in the request schemas); default Base. */
  network?: NetworkFacts
  preflight: () => PreflightDeps
  /**
   * Admission control (`src/http/preflight-admission.ts`): runs once the body is read and
   * parsed, and takes a slot for the rest of the request or sheds it (503 `overloaded`).
   * None when absent.
   */
  admit?: MiddlewareHandler
}

/** `route` with `admit` after its own middleware (the body's guard), when there is one. */
export function withAdmission<R extends { middleware?: MiddlewareHandler | MiddlewareHandler[] }>(
  route: R,
  admit: MiddlewareHandler | undefined,
): R {
  if (admit === undefined) return route
  const own = route.middleware
  const before = own === undefined ? [] : Array.isArray(own) ? own : [own]
  return { ...route, middleware: [...before, admit] }
}
