import type { z } from '@hono/zod-openapi'
import { EvidenceRequestSchema as SharedEvidenceRequestSchema } from '@pre-send-guard/client/schemas'

/** Request body of `POST /payanagent/v1/public-page-evidence` (declared in the client package). */
export const EvidenceRequestSchema = SharedEvidenceRequestSchema.meta({
  id: 'PublicPageEvidenceRequest',
})

export type EvidenceRequestBody = z.output<typeof EvidenceRequestSchema>
