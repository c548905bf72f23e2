import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { classifyTargetUrl } from '../../src/domain/evidence/classify-target-url.js'
import { type FakeReader, startFakeReader } from '../support/fake-reader.js'
import { evidenceApp, postEvidence, readerFor } from './evidence-app.js'

/**
 * Hostile URLs, each with the reason it must be refused. `unparseable` ones fail WHATWG parsing
 * (422 `invalid_request`); the rest parse and are refused as `unsafe_url`.
 */
const UNSAFE: [url: string, reason: string][] = [
  // IPv4 loopback in every spelling the parser accepts
  ['http://127.0.0.1/', 'ip_not_public'],
  ['http://127.1/', 'ip_not_public'],
  ['http://2130706433/', 'ip_not_public'],
  ['http://0177.0.0.1/', 'ip_not_public'],
  ['http://0x7f000001/', 'ip_not_public'],
  ['http://0x7f.0x0.0x0.0x1/', 'ip_not_public'],
  ['http://%31%32%37.0.0.1/', 'ip_not_public'],
  ['http://127。0。0。1/', 'ip_not_public'],
  ['http://１２７.０.０.１/', 'ip_not_public'],
  ['http://127.0.0.1./', 'ip_not_public'],
  ['http://127.255.255.254/', 'ip_not_public'],
  ['http://127.0.0.1:80/', 'ip_not_public'],
  ['https://127.0.0.1:443/', 'ip_not_public'],
  ['http:\\\\127.0.0.1\\', 'ip_not_public'],
  ['http://127.0.0.1\\@example.com/', 'ip_not_public'],
  // unspecified, private, CGNAT, multicast, broadcast, reserved
  ['http://0/', 'ip_not_public'],
  ['http://0.0.0.0/', 'ip_not_public'],
  ['http://10.0.0.1/', 'ip_not_public'],
  ['http://10.1/', 'ip_not_public'],
  ['http://172.16.0.1/', 'ip_not_public'],
  ['http://172.31.255.255/', 'ip_not_public'],
  ['http://192.168.1.1/', 'ip_not_public'],
  ['http://0xc0a80001/', 'ip_not_public'],
  ['http://100.64.0.1/', 'ip_not_public'],
  ['http://224.0.0.1/', 'ip_not_public'],
  ['http://255.255.255.255/', 'ip_not_public'],
  ['http://240.0.0.1/', 'ip_not_public'],
  ['http://192.0.2.1/', 'ip_not_public'],
  ['http://198.18.0.1/', 'ip_not_public'],
  ['http://192.0.0.170/', 'ip_not_public'],
  // cloud metadata endpoints
  ['http://169.254.169.254/latest/meta-data/', 'ip_not_public'],
  ['http://2852039166/', 'ip_not_public'],
  ['http://0xa9fea9fe/', 'ip_not_public'],
  ['http://0251.0376.0251.0376/', 'ip_not_public'],
  ['http://169.254.169.254./', 'ip_not_public'],
  ['http://⑯⑨。②⑤④。⑯⑨｡②⑤④/', 'ip_not_public'],
  ['http://100.100.100.200/', 'ip_not_public'],
  ['http://[fd00:ec2::254]/', 'ip_not_public'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'local_name'],
  ['http://instance-data/', 'single_label'],
  ['http://metadata/', 'single_label'],
  // IPv6 literals, bracketed, mapped, compatible, NAT64, 6to4, Teredo
  ['http://[::1]/', 'ip_not_public'],
  ['http://[0::1]/', 'ip_not_public'],
  ['http://[::]/', 'ip_not_public'],
  ['http://[::ffff:127.0.0.1]/', 'ip_not_public'],
  ['http://[::ffff:7f00:1]/', 'ip_not_public'],
  ['HTTP://[::FFFF:A9FE:A9FE]/', 'ip_not_public'],
  ['http://[0:0:0:0:0:ffff:169.254.169.254]/', 'ip_not_public'],
  ['http://[::ffff:0:7f00:1]/', 'ip_not_public'],
  ['http://[::127.0.0.1]/', 'ip_not_public'],
  ['http://[::7f00:1]/', 'ip_not_public'],
  ['http://[::8.8.8.8]/', 'ip_not_public'],
  ['http://[64:ff9b::127.0.0.1]/', 'ip_not_public'],
  ['http://[64:ff9b:1::a00:1]/', 'ip_not_public'],
  ['http://[2002:7f00:1::]/', 'ip_not_public'],
  ['http://[2001::1]/', 'ip_not_public'],
  ['http://[2001:db8::1]/', 'ip_not_public'],
  ['http://[fc00::1]/', 'ip_not_public'],
  ['http://[fe80::1]/', 'ip_not_public'],
  ['http://[ff02::1]/', 'ip_not_public'],
  ['http://[100::1]/', 'ip_not_public'],
  ['http://[::1]:80/', 'ip_not_public'],
  // a literal IPv6 that embeds IPv4 is never an ordinary public target, even of a public IPv4
  ['https://[::ffff:8.8.8.8]/', 'ip_not_public'],
  ['https://[::ffff:808:808]/', 'ip_not_public'],
  ['https://[::ffff:0:808:808]/', 'ip_not_public'],
  ['https://[64:ff9b::808:808]/', 'ip_not_public'],
  ['https://[64:ff9b:1::808:808]/', 'ip_not_public'],
  ['https://[2002:808:808::1]/', 'ip_not_public'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'ip_not_public'],
  // local names, IDNA folding, percent-encoding, trailing dots, rebinding services
  ['http://localhost/', 'local_name'],
  ['http://LOCALHOST./', 'local_name'],
  ['http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/', 'local_name'],
  ['http://ｌｏｃａｌｈｏｓｔ/', 'local_name'],
  ['http://loc%61lhost/', 'local_name'],
  ['http://foo.localhost/', 'local_name'],
  ['http://printer.local/', 'local_name'],
  ['http://router.home.arpa/', 'local_name'],
  ['http://db.internal./', 'local_name'],
  ['http://kubernetes.default.svc/', 'local_name'],
  ['http://api.svc.cluster.local/', 'local_name'],
  ['http://127.0.0.1.nip.io/', 'local_name'],
  ['http://localtest.me/', 'local_name'],
  ['http://fileserver/', 'single_label'],
  ['http://com./', 'single_label'],
  ['http://a..b.com/', 'bad_hostname'],
  // schemes
  ['ftp://example.com/', 'scheme'],
  ['file:///etc/passwd', 'scheme'],
  ['javascript:alert(1)', 'scheme'],
  ['data:text/html,hi', 'scheme'],
  ['gopher://example.com/', 'scheme'],
  ['ws://example.com/', 'scheme'],
  ['blob:https://example.com/uuid', 'scheme'],
  // userinfo tricks
  ['http://user:pass@example.com/', 'userinfo'],
  ['http://user@example.com/', 'userinfo'],
  ['http://example.com@127.0.0.1/', 'userinfo'],
  ['http://user:pw@a@127.0.0.1/', 'userinfo'],
  ['https://:pw@example.com/', 'userinfo'],
  // odd ports
  ['https://x:80', 'port'],
  ['https://example.com:80/', 'port'],
  ['http://example.com:443/', 'port'],
  ['http://example.com:8080/', 'port'],
  ['http://example.com:0/', 'port'],
  ['http://example.com:22/', 'port'],
  ['https://example.com:00080/a', 'port'],
  // not parseable at all
  ['http://[fe80::1%25eth0]/', 'unparseable'],
  ['http://256.0.0.1/', 'unparseable'],
  ['http://example.com:65536/', 'unparseable'],
  ['http://0x100000000/', 'unparseable'],
  ['http://192.168.0.1%2f/', 'unparseable'],
  ['http://[::1]./', 'unparseable'],
  ['//example.com/', 'unparseable'],
  ['example.com', 'unparseable'],
]

