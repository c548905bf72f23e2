import { z } from '@hono/zod-openapi'
import { ErrorBodySchema } from '@pre-send-guard/client/schemas'
import { ENVIRONMENTS } from '@pre-send-guard/client/types'

/** One readiness check (RPC, ledger, payment rail) with what it found. */
const ReadinessCheckSchema = z
  .object({ ok: z.boolean(), problem: z.string().optional() })
  .catchall(z.unknown())
  .openapi('ReadinessCheck')

/** `GET /healthz`. */
export const HealthSchema = z
  .object({
    status: z.literal('ok'),
    environment: z.enum(ENVIRONMENTS),
    chainId: z.number().int(),
  })
  .openapi('Health')

/** `GET /readyz`, 200. */
export const ReadySchema = z
  .object({
    status: z.literal('ready'),
    environment: z.enum(ENVIRONMENTS),
    checks: z.record(z.string(), ReadinessCheckSchema),
  })
  .openapi('Ready')

/** `GET /readyz`, 503: the error body, `not_ready` its only code, with every check. */
export const NotReadySchema = ErrorBodySchema.extend({
  error: z.literal('not_ready'),
  status: z.literal('not_ready'),
  checks: z.record(z.string(), ReadinessCheckSchema),
}).openapi('NotReady')
