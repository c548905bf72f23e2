import { createHash } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { defaultPage, type FakeReader, startFakeReader } from '../support/fake-reader.js'
import { evidenceApp, postEvidence, readerFor } from './evidence-app.js'

const PAGE = 'https://example.com/article'

let fake: FakeReader
let app: ReturnType<typeof evidenceApp>

beforeAll(async () => {
  fake = await startFakeReader()
  app = evidenceApp(readerFor(fake, { apiKey: 'test-key' }))
})

afterAll(async () => {
  await fake?.close()
})

beforeEach(() => {
  fake.received.length = 0
  fake.replies.clear()
  fake.fallback = defaultPage
})

/** Recomputes the evidence hash from the response's own bytes, independently of the service. */
function recomputeHash(responseText: string): string {
  const { markdown } = JSON.parse(responseText) as { markdown: string }
  return createHash('sha256').update(new TextEncoder().encode(markdown)).digest('hex')
}

const codePoints = (text: string) => Array.from(text).length

function expectErrorShape(body: Record<string, unknown>, code: string) {
  expect(body).toEqual({
    error: code,
    message: expect.any(String),
    issues: expect.any(Array),
    requestId: expect.any(String),
  })
}

describe('public-page evidence: success', () => {
  it('returns bounded markdown, metadata and a hash a third party can recompute', async () => {
    fake.replies.set(PAGE, {
      kind: 'page',
      title: 'An  article\n',
      url: 'https://example.com/article?ref=final',
      content: '# Heading\r\n\r\nBody text.\r\n',
    })
    const before = Date.now()
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      markdown: '# Heading\n\nBody text.\n',
      title: 'An article',
      sourceUrl: PAGE,
      finalUrl: 'https://example.com/article?ref=final',
      truncated: false,
      originalChars: 22,
      returnedChars: 22,
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      sha256: recomputeHash(res.text),
      reader: { name: 'jina', baseUrl: fake.baseUrl },
      warning: null,
    })
    expect(Date.parse(res.body.fetchedAt)).toBeGreaterThanOrEqual(before - 1)
    expect(res.body.sha256).toBe(
      createHash('sha256').update(Buffer.from('# Heading\n\nBody text.\n', 'utf8')).digest('hex'),
    )
  })

  it("speaks Jina's API: POST / with JSON {url}, Accept JSON, bearer key, X-Timeout", async () => {
    await postEvidence(app, { url: PAGE })
    expect(fake.received).toHaveLength(1)
    const [request] = fake.received
    expect(request?.method).toBe('POST')
    expect(request?.path).toBe('/')
    expect(request?.body).toEqual({ url: PAGE })
    expect(request?.headers.accept).toBe('application/json')
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.headers.authorization).toBe('Bearer test-key')
    expect(request?.headers['x-timeout']).toBe('1')
  })

  it('forwards only the normalised href, fragment included', async () => {
    const res = await postEvidence(app, { url: '  HTTPS://Example.COM:443/a b/../c?q=1#Frag ' })
    expect(res.status).toBe(200)
    expect(fake.received.map((r) => r.url)).toEqual(['https://example.com/c?q=1#Frag'])
    expect(res.body.sourceUrl).toBe('https://example.com/c?q=1#Frag')
  })

  it('passes a non-fatal reader warning through and keeps the evidence', async () => {
    fake.replies.set(PAGE, {
      kind: 'page',
      content: 'partial',
      warning: 'This page maybe not yet fully loaded, consider explicitly specify a timeout.',
    })
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(200)
    expect(res.body.warning).toMatch(/not yet fully loaded/)
    expect(res.body.markdown).toBe('partial')
  })

  it('reports a null title and final URL when the reader gives none, and empty pages as empty', async () => {
    fake.replies.set(PAGE, { kind: 'page', content: '', title: null, url: null })
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ markdown: '', title: null, finalUrl: null, returnedChars: 0 })
    expect(res.body.sha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  })

  it('replaces lone surrogates before returning and hashing', async () => {
    fake.replies.set(PAGE, { kind: 'page', content: 'a\ud800b\udc00c😀' })
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(200)
    expect(res.body.markdown).toBe('a\ufffdb\ufffdc😀')
    expect(res.text).not.toMatch(/\\ud[89a-f]/i)
    expect(res.body.sha256).toBe(recomputeHash(res.text))
    expect(res.body.returnedChars).toBe(6)
  })
})