/** Ordinary public URLs and the exact `href` that must reach the reader. */
const PUBLIC: [url: string, forwarded: string][] = [
  ['https://example.com/', 'https://example.com/'],
  ['https://example.com', 'https://example.com/'],
  ['HTTPS://EXAMPLE.COM:443/A', 'https://example.com/A'],
  ['http://example.org:80/path?q=1#frag', 'http://example.org/path?q=1#frag'],
  ['https://www.iana.org/help/example-domains', 'https://www.iana.org/help/example-domains'],
  ['https://en.wikipedia.org/wiki/Ethereum', 'https://en.wikipedia.org/wiki/Ethereum'],
  ['https://docs.base.org/', 'https://docs.base.org/'],
  ['https://github.com/jina-ai/reader', 'https://github.com/jina-ai/reader'],
  ['https://news.ycombinator.com/item?id=1', 'https://news.ycombinator.com/item?id=1'],
  ['https://sub.domain.example.co.uk/a/b', 'https://sub.domain.example.co.uk/a/b'],
  ['https://example.com./', 'https://example.com./'],
  ['https://münchen.de/', 'https://xn--mnchen-3ya.de/'],
  ['https://example.com/a b/ü', 'https://example.com/a%20b/%C3%BC'],
  ['http://example.com\\@127.0.0.1/', 'http://example.com/@127.0.0.1/'],
  ['https://localhost.com/', 'https://localhost.com/'],
  ['https://internal.example.com/', 'https://internal.example.com/'],
  ['https://local.news/', 'https://local.news/'],
  ['https://my_host.example.com/', 'https://my_host.example.com/'],
  ['https://8.8.8.8/', 'https://8.8.8.8/'],
  ['https://1.1.1.1/dns-query', 'https://1.1.1.1/dns-query'],
  ['http://134744072/', 'http://8.8.8.8/'],
  ['https://100.63.255.255/', 'https://100.63.255.255/'],
  ['https://172.32.0.1/', 'https://172.32.0.1/'],
  ['https://192.169.0.1/', 'https://192.169.0.1/'],
  ['https://[2606:4700:4700::1111]/', 'https://[2606:4700:4700::1111]/'],
  ['https://[2001:4860:4860::8888]/', 'https://[2001:4860:4860::8888]/'],
]

