import { ErrorBodySchema } from '@pre-send-guard/client/schemas'

/** Standard error responses, for `createRoute({ responses })`: the shared error body. */
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
