import { z } from '@hono/zod-openapi'
import {
  MAX_MAX_CHARS,
  MAX_URL_LENGTH,
  MIN_MAX_CHARS,
} from '../../domain/evidence/collect-page-evidence.js'

/** Request body of `POST /payanagent/v1/public-page-evidence` (`url`, optional `max_chars` 500..20000): no other properties. */
export const EvidenceRequestSchema = z
  .strictObject({
    url: z.string().min(1).max(MAX_URL_LENGTH).openapi({
      format: 'uri',
      description:
        "One public http(s) URL. Refused with 422 `unsafe_url`: other schemes, a user name or password, any port but the default (80/443), IP literals that are not public unicast in any spelling (loopback, private, link-local incl. 169.254.169.254, CGNAT, multicast, reserved, every IPv6 literal embedding an IPv4 address: IPv4-mapped/compatible/translated, NAT64, 6to4, Teredo, unique-local, ...), and local or single-label names (`localhost`, `*.local`, `*.internal`, `*.home.arpa`, ...). A host MetaMask's phishing list (`eth-phishing-detect`, pinned, offline) flags, or a look-alike of a genuine target it names, is refused with 422 `phishing_domain`. The URL is normalised by WHATWG rules and only the normalised form is fetched.",
      example: 'https://example.com/',
    }),
    max_chars: z
      .number()
      .int()
      .min(MIN_MAX_CHARS)
      .max(MAX_MAX_CHARS)
      .default(MAX_MAX_CHARS)
      .openapi({
        description:
          'Largest `markdown` returned, counted in Unicode code points (an emoji or a CJK character is one; a surrogate pair is never split). Integer, 500 to 20000.',
        example: 20000,
      }),
  })
  .openapi('PublicPageEvidenceRequest')

export type EvidenceRequestBody = z.infer<typeof EvidenceRequestSchema>