describe('public-page evidence: max_chars bounds', () => {
  const long = 'word '.repeat(5000) // 25,000 code points

  it.each([
    [499, 422],
    [500, 200],
    [20000, 200],
    [20001, 422],
    [0, 422],
    [-1, 422],
    [500.5, 422],
    ['<1e400>', 422],
    ['500', 422],
    [null, 422],
    [true, 422],
    [[500], 422],
  ])('max_chars %j -> %i', async (maxChars, status) => {
    fake.replies.set(PAGE, { kind: 'page', content: long })
    const res = await postEvidence(
      app,
      // 1e400 overflows to Infinity when the service parses it; send the literal itself.
      maxChars === '<1e400>'
        ? `{"url":"${PAGE}","max_chars":1e400}`
        : { url: PAGE, max_chars: maxChars },
    )
    expect(res.status).toBe(status)
    if (status === 200) {
      expect(res.body.truncated).toBe(true)
      expect(res.body.returnedChars).toBeLessThanOrEqual(maxChars as number)
      expect(res.body.returnedChars).toBeGreaterThan((maxChars as number) * 0.9 - 1)
      expect(codePoints(res.body.markdown)).toBe(res.body.returnedChars)
      expect(res.body.originalChars).toBe(25000)
    } else {
      expectErrorShape(res.body, 'invalid_request')
      expect(res.body.issues[0].path).toBe('max_chars')
      expect(fake.received).toHaveLength(0)
    }
  })

  it('defaults max_chars to 20000 when missing', async () => {
    fake.replies.set(PAGE, { kind: 'page', content: long })
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(200)
    expect(res.body.truncated).toBe(true)
    expect(res.body.returnedChars).toBeLessThanOrEqual(20000)
    expect(res.body.returnedChars).toBeGreaterThan(19000)
  })

  it('returns a page exactly max_chars long whole', async () => {
    fake.replies.set(PAGE, { kind: 'page', content: 'x'.repeat(500) })
    const res = await postEvidence(app, { url: PAGE, max_chars: 500 })
    expect(res.body).toMatchObject({ truncated: false, originalChars: 500, returnedChars: 500 })
  })

  it.each([
    [{}, 'url'],
    [{ url: 42 }, 'url'],
    [{ url: '' }, 'url'],
    [{ url: PAGE, extra: 1 }, ''],
    [{ url: 'not a url' }, 'url'],
    [{ url: `https://example.com/${'a'.repeat(5000)}` }, 'url'],
  ])('refuses body %j with invalid_request at %j', async (body, path) => {
    const res = await postEvidence(app, body)
    expect(res.status).toBe(422)
    expectErrorShape(res.body, 'invalid_request')
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path)
    expect(fake.received).toHaveLength(0)
  })

  it.each([
    ['[1]', 'invalid_request'],
    ['null', 'invalid_request'],
    ['{"url":', 'invalid_json'],
    ['', 'invalid_json'],
  ])('refuses raw body %j as %s', async (raw, code) => {
    const res = await postEvidence(app, raw)
    expect(res.status).toBe(422)
    expectErrorShape(res.body, code)
  })

  it('refuses a non-JSON content type', async () => {
    const res = await postEvidence(app, JSON.stringify({ url: PAGE }), {
      'content-type': 'text/plain',
    })
    expect(res.status).toBe(422)
    expectErrorShape(res.body, 'unsupported_content_type')
  })
})

