import { mkdirSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PAGE_PATHS } from '../../src/routes/pages.js'
import { playgroundExamples } from '../../src/routes/playground.js'
import { launchChromium, requireChromium } from '../support/chromium.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

const executablePath = requireChromium('the playground test')

/** Screenshots land here (gitignored) for a person to look at. */
const SHOTS = '.scratch/playground'
const DESKTOP = { width: 1280, height: 900 }
const PHONE = { width: 390, height: 844 }

async function noHorizontalScroll(page: Page): Promise<{ scrollWidth: number; width: number }> {
  // A string, evaluated in the page: the project's TypeScript has no DOM lib.
  return page.evaluate<{ scrollWidth: number; width: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth })',
  )
}

describe.skipIf(!executablePath)('the pages in headless Chromium', () => {
  let guard: ServedGuard
  let browser: Browser

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    guard = await startServedGuard()
    browser = await launchChromium(executablePath as string)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await guard?.stop()
  })

  it('blocks the unlimited approval to an address without code, with the findings the API gives', async () => {
    const example = playgroundExamples('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC').find(
      (e) => e.id === 'unlimited-approval-no-code',
    )
    if (!example) throw new Error('the playground lost its unlimited-approval example')
    // The same request straight to the API: the page must show exactly this answer.
    const api = await fetch(`${guard.baseUrl}/payanagent/v1/base-transaction-preflight`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(example.transaction),
    })
    expect(api.status).toBe(200)
    const answer = (await api.json()) as { verdict: string; findings: { id: string }[] }
    expect(answer.verdict).toBe('block')
    const apiRules = answer.findings.map((f) => f.id)
    expect(apiRules).toContain('approval-to-eoa')

    for (const [name, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const page = await browser.newPage({ viewport })
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(String(e)))
      await page.goto(`${guard.baseUrl}/playground`)
      await page.selectOption('#example', 'unlimited-approval-no-code')
      expect(await page.inputValue('#tx-data')).toBe(example.transaction.data)
      await page.click('#check')
      const verdict = page.locator('#verdict')
      await verdict.waitFor({ timeout: 15_000 })
      expect(await verdict.textContent()).toBe('block')
      expect(await verdict.getAttribute('class')).toContain('verdict-block')
      const shown = await page
        .locator('#findings li.finding')
        .evaluateAll((items) => items.map((li) => li.getAttribute('data-rule')))
      expect(shown).toEqual(apiRules)
      // A critical finding wears the critical colour.
      const critical = page.locator('#findings li.sev-critical[data-rule="approval-to-eoa"]')
      expect(await critical.count()).toBe(1)
      expect(
        await page.evaluate(
          `getComputedStyle(document.querySelector('li.sev-critical[data-rule="approval-to-eoa"]')).borderLeftColor`,
        ),
      ).toBe('rgb(176, 0, 32)')
      expect(await page.locator('#fees').textContent()).toContain('ETH')
      // The approval in units a person reads: unlimited, to the address without code.
      const approvals = (await page.locator('#approval-changes').textContent()) ?? ''
      expect(approvals.toLowerCase()).toContain('0x000000000000000000000000000000000000beef')
      expect(approvals).toMatch(/^allow unlimited · token /)
      await page.screenshot({ path: `${SHOTS}/playground-${name}.png`, fullPage: true })
      const { scrollWidth } = await noHorizontalScroll(page)
      expect(scrollWidth).toBeLessThanOrEqual(viewport.width)
      expect(errors).toEqual([])
      await page.close()
    }
  }, 60_000)

  it('runs the ERC-20 transfer example with its amount in units', async () => {
    const page = await browser.newPage({ viewport: DESKTOP })
    await page.goto(`${guard.baseUrl}/playground`)
    await page.selectOption('#example', 'erc20-transfer')
    await page.click('#check')
    await page.locator('#verdict').waitFor({ timeout: 15_000 })
    expect(await page.locator('#verdict').textContent()).toBe('sign')
    const changes = (await page.locator('#asset-changes').textContent()) ?? ''
    expect(changes).toContain('- 1 USDC')
    expect(changes).toContain('+ 1 USDC')
    await page.close()
  }, 30_000)

  it('shows a shared header, a favicon and no horizontal scrolling at 390 px on every page', async () => {
    const paths = [...PAGE_PATHS, '/playground', '/rules']
    const page = await browser.newPage({ viewport: PHONE })
    for (const path of paths) {
      const res = await page.goto(`${guard.baseUrl}${path}`)
      expect(res?.status(), path).toBe(200)
      const header = (await page.locator('header.site').textContent()) ?? ''
      expect(header, path).toContain('Pre-Send Guard')
      expect(header, path).toContain('v1.2.0')
      expect(await page.locator('#environment').textContent(), path).toBe('devnet')
      const links = await page
        .locator('header.site nav a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')))
      expect(links, path).toEqual(['/playground', '/rules', '/proof', '/openapi.json'])
      expect(await page.locator('link[rel="icon"]').getAttribute('href'), path).toBe('/favicon.svg')
      const { scrollWidth } = await noHorizontalScroll(page)
      expect(scrollWidth, `${path} scrolls sideways at 390 px`).toBeLessThanOrEqual(390)
      if (path === '/rules') {
        await page.screenshot({ path: `${SHOTS}/rules-phone.png` })
        // The catalogue is rendered, not dumped: its table has the rule ids as code.
        expect(await page.locator('table code', { hasText: 'approval-to-eoa' }).count()).toBe(1)
      }
    }
    await page.setViewportSize(DESKTOP)
    await page.goto(`${guard.baseUrl}/start-here`)
    await page.screenshot({ path: `${SHOTS}/start-here-desktop.png` })
    const favicon = await fetch(`${guard.baseUrl}/favicon.svg`)
    expect(favicon.status).toBe(200)
    expect(favicon.headers.get('content-type')).toBe('image/svg+xml')
    expect(await favicon.text()).toMatch(/^<svg /)
    await page.close()
  }, 60_000)
})
