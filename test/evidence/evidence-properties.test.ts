import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  defaultPage,
  type FakeReader,
  type FakeReply,
  startFakeReader,
} from '../support/fake-reader.js'
import { evidenceApp, postEvidence, readerFor } from './evidence-app.js'

let fake: FakeReader
let app: ReturnType<typeof evidenceApp>

beforeAll(async () => {
  fake = await startFakeReader()
  app = evidenceApp(readerFor(fake, { timeoutMs: 1000 }))
})

afterAll(async () => {
  await fake?.close()
})

beforeEach(() => {
  fake.fallback = defaultPage
})

const hostileUrl = fc.constantFrom(
  'http://127.0.0.1/',
  'http://[::1]/',
  'http://0x7f.1/',
  'https://x:80',
  'http://localhost./',
  'javascript:alert(1)',
  'http://user@example.com/',
)
const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.string(),
  hostileUrl,
)
const maxChars = fc.oneof(
  fc.integer({ min: 400, max: 21000 }),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constant(null),
)
const body = fc.oneof(
  fc.record({ url, max_chars: maxChars }, { requiredKeys: [] }),
  fc.record({ url, max_chars: maxChars, extra: fc.jsonValue() }, { requiredKeys: [] }),
  fc.jsonValue(),
  fc.string().map((raw) => ({ raw })),
)

function errorShaped(json: unknown) {
  expect(json).toMatchObject({
    error: expect.any(String),
    message: expect.any(String),
    issues: expect.any(Array),
  })
}

describe('public-page evidence never fails with a 5xx other than 502', () => {
  it('for random request bodies (healthy reader): 200 or 422, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const raw = input !== null && typeof input === 'object' && 'raw' in input
        const res = await postEvidence(app, raw ? (input as { raw: string }).raw : input)
        expect([200, 422]).toContain(res.status)
        if (res.status === 200) {
          expect(res.body.returnedChars).toBeLessThanOrEqual(20000)
        } else {
          errorShaped(res.body)
        }
      }),
      { numRuns: 300 },
    )
  })

  const replyStatus = fc.oneof(
    fc.constantFrom(200, 400, 402, 413, 422, 429, 451, 500, 503),
    fc.integer({ min: 200, max: 599 }),
  )
  const reply: fc.Arbitrary<FakeReply> = fc.oneof(
    fc.record({
      kind: fc.constant('page' as const),
      content: fc.string({ unit: 'binary', maxLength: 3000 }),
      title: fc.option(fc.string({ unit: 'binary' }), { nil: null }),
      url: fc.option(fc.oneof(fc.webUrl(), fc.string(), hostileUrl), { nil: null }),
      warning: fc.oneof(
        fc.string(),
        fc.constant('Target URL returned error 503: Service Unavailable'),
      ),
    }),
    fc.record({
      kind: fc.constant('error' as const),
      status: replyStatus.filter((s) => s >= 300),
      message: fc.string({ unit: 'binary' }),
      headers: fc.record(
        {
          'Retry-After': fc.oneof(
            fc.nat().map(String),
            fc.string({ unit: 'grapheme-ascii' }).filter((s) => /^[\x21-\x7e]*$/.test(s)),
            fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
          ),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      kind: fc.constant('raw' as const),
      status: replyStatus,
      body: fc.oneof(
        fc.string({ unit: 'binary' }),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
    }),
  )

  it('for random reader replies: 200, 422 or 502, never another 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(reply, fc.integer({ min: 500, max: 20000 }), async (r, max) => {
        fake.fallback = () => r
        const res = await postEvidence(app, { url: 'https://example.com/page', max_chars: max })
        expect([200, 422, 502]).toContain(res.status)
        if (res.status !== 200) {
          errorShaped(res.body)
          return
        }
        const markdown: string = res.body.markdown
        expect(res.body.returnedChars).toBeLessThanOrEqual(max)
        expect(res.body.returnedChars).toBe(Array.from(markdown).length)
        expect(markdown).not.toMatch(/\p{Surrogate}/u)
        // The hash covers exactly the UTF-8 bytes of the markdown the client decodes.
        const bytes = new TextEncoder().encode(markdown)
        expect(res.body.sha256).toBe(createHash('sha256').update(bytes).digest('hex'))
      }),
      { numRuns: 300 },
    )
  })
})
