import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { OPENAPI_REQUEST_BODIES, PageEvidenceSchema } from '@pre-send-guard/client/schemas'
import { ROUTES } from '@pre-send-guard/client/types'
import { collectPageEvidence } from '../domain/evidence/collect-page-evidence.js'
import type { PageReader } from '../domain/evidence/page-reader.js'
import type { PhishingList } from '../domain/evidence/phishing-hosts.js'
import { jsonBody } from '../http/json-body.js'
import { errorResponses } from './schemas/error-body.js'

/** Builds the route definition; `maxBodyBytes` guards the body before validation. */
export function publicPageEvidenceRoute(maxBodyBytes: number) {
  return createRoute({
    method: 'post',
    path: ROUTES.evidence,
    operationId: 'publicPageEvidence',
    tags: ['evidence'],
    summary: 'Public-page evidence: one public URL to bounded, hashed, LLM-ready markdown',
    description:
      "Vets the URL without resolving it, refuses hosts on MetaMask's phishing list, fetches it through a reader service (Jina Reader by default, or a self-hosted one), cuts the markdown to `max_chars` Unicode code points and returns it with a SHA-256 of its exact UTF-8 bytes. Free; no payment.",
    middleware: jsonBody(maxBodyBytes),
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: OPENAPI_REQUEST_BODIES.evidence } },
      },
    },
    responses: {
      200: {
        description: 'Bounded markdown, its counts and hash, and where it came from.',
        content: { 'application/json': { schema: PageEvidenceSchema } },
      },
      ...errorResponses({
        422: "Unsafe or invalid input, or a target that cannot give evidence. Codes: `invalid_request`/`invalid_json`/`unsupported_content_type`/`body_too_large` (the body), `unsafe_url` (scheme, userinfo, non-default port, non-public IP literal, local or single-label name, or a redirect onto one), `phishing_domain` (a host MetaMask's phishing list, `eth-phishing-detect` pinned and offline, flags as a known phishing domain or a look-alike of a genuine one, or a redirect onto one; refused before anything is fetched, the message names the list and its version), `target_error` (the target answered an HTTP error such as 404), `target_unreachable` (the reader could not load the target), `reader_refused` (the reader declined the URL, e.g. its 451).",
        429: 'Too many requests from this client (rate limit; the evidence route has its own, as it spends the reader quota). Retry-After and the IETF RateLimit-Policy/RateLimit fields are set.',
        502: '`reader_unavailable`: the reader is down, timing out, rate-limiting (429), out of credits (402), failing (5xx) or answering garbage. Retry-After is set when the reader gave one.',
      }),
    },
  })
}

/** Mounts the public-page evidence route. */
export function registerPublicPageEvidence(
  app: OpenAPIHono,
  deps: {
    maxBodyBytes: number
    reader: () => PageReader
    phishingList: () => Promise<PhishingList>
  },
): void {
  app.openapi(publicPageEvidenceRoute(deps.maxBodyBytes), async (c) => {
    const body = c.req.valid('json')
    const evidence = await collectPageEvidence(
      { reader: deps.reader(), phishingList: await deps.phishingList(), now: () => new Date() },
      { url: body.url, maxChars: body.max_chars },
      // A client that hangs up stops the reader call too.
      { signal: c.req.raw.signal },
    )
    return c.json(evidence, 200)
  })
}