describe('public-page evidence: truncation at awkward characters', () => {
  async function cut(content: string, maxChars: number) {
    fake.replies.set(PAGE, { kind: 'page', content })
    const res = await postEvidence(app, { url: PAGE, max_chars: maxChars })
    expect(res.status).toBe(200)
    expect(res.body.sha256).toBe(recomputeHash(res.text))
    expect(res.body.markdown).not.toMatch(/\p{Surrogate}/u)
    expect(codePoints(res.body.markdown)).toBe(res.body.returnedChars)
    expect(res.body.returnedChars).toBeLessThanOrEqual(maxChars)
    expect(content.startsWith(res.body.markdown)).toBe(true)
    return res.body as {
      markdown: string
      truncated: boolean
      returnedChars: number
      originalChars: number
    }
  }

  it('keeps an emoji that ends exactly at the limit and counts it as one character', async () => {
    const body = await cut(`${'a'.repeat(499)}😀${'b'.repeat(100)}`, 500)
    expect(body.markdown).toBe(`${'a'.repeat(499)}😀`)
    expect(body.markdown.length).toBe(501) // 500 code points, 501 UTF-16 units
    expect(body).toMatchObject({ truncated: true, returnedChars: 500, originalChars: 600 })
  })

  it('drops an emoji that would straddle the limit rather than split its surrogate pair', async () => {
    const body = await cut(`${'a'.repeat(500)}😀${'b'.repeat(100)}`, 500)
    expect(body.markdown).toBe('a'.repeat(500))
  })

  it('keeps flags paired when a run of flags straddles the cut', async () => {
    for (const [content, max] of [
      ['🇯🇵'.repeat(400), 501],
      ['🇯🇵'.repeat(400), 503],
      [`a${'🇯🇵'.repeat(400)}`, 500],
    ] as const) {
      const body = await cut(content, max)
      expect(body.truncated).toBe(true)
      // Whole flags only: what follows the prefix is the start of a flag.
      expect(content.slice(0, body.markdown.length + 4).endsWith('🇯🇵')).toBe(true)
      expect(body.returnedChars).toBeGreaterThanOrEqual(max - 2)
    }
  })

  it('never splits a ZWJ emoji sequence or a flag', async () => {
    const family = '👨‍👩‍👧' // 5 code points, one grapheme
    const body = await cut(`${'a'.repeat(498)}${family}${'b'.repeat(100)}`, 500)
    expect(body.markdown).toBe('a'.repeat(498))
    const flags = await cut(`${'a'.repeat(499)}🇯🇵${'b'.repeat(100)}`, 500)
    expect(flags.markdown).toBe('a'.repeat(499))
  })

  it('cuts CJK text by code points, astral ideographs included', async () => {
    const bmp = await cut('漢字'.repeat(400), 500)
    expect(bmp).toMatchObject({ returnedChars: 500, originalChars: 800 })
    expect(bmp.markdown).toBe('漢字'.repeat(250))
    const astral = await cut('𠀀𠀁'.repeat(400), 500)
    expect(astral).toMatchObject({ returnedChars: 500, originalChars: 800 })
    expect(astral.markdown.length).toBe(1000)
  })

  it('prefers a paragraph break, then a line break, near the limit', async () => {
    const para = `${'p'.repeat(470)}\n\n${'q'.repeat(20)}\n${'r'.repeat(100)}`
    expect((await cut(para, 500)).markdown).toBe('p'.repeat(470))
    const line = `${'p'.repeat(470)}\n${'q'.repeat(100)}`
    expect((await cut(line, 500)).markdown).toBe('p'.repeat(470))
    const far = `${'p'.repeat(100)}\n\n${'q'.repeat(600)}`
    expect((await cut(far, 500)).returnedChars).toBe(500)
  })

  it('cuts mixed CJK and emoji text at a line boundary when one is near', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `第${i}行 😀 テキスト`).join('\n')
    const body = await cut(lines, 500)
    expect(body.truncated).toBe(true)
    expect(lines.charAt(lines.indexOf(body.markdown) + body.markdown.length)).toBe('\n')
  })
})