let fake: FakeReader
let app: ReturnType<typeof evidenceApp>

beforeAll(async () => {
  fake = await startFakeReader()
  app = evidenceApp(readerFor(fake))
})

afterAll(async () => {
  await fake?.close()
})

beforeEach(() => {
  fake.received.length = 0
})

describe(`SSRF corpus: ${UNSAFE.length} hostile URLs are refused before the reader is called`, () => {
  it('is big enough', () => {
    expect(UNSAFE.length).toBeGreaterThanOrEqual(60)
    expect(PUBLIC.length).toBeGreaterThanOrEqual(20)
  })

  it.each(UNSAFE)('%s -> 422 (%s)', async (url, reason) => {
    const verdict = classifyTargetUrl(url)
    expect(verdict.safe ? 'safe' : verdict.reason).toBe(reason)
    const res = await postEvidence(app, { url })
    expect(res.status).toBe(422)
    expect(res.body.error).toBe(reason === 'unparseable' ? 'invalid_request' : 'unsafe_url')
    expect(res.body.issues).toEqual([{ path: 'url', message: expect.any(String) }])
    expect(res.body.message).toContain(reason)
    expect(fake.received).toHaveLength(0)
  })
})

describe(`${PUBLIC.length} ordinary public URLs are accepted`, () => {
  it.each(PUBLIC)('%s -> forwarded as %s', async (url, forwarded) => {
    const res = await postEvidence(app, { url })
    expect(res.status).toBe(200)
    expect(fake.received.map((r) => r.url)).toEqual([forwarded])
    expect(res.body.sourceUrl).toBe(forwarded)
    expect(res.body.markdown).toContain(forwarded)
  })
})
