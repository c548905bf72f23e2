import type { PageEvidence } from '@pre-send-guard/client/schemas'
import { REQUEST_LIMITS } from '@pre-send-guard/client/types'
import { AppError } from '../../errors.js'
import { boundText } from './bound-text.js'
import { classifyTargetUrl, classifyUrlHost } from './classify-target-url.js'
import { sha256Hex } from './hash-text.js'
import type { PageReader } from './page-reader.js'
import { describePhishingMatch, type PhishingList } from './phishing-hosts.js'

/** Bounds of `max_chars` (500..20000, default 20000), in Unicode code points. */
export const MIN_MAX_CHARS = REQUEST_LIMITS.evidence.minMaxChars
export const MAX_MAX_CHARS = REQUEST_LIMITS.evidence.maxMaxChars
/** Longest URL accepted in a request or reported as `finalUrl`; no public page needs more. */
export const MAX_URL_LENGTH = REQUEST_LIMITS.evidence.urlLength
/** Titles and reader warnings are metadata, not evidence: cut them short. */
const MAX_TITLE_CHARS = 500
const MAX_WARNING_CHARS = 500

/** What the evidence route was asked for. */
export interface EvidenceRequest {
  url: string
  /** Budget for `markdown`, in Unicode code points. */
  maxChars: number
}

/** What collecting evidence needs: a reader, the phishing list and a clock. */
export interface EvidenceDeps {
  reader: PageReader
  phishingList: PhishingList
  now: () => Date
}

/** Bounded, hashed markdown of one public page (declared once, in the client package's schemas). */
export type { PageEvidence } from '@pre-send-guard/client/schemas'

/**
 * Vets the URL, reads the page through the reader, bounds the markdown to `maxChars` code points
 * and hashes exactly what is returned. Only the normalised `url.href` reaches the reader, and
 * only when the phishing list does not flag its host (nor the host the reader was redirected to).
 * @throws {AppError} `invalid_request` / `unsafe_url` / `phishing_domain` for a refused URL, and whatever the reader
 * throws (`reader_unavailable`, `target_error`, `target_unreachable`, `reader_refused`).
 */
export async function collectPageEvidence(
  deps: EvidenceDeps,
  request: EvidenceRequest,
  options: { signal?: AbortSignal } = {},
): Promise<PageEvidence> {
  const verdict = classifyTargetUrl(request.url)
  if (!verdict.safe) {
    const code = verdict.reason === 'unparseable' ? 'invalid_request' : 'unsafe_url'
    throw new AppError(code, `url refused (${verdict.reason}): ${verdict.detail}`, {
      issues: [{ path: 'url', message: verdict.detail }],
    })
  }
  refusePhishingHost(deps.phishingList, verdict.url.hostname, 'url refused')
  const sourceUrl = verdict.url.href
  const page = await deps.reader.read(sourceUrl, options)
  const fetchedAt = deps.now().toISOString()
  const finalUrl = vetFinalUrl(page.finalUrl, deps.phishingList)
  const bounded = boundText(page.content, request.maxChars)
  return {
    markdown: bounded.text,
    title: shortLine(page.title, MAX_TITLE_CHARS),
    sourceUrl,
    finalUrl,
    truncated: bounded.truncated,
    originalChars: bounded.originalChars,
    returnedChars: bounded.returnedChars,
    fetchedAt,
    sha256: sha256Hex(bounded.text),
    reader: deps.reader.info,
    warning: shortLine(page.warning, MAX_WARNING_CHARS),
  }
}

/**
 * The reader's final URL, normalised. Only its host is judged first, whatever its scheme,
 * userinfo or port: a redirect onto a non-public host (or a final URL with no host, such as
 * `file:`) means the reader fetched something that is not a public page, so the evidence is
 * refused. A public final URL is reported as is (another port included), except that one
 * with another scheme, with userinfo or longer than `MAX_URL_LENGTH` is reported as null, as
 * is one that does not parse at all.
 */
function vetFinalUrl(reported: string | null, phishingList: PhishingList): string | null {
  if (reported === null) return null
  let url: URL
  try {
    url = new URL(reported)
  } catch {
    return null
  }
  const host = classifyUrlHost(url)
  if (!host.public) {
    throw new AppError('unsafe_url', `the target redirected to a non-public URL: ${host.detail}`, {
      issues: [{ path: 'url', message: `redirected: ${host.detail}` }],
    })
  }
  refusePhishingHost(phishingList, url.hostname, 'the target redirected to a phishing host')
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  if (url.username !== '' || url.password !== '') return null
  return url.href.length > MAX_URL_LENGTH ? null : url.href
}

/** Throws `phishing_domain` when the list flags `host`, naming the list and its version. */
function refusePhishingHost(list: PhishingList, host: string, context: string): void {
  const match = list.check(host)
  if (match === null) return
  const detail = describePhishingMatch(host, match, list.info)
  throw new AppError('phishing_domain', `${context} (phishing_domain): ${detail}`, {
    issues: [{ path: 'url', message: detail }],
  })
}

/** Well-formed, whitespace-collapsed, bounded; empty becomes null. */
function shortLine(value: string | null, maxChars: number): string | null {
  if (value === null) return null
  const line = boundText(value.replace(/\s+/g, ' ').trim(), maxChars).text
  return line === '' ? null : line
}