describe('public-page evidence: reader trouble', () => {
  it('turns a target error page reported with a warning into target_error, not evidence', async () => {
    fake.replies.set(PAGE, {
      kind: 'page',
      title: 'Page not found',
      content: '# Page not found',
      warning: 'Target URL returned error 404: Not Found',
    })
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(422)
    expectErrorShape(res.body, 'target_error')
    expect(res.body.message).toMatch(/HTTP 404/)
    expect(res.body.markdown).toBeUndefined()
  })

  it.each([
    [429, { 'Retry-After': '30' }, '30', /rate-limiting/],
    [503, { 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' }, '0', /503/],
    [500, {}, null, /500/],
    [502, {}, null, /502/],
    [402, {}, null, /credits/],
    [401, {}, null, /credentials/],
    [404, {}, null, /404/],
  ])('reader %i -> 502 reader_unavailable', async (status, headers, retryAfter, message) => {
    fake.replies.set(PAGE, { kind: 'error', status, headers })
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(502)
    expectErrorShape(res.body, 'reader_unavailable')
    expect(res.body.message).toMatch(message)
    expect(res.headers.get('retry-after')).toBe(retryAfter)
  })

  it.each([
    [451, 'reader_refused'],
    [400, 'reader_refused'],
    [422, 'target_unreachable'],
    [413, 'target_error'],
  ])('reader %i -> 422 %s', async (status, code) => {
    fake.replies.set(PAGE, {
      kind: 'error',
      status,
      name: 'SecurityCompromiseError',
      message: 'Domain example.com blocked',
    })
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(422)
    expectErrorShape(res.body, code)
    expect(res.body.message).toMatch(/Domain example.com blocked/)
  })

  it.each([
    ['not JSON', { kind: 'raw', status: 200, body: '<html>hello</html>' }],
    ['empty', { kind: 'raw', status: 200, body: '' }],
    ['wrong shape', { kind: 'raw', status: 200, body: '{"data":{"text":1}}' }],
    ['JSON null', { kind: 'raw', status: 200, body: 'null' }],
    ['error code inside a 200', { kind: 'raw', status: 200, body: '{"data":null,"code":500}' }],
    ['invalid UTF-8', { kind: 'raw', status: 200, body: Buffer.from([0xff, 0xfe, 0x7b]) }],
    ['an HTML 502 from a proxy', { kind: 'raw', status: 502, body: '<h1>Bad gateway</h1>' }],
  ] as const)('garbage from the reader (%s) -> 502', async (_, reply) => {
    fake.replies.set(PAGE, reply)
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(502)
    expectErrorShape(res.body, 'reader_unavailable')
  })

  it('a reader slower than the timeout -> 502 within the timeout', async () => {
    const slowApp = evidenceApp(readerFor(fake, { timeoutMs: 300 }))
    fake.replies.set(PAGE, { ...defaultPage(PAGE), delayMs: 3000 })
    const started = performance.now()
    const res = await postEvidence(slowApp, { url: PAGE })
    expect(res.status).toBe(502)
    expectErrorShape(res.body, 'reader_unavailable')
    expect(res.body.message).toMatch(/within 300 ms/)
    expect(performance.now() - started).toBeLessThan(1500)
  })

  it('a reader whose headers come at once but whose body dribbles past the timeout -> 502 within the timeout', async () => {
    const slowApp = evidenceApp(readerFor(fake, { timeoutMs: 300 }))
    fake.replies.set(PAGE, {
      kind: 'drip',
      prefix: '{"code":200,"status":20000,"data":{"title":"t","content":"',
      intervalMs: 20,
    })
    const started = performance.now()
    const res = await postEvidence(slowApp, { url: PAGE })
    const elapsed = performance.now() - started
    expect(res.status).toBe(502)
    expectErrorShape(res.body, 'reader_unavailable')
    expect(res.body.message).toMatch(/within 300 ms/)
    expect(elapsed).toBeGreaterThanOrEqual(250)
    // A hang bound, not a speed target: without the deadline this waits for the socket's
    // 300 s idle timeout; the slack absorbs a loaded shared machine.
    expect(elapsed).toBeLessThan(5000)
  })

  it('a reader that is down -> 502', async () => {
    const down = await startFakeReader()
    const baseUrl = down.baseUrl
    await down.close()
    const downApp = evidenceApp(readerFor(fake, { baseUrl }))
    const res = await postEvidence(downApp, { url: PAGE })
    expect(res.status).toBe(502)
    expectErrorShape(res.body, 'reader_unavailable')
    expect(res.body.message).toMatch(/ECONNREFUSED/)
  })

  it('a reply larger than the cap -> 502', async () => {
    const cappedApp = evidenceApp(readerFor(fake, { maxReplyBytes: 10_000 }))
    fake.replies.set(PAGE, { kind: 'page', content: 'x'.repeat(20_000) })
    const res = await postEvidence(cappedApp, { url: PAGE })
    expect(res.status).toBe(502)
    expect(res.body.message).toMatch(/exceeds 10000 bytes/)
  })

  // Only the host of the reported final URL is judged: its scheme, userinfo or port must not
  // turn a redirect onto a private host into "no final URL" and a 200 carrying its content.
  it.each([
    'http://169.254.169.254/latest/',
    'http://x@169.254.169.254/latest/',
    'http://user:pw@127.0.0.1/',
    'http://a:b@[::1]:22/x',
    'ftp://127.0.0.1/',
    'ws://[::1]/',
    'file:///etc/passwd',
    'file://localhost/etc/passwd',
    'gopher://0x7f.0.0.1/',
    'foo://%31%32%37.0.0.1/',
    'foo://[::1]/',
    'https://169.254.169.254:8443/',
    'http://127.0.0.1:8080/admin',
    'http://2852039166/',
    'http://0xa9fea9fe/',
    'http://0251.0376.0251.0376/',
    'http://127.1/',
    'http://0/',
    'http://10.0.0.1./',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:7f00:1]:8080/',
    'http://[::ffff:8.8.8.8]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[fd00:ec2::254]/',
    'http://[::1]/',
    'http://[fe80::1]/',
    'http://localhost:3000/',
    'http://LOCALHOST./',
    'http://foo.localhost/',
    'http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/',
    'http://metadata.google.internal/',
    'http://metadata/',
  ])(
    'refuses evidence when the reader reports a final URL on a non-public host: %s',
    async (finalUrl) => {
      fake.replies.set(PAGE, { kind: 'page', content: 'SECRET-META', url: finalUrl })
      const res = await postEvidence(app, { url: PAGE })
      expect(res.status).toBe(422)
      expectErrorShape(res.body, 'unsafe_url')
      expect(res.body.message).toMatch(/redirected/)
      expect(res.text).not.toMatch(/SECRET-META/)
    },
  )

  it.each([
    ['https://example.com/x', 'https://example.com/x'],
    ['HTTPS://Example.COM:443/a/../b', 'https://example.com/b'],
    ['https://example.com:8443/x', 'https://example.com:8443/x'],
    ['https://[2606:4700:4700::1111]/', 'https://[2606:4700:4700::1111]/'],
    ['http://user@example.com/', null],
    ['ftp://example.com/', null],
    ['not a url', null],
    ['', null],
  ])('reports a final URL on a public host %j as %j', async (finalUrl, reported) => {
    fake.replies.set(PAGE, { kind: 'page', content: 'ok', url: finalUrl })
    const res = await postEvidence(app, { url: PAGE })
    expect(res.status).toBe(200)
    expect(res.body.finalUrl).toBe(reported)
  })

  it('reports a final URL longer than the URL length cap (4096) as null', async () => {
    const atCap = `https://example.com/${'a'.repeat(4096 - 'https://example.com/'.length)}`
    expect(atCap).toHaveLength(4096)
    fake.replies.set(PAGE, { kind: 'page', content: 'ok', url: atCap })
    expect((await postEvidence(app, { url: PAGE })).body.finalUrl).toBe(atCap)
    fake.replies.set(PAGE, { kind: 'page', content: 'ok', url: `${atCap}b` })
    const over = await postEvidence(app, { url: PAGE })
    expect(over.status).toBe(200)
    expect(over.body.finalUrl).toBeNull()
    expect(over.text.length).toBeLessThan(4096)
    // The host is judged before the length: a long URL does not hide a private redirect.
    fake.replies.set(PAGE, {
      kind: 'page',
      content: 'SECRET-META',
      url: `http://169.254.169.254/${'a'.repeat(5000)}`,
    })
    const hidden = await postEvidence(app, { url: PAGE })
    expect(hidden.status).toBe(422)
    expectErrorShape(hidden.body, 'unsafe_url')
    // A huge invalid host is refused too, and not echoed back whole.
    fake.replies.set(PAGE, { kind: 'page', content: 'x', url: `http://${'a'.repeat(100_000)}/` })
    const huge = await postEvidence(app, { url: PAGE })
    expect(huge.status).toBe(422)
    expectErrorShape(huge.body, 'unsafe_url')
    expect(huge.text.length).toBeLessThan(2000)
  })
})

describe('public-page evidence: OpenAPI', () => {
  it('documents the bounds, the counting unit and what the hash covers', async () => {
    const res = await app.request('/openapi.json')
    const doc = (await res.json()) as Record<string, any>
    const op = doc.paths['/payanagent/v1/public-page-evidence'].post
    expect(Object.keys(op.responses).sort()).toEqual(['200', '408', '422', '429', '431', '502'])
    const request = doc.components.schemas.PublicPageEvidenceRequest
    expect(request.additionalProperties).toBe(false)
    expect(request.required).toEqual(['url'])
    expect(request.properties.max_chars).toMatchObject({
      type: 'integer',
      minimum: 500,
      maximum: 20000,
      default: 20000,
    })
    expect(request.properties.max_chars.description).toMatch(/Unicode code points/)
    const evidence = doc.components.schemas.PageEvidence
    expect(evidence.properties.sha256.description).toMatch(/UTF-8 bytes of the returned `markdown`/)
    expect(evidence.required).toEqual(
      expect.arrayContaining(['markdown', 'title', 'sourceUrl', 'finalUrl', 'truncated', 'sha256']),
    )
  })
})
