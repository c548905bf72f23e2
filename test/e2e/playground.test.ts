import { mkdirSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PAGE_PATHS } from '../../src/routes/pages.js'
import { playgroundExamples } from '../../src/routes/playground.js'
import { chromiumTitle, launchChromium, requireChromium } from '../support/chromium.js'
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

describe.skipIf(!executablePath)(
  chromiumTitle('the pages in headless Chromium', executablePath),
  () => {
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
        // "unlimited USDC", never the 78-digit maximum.
        expect(approvals).toMatch(/^allow unlimited USDC · token /)
        expect(approvals.replace(/0x[0-9a-fA-F]{40}/g, '')).not.toMatch(/\d{20}/)
        // Each finding's rule id links to its section of the catalogue.
        const ruleLinks = await page
          .locator('#findings li.finding a.rule-id')
          .evaluateAll((as) => as.map((a) => a.getAttribute('href')))
        expect(ruleLinks).toEqual(apiRules.map((id) => `/rules#${id}`))
        await page.screenshot({ path: `${SHOTS}/playground-${name}.png`, fullPage: true })
        const { scrollWidth } = await noHorizontalScroll(page)
        expect(scrollWidth).toBeLessThanOrEqual(viewport.width)
        expect(errors).toEqual([])
        await page.close()
      }
    }, 60_000)

    it('accepts "0.01" ETH and a decimal wei value, and sends the API hex wei with data 0x', async () => {
      const page = await browser.newPage({ viewport: DESKTOP })
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(String(e)))
      const sent: Record<string, string>[] = []
      page.on('request', (request) => {
        if (request.url().endsWith('/payanagent/v1/base-transaction-preflight')) {
          sent.push(JSON.parse(request.postData() ?? '{}'))
        }
      })
      await page.goto(`${guard.baseUrl}/playground`)
      const BUYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
      const PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
      const ONE_HUNDREDTH_ETH = '0x2386f26fc10000' // 10^16 wei
      const check = async (value: string, unit: 'eth' | 'gwei' | 'wei') => {
        await page.fill('#tx-from', BUYER)
        await page.fill('#tx-to', PAY_TO)
        await page.fill('#tx-data', '') // a plain ETH transfer: no calldata
        await page.selectOption('#tx-value-unit', unit)
        await page.fill('#tx-value', value)
        const before = sent.length
        await page.click('#check')
        await page.locator('#verdict, #error').waitFor({ timeout: 15_000 })
        expect(await page.locator('#result').textContent(), value).not.toMatch(/^HTTP|^value/)
        expect(sent.length, value).toBe(before + 1)
        return { body: sent.at(-1), verdict: await page.locator('#verdict').textContent() }
      }
      for (const [value, unit] of [
        ['0.01', 'eth'],
        ['10000000000000000', 'wei'],
        ['0.01 ETH', 'wei'], // a unit typed in the field wins over the menu
        ['10,000,000 gwei'.replace(/,/g, ''), 'gwei'],
        [ONE_HUNDREDTH_ETH, 'eth'], // hex is wei whatever the menu says
      ] as const) {
        const { body, verdict } = await check(value, unit)
        expect(body, `${value} ${unit}`).toEqual({
          from: BUYER,
          to: PAY_TO,
          data: '0x',
          value: ONE_HUNDREDTH_ETH,
        })
        expect(verdict, `${value} ${unit}`).toBe('sign')
        // The page says what it converted the value to.
        expect(await page.locator('#value-hint').textContent()).toBe(
          `= 0.01 ETH = 10000000000000000 wei, sent as ${ONE_HUNDREDTH_ETH}`,
        )
      }
      // The API's own answer for the same transfer: the page showed exactly its verdict.
      const api = await fetch(`${guard.baseUrl}/payanagent/v1/base-transaction-preflight`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sent.at(-1)),
      })
      expect(((await api.json()) as { verdict: string }).verdict).toBe('sign')

      // What cannot be a value is refused on the page, before anything is sent.
      for (const [value, unit, message] of [
        ['0.0.1', 'eth', /not an amount/],
        ['1.5', 'wei', /whole number/],
        ['0.0000000000000000001', 'eth', /at most 18 decimals/],
        ['0x10 gwei', 'eth', /hex value is always wei/],
      ] as const) {
        const before = sent.length
        await page.selectOption('#tx-value-unit', unit)
        await page.fill('#tx-value', value)
        expect(await page.locator('#value-hint').getAttribute('class'), value).toContain('bad')
        await page.click('#check')
        await page.locator('#error').waitFor({ timeout: 5_000 })
        expect(await page.locator('#error').textContent(), value).toMatch(message)
        expect(sent.length, value).toBe(before)
      }
      expect(errors).toEqual([])
      await page.close()
    }, 60_000)

    it("shows a reverting transaction's cost as not estimated, not 0 ETH", async () => {
      const page = await browser.newPage({ viewport: DESKTOP })
      await page.goto(`${guard.baseUrl}/playground`)
      await page.selectOption('#example', 'erc20-transfer-reverts')
      await page.click('#check')
      await page.locator('#verdict').waitFor({ timeout: 15_000 })
      expect(await page.locator('#verdict').textContent()).toBe('block')
      const fees = (await page.locator('#fees').textContent()) ?? ''
      expect(fees).toContain('L2 execution (expected)reverts: not estimated')
      expect(fees).toContain('total (expected)reverts: not estimated')
      expect(fees).not.toMatch(/\b0 ETH/)
      expect(await page.locator('#fees-reverts').textContent()).toContain('do not send it')
      await page.close()
    }, 30_000)

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
        expect(await page.locator('nav.pages a').allTextContents(), path).toContain('Start here')
        expect(await page.locator('link[rel="icon"]').getAttribute('href'), path).toBe(
          '/favicon.svg',
        )
        const { scrollWidth } = await noHorizontalScroll(page)
        expect(scrollWidth, `${path} scrolls sideways at 390 px`).toBeLessThanOrEqual(390)
        if (path === '/rules') {
          await page.screenshot({ path: `${SHOTS}/rules-phone.png` })
          // The catalogue is rendered, not dumped: its table has the rule ids as code.
          expect(await page.locator('table code', { hasText: 'approval-to-eoa' }).count()).toBe(1)
        }
      }
      // A finding's link lands on its rule's section.
      await page.goto(`${guard.baseUrl}/rules#approval-to-eoa`)
      expect(await page.locator('h3#approval-to-eoa').textContent()).toBe('approval-to-eoa')
      expect(await page.locator('nav.toc a[href="#approval-to-eoa"]').count()).toBe(1)
      await page.setViewportSize(DESKTOP)
      await page.goto(`${guard.baseUrl}/start-here`)
      await page.screenshot({ path: `${SHOTS}/start-here-desktop.png` })
      const favicon = await fetch(`${guard.baseUrl}/favicon.svg`)
      expect(favicon.status).toBe(200)
      expect(favicon.headers.get('content-type')).toBe('image/svg+xml')
      expect(await favicon.text()).toMatch(/^<svg /)
      await page.close()
    }, 60_000)
  },
)
