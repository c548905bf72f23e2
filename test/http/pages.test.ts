import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER_OPERATION_RULE_CATALOGUE } from '../../src/domain/account-abstraction/user-operation-rules.js'
import { DELEGATION_RULE_CATALOGUE } from '../../src/domain/delegation/delegation-rules.js'
import { RULES as TRANSACTION_RULES } from '../../src/domain/screen/rule-catalogue.js'
import { TYPED_DATA_RULE_CATALOGUE } from '../../src/domain/typed-data/typed-data-rules.js'
import { PAGE_LABELS, PAGE_PATHS } from '../../src/routes/pages.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/** What Chromium sends when a person opens a URL. */
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

const ALL_RULE_IDS = [
  ...TRANSACTION_RULES,
  ...TYPED_DATA_RULE_CATALOGUE,
  ...DELEGATION_RULE_CATALOGUE,
  ...USER_OPERATION_RULE_CATALOGUE,
].map((r) => r.id)

/** The pages as served over real HTTP by the real paid app on a devnet (no browser needed). */
describe('the served pages', () => {
  let guard: ServedGuard
  const page = async (path: string) => {
    const res = await fetch(`${guard.baseUrl}${path}`, { headers: { accept: BROWSER_ACCEPT } })
    expect(res.status, path).toBe(200)
    return res.text()
  }

  beforeAll(async () => {
    guard = await startServedGuard()
  })
  afterAll(async () => {
    await guard?.stop()
  })

  it('/start-here points to the playground, the demo and every route the service answers', async () => {
    const text = await page('/start-here')
    expect(text).toContain('href="/playground"')
    expect(text).toContain('<code>npm run demo</code>')
    expect(text).toContain('href="/first-unpaid-402?autorun=1"')
    expect(text).toContain('href="/rules"')
    // Every operation of the OpenAPI document this instance serves, with its method.
    const openapi = (await (await fetch(`${guard.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>
    }
    const operations = Object.entries(openapi.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    )
    expect(operations.length).toBeGreaterThan(10)
    for (const operation of [...operations, 'POST /mcp']) {
      expect(text, operation).toContain(`<code>${operation}</code>`)
    }
    // And every page, by its human name.
    for (const path of PAGE_PATHS.filter((p) => p !== '/start-here')) {
      expect(text, path).toContain(`<a href="${path}">${PAGE_LABELS[path]}</a>`)
    }
    for (const link of ['https://www.x402.org/', 'https://docs.base.org/', 'https://viem.sh/']) {
      expect(text).toContain(`href="${link}"`)
    }
  })

  it('labels the page navigation for people, not with paths', async () => {
    const text = await page('/quickstart')
    const nav = /<nav class="pages"[^>]*>(.*?)<\/nav>/s.exec(text)?.[1] ?? ''
    const labels = [...nav.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]])
    expect(labels).toEqual(PAGE_PATHS.map((p) => [p, PAGE_LABELS[p]]))
    expect(labels.map(([, label]) => label)).toContain('Your first unpaid 402')
  })

  it('/rules has a table of contents and an anchor for every rule id a finding can name', async () => {
    const text = await page('/rules')
    const toc = /<nav class="toc"[^>]*>(.*?)<\/nav>/s.exec(text)?.[1] ?? ''
    expect(toc).not.toBe('')
    // The contents come before the first section and link to every section heading.
    expect(text.indexOf('<nav class="toc"')).toBeLessThan(text.indexOf('<h2 '))
    const sections = [...text.matchAll(/<h2 id="([^"]+)">/g)].map((m) => m[1])
    expect(sections).toContain('catalogue')
    expect(sections).toContain('typed-data-rules')
    for (const id of sections) expect(toc, id).toContain(`href="#${id}"`)
    expect(ALL_RULE_IDS.length).toBeGreaterThan(50)
    for (const id of ALL_RULE_IDS) {
      // The playground links a finding to /rules#<id>: the id must exist, and be in the contents.
      expect(text, id).toContain(`<h3 id="${id}">`)
      expect(toc, id).toContain(`href="#${id}"`)
    }
  })

  it('answers an unknown path with a small HTML page for a browser and JSON for an API client', async () => {
    const url = `${guard.baseUrl}/no-such-page`
    const browser = await fetch(url, { headers: { accept: BROWSER_ACCEPT } })
    expect(browser.status).toBe(404)
    expect(browser.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await browser.text()
    expect(html).toContain('<h1>Page not found</h1>')
    expect(html).toContain('<code>/no-such-page</code>')
    expect(html).toContain('href="/start-here"')
    expect(html).toContain('class="site"')
    // API clients: fetch's and curl's */*, an explicit JSON accept, one that ranks JSON first,
    // and any non-GET keep the JSON error body.
    for (const [method, accept] of [
      ['GET', '*/*'],
      ['GET', 'application/json'],
      ['GET', 'application/json, text/html'],
      ['POST', BROWSER_ACCEPT],
    ] as const) {
      const res = await fetch(url, { method, headers: { accept } })
      expect(res.status, `${method} ${accept}`).toBe(404)
      expect(res.headers.get('content-type'), `${method} ${accept}`).toMatch(/^application\/json/)
      expect(await res.json()).toMatchObject({ error: 'not_found' })
    }
    // A missing receipt is an API answer, whoever asks.
    const receipt = await fetch(`${guard.baseUrl}/receipts/0x${'00'.repeat(32)}`, {
      headers: { accept: BROWSER_ACCEPT },
    })
    expect(receipt.status).toBe(404)
    expect(receipt.headers.get('content-type')).toMatch(/^application\/json/)
  })
})
