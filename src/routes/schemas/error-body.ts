import { z } from '@hono/zod-openapi'
import { ERROR_CODES } from '../../errors.js'

/** The service's one error body (every 4xx/5xx except the 402 challenge, which extends it). */
export const ErrorBodySchema = z
  .object({
    error: z.enum(ERROR_CODES).openapi('ErrorCode', {
      description:
        'Stable snake_case code: once published, a code is API (new ones may be added, none is renamed). Each maps to one HTTP status (README, "Errors").',
      example: 'invalid_request',
    }),
    message: z.string().openapi({ description: 'What went wrong, for a person.' }),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .openapi({ description: 'Field-level problems; empty when the error is not about a field.' }),
    requestId: z.string().optional(),
  })
  .openapi('Error')

/** Standard error responses, for `createRoute({ responses })`. */
export function errorResponses<const S extends number>(
  entries: Record<S, string>,
): Record<
  S,
  { description: string; content: { 'application/json': { schema: typeof ErrorBodySchema } } }
> {
  const out = {} as Record<
    S,
    { description: string; content: { 'application/json': { schema: typeof ErrorBodySchema } } }
  >
  for (const [status, description] of Object.entries(entries) as [string, string][]) {
    out[Number(status) as S] = {
      description,
      content: { 'application/json': { schema: ErrorBodySchema } },
    }
  }
  return out
}
