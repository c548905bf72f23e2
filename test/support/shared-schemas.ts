import { createRoute, OpenAPIHono } from '@hono/zod-openapi'
import * as shared from '@pre-send-guard/client/schemas'
import type { z } from 'zod'

/** Every schema of `@pre-send-guard/client/schemas` that names an OpenAPI component, by name. */
export function sharedComponents(): Map<string, z.ZodType> {
  const byId = new Map<string, z.ZodType>()
  for (const value of Object.values(shared)) {
    if (!isZod(value)) continue
    const id = value.meta()?.id
    if (typeof id === 'string') byId.set(id, value)
  }
  return byId
}

/**
 * The OpenAPI components the shared schemas generate on their own, with the generator the
 * service uses (@hono/zod-openapi), outside the service: what the served document must hold.
 */
export function componentsOfSharedSchemas(): Record<string, unknown> {
  const app = new OpenAPIHono()
  let n = 0
  for (const schema of sharedComponents().values()) {
    app.openAPIRegistry.registerPath({
      method: 'get',
      path: `/shared/${n++}`,
      responses: { 200: { description: 'x', content: { 'application/json': { schema } } } },
    })
  }
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'x', version: '0' } })
  return (doc.components?.schemas ?? {}) as Record<string, unknown>
}

/** Response schemas of route definitions (`createRoute` results or registry definitions). */
export function responseSchemas(
  routes: { responses?: Record<string, unknown> }[],
): { where: string; schema: z.ZodType }[] {
  const out: { where: string; schema: z.ZodType }[] = []
  for (const route of routes) {
    for (const [status, response] of Object.entries(route.responses ?? {})) {
      const schema = (response as { content?: Record<string, { schema?: unknown }> }).content?.[
        'application/json'
      ]?.schema
      if (isZod(schema)) {
        out.push({ where: `${(route as { path?: string }).path} ${status}`, schema })
      }
    }
  }
  return out
}

export { createRoute }

function isZod(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value && 'meta' in value
}
