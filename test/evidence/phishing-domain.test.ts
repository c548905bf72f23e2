import { createRequire } from 'node:module'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { loadMetaMaskPhishingList } from '../../src/adapters/phishing/metamask-phishing-list.js'
import { classifyTargetUrl } from '../../src/domain/evidence/classify-target-url.js'
import { defaultPage, type FakeReader, startFakeReader } from '../support/fake-reader.js'
import { evidenceApp, postEvidence, readerFor } from './evidence-app.js'

/**
 * The evidence route refuses hosts MetaMask's phishing list flags (issue 31), before the reader
 * is asked for anything, with 422 `phishing_domain` naming the list and its pinned version. The
 * list is the real npm package (`eth-phishing-detect`), read offline.
 */

const require = createRequire(import.meta.url)
const LIST = require('eth-phishing-detect/src/config.json') as {
  version: number
  blacklist: string[]
  whitelist: string[]
}
const PACKAGE_VERSION = (require('eth-phishing-detect/package.json') as { version: string }).version
const NAMED = `MetaMask eth-phishing-detect ${PACKAGE_VERSION} (list v${LIST.version})`

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
  fake.replies.clear()
  fake.fallback = defaultPage
})

async function expectRefusedUnread(url: string, detail: RegExp) {
  const res = await postEvidence(app, { url })
  expect(res.status).toBe(422)
  expect(res.body).toEqual({
    error: 'phishing_domain',
    message: expect.stringContaining(NAMED),
    issues: [{ path: 'url', message: expect.stringMatching(detail) }],
    requestId: expect.any(String),
  })
  expect(fake.received).toHaveLength(0)
}

describe('public-page evidence: phishing hosts', () => {
  it.each([
    [
      'https://nfts-mints.com/claim',
      /^nfts-mints\.com is flagged by .* as a known phishing domain$/,
    ],
    [
      'https://etherealart.nfts-mints.com/',
      /^etherealart\.nfts-mints\.com is flagged by .* as a known phishing domain$/,
    ],
    // WHATWG normalisation first: upper case, a trailing dot and an explicit default port.
    [
      'HTTPS://NFTS-MINTS.COM.:443/x',
      /^nfts-mints\.com\. is flagged by .* as a known phishing domain$/,
    ],
  ])('refuses a listed host (or a subdomain of one) before any fetch: %s', async (url, detail) => {
    await expectRefusedUnread(url, detail)
  })

  it.each([
    ['https://opensea.com/', 'opensea.io'],
    ['https://myetherwa11et.com/', 'myetherwallet.com'],
  ])('refuses a look-alike of a genuine target and names it: %s', async (url, genuine) => {
    await expectRefusedUnread(url, new RegExp(`as a look-alike of ${genuine.replace('.', '\\.')}$`))
  })

  it.each([
    'https://metamask.io/',
    'https://docs.metamask.io/guide',
    'https://opensea.io/collection/x',
    'https://example.com/',
  ])('reads genuine and allowlisted hosts as usual: %s', async (url) => {
    const res = await postEvidence(app, { url })
    expect(res.status).toBe(200)
    expect(fake.received).toHaveLength(1)
  })

  it('refuses the evidence when the reader was redirected onto a listed host', async () => {
    const page = 'https://example.com/go'
    fake.replies.set(page, { kind: 'page', content: 'PHISH-BODY', url: 'https://nfts-mints.com/' })
    const res = await postEvidence(app, { url: page })
    expect(res.status).toBe(422)
    expect(res.body.error).toBe('phishing_domain')
    expect(res.body.message).toMatch(/redirected to a phishing host/)
    expect(res.text).not.toMatch(/PHISH-BODY/)
  })

  it('refuses every sampled blocklist entry the URL rules let through, and reads none', async () => {
    // Every 97th entry of the shipped blocklist (about 140 hosts): each one the URL rules accept
    // and the allowlist does not override must be refused as phishing, unread.
    const list = await loadMetaMaskPhishingList()
    const allowed = new Set(LIST.whitelist)
    const sample = LIST.blacklist.filter((_, i) => i % 97 === 0)
    const urls = sample
      .filter((host) => !allowed.has(host))
      .map((host) => `https://${host}/`)
      .filter((url) => classifyTargetUrl(url).safe)
    expect(urls.length).toBeGreaterThan(100)
    for (const url of urls) {
      expect(list.check(new URL(url).hostname), url).not.toBeNull()
      const res = await postEvidence(app, { url })
      expect({ url, status: res.status, error: res.body.error }).toEqual({
        url,
        status: 422,
        error: 'phishing_domain',
      })
    }
    expect(fake.received).toHaveLength(0)
  })
})
