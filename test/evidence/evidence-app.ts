import { createJinaReader, type JinaReaderOptions } from '../../src/adapters/reader/jina-reader.js'
import type { PageReader } from '../../src/domain/evidence/page-reader.js'
import type { FakeReader } from '../support/fake-reader.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

export const EVIDENCE_PATH = '/payanagent/v1/public-page-evidence'

// Nothing listens on the discard port; the evidence tests never call the preflight.
const UNUSED_RPC = 'http://127.0.0.1:9'

/** A Jina reader adapter pointed at the fake. */
export function readerFor(fake: FakeReader, options: Partial<JinaReaderOptions> = {}): PageReader {
  return createJinaReader({ baseUrl: fake.baseUrl, timeoutMs: 2000, ...options })
}

/** The real app with `reader` wired in. */
export function evidenceApp(reader: PageReader) {
  return preflightApp(UNUSED_RPC, { reader })
}

/** POSTs a body to the evidence route and returns status, headers and the parsed JSON. */
export async function postEvidence(
  app: ReturnType<typeof evidenceApp>,
  body: unknown,
  headers?: Record<string, string>,
) {
  const res = await postJson(app, EVIDENCE_PATH, body, headers)
  const text = await res.text()
  // Tests index into the parsed JSON freely.
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, body: json }
}
