import { z } from 'zod'
import { ERROR_CODES } from '../types/vocabulary.js'

/** The stable error code of an error body. */
export const ErrorCodeSchema = z.enum(ERROR_CODES).meta({
  id: 'ErrorCode',
  description:
    'Stable snake_case code: once published, a code is API (new ones may be added, none is renamed). Each maps to one HTTP status (docs/api.md, "Errors").',
  example: 'invalid_request',
})

/** One problem with a request, pointing at the offending field. */
export const ErrorIssueSchema = z.object({ path: z.string(), message: z.string() })
export type ErrorIssue = z.output<typeof ErrorIssueSchema>

/** The service's one error body (every 4xx/5xx except the 402 challenge, which extends it). */
export const ErrorBodySchema = z
  .object({
    error: ErrorCodeSchema,
    message: z.string().meta({ description: 'What went wrong, for a person.' }),
    issues: z
      .array(ErrorIssueSchema)
      .meta({ description: 'Field-level problems; empty when the error is not about a field.' }),
    requestId: z.string().optional(),
  })
  .meta({ id: 'Error' })
export type ErrorBody = z.output<typeof ErrorBodySchema>
