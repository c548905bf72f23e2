import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumTitle, launchChromium, requireChromium } from '../support/chromium.js'
import {
  discoveryRewritingProxy,
  type ServedGuard,
  startServedGuard,
} from '../support/served-guard.js'

/** The checks `checkChallenge` runs, in its order (packages/client/src/client/check-challenge.ts). */
const ALL_CHECKS = [
  'status_402',
  'error_payment_required',
  'payment_required_header',
  'route',
  'network',
  'price',
  'pay_to',
  'asset',
  'amount',
  'scheme',
  'transfer_method',
  'extensions',
  'bazaar',
  'max_timeout',
  'onboarding_url',
  'price_matches_amount',
  'within_spend_cap',
]

const executablePath = requireChromium('the browser demo test')

// Outside CI a machine without chromium skips this file, and says so with how to install it.
describe.skipIf(!executablePath)(
  chromiumTitle(
    'the browser demo (/first-unpaid-402?autorun=1) in headless Chromium',
    executablePath,
  ),
  () => {
    let guard: ServedGuard
    let browser: Browser

    beforeAll(async () => {
      guard = await startServedGuard()
      browser = await launchChromium(executablePath as string)
    }, 60_000)

    afterAll(async () => {
      await browser?.close()
      await guard?.stop()
    })

    it('runs one live unpaid challenge and finds it matches discovery', async () => {
      const page = await browser.newPage()
      const requests: string[] = []
      page.on('request', (request) =>
        requests.push(`${request.method()} ${new URL(request.url()).pathname}`),
      )
      await page.goto(`${guard.baseUrl}/first-unpaid-402?autorun=1`)
      const verdict = page.locator('#verdict')
      await verdict.waitFor({ timeout: 15_000 })
      expect(await verdict.textContent()).toContain('MATCHES DISCOVERY')
      const checks = (await page.locator('#checks').textContent()) ?? ''
      // Every check of the buyer kit's checkChallenge, the function the CLI runs.
      const names = checks.split('\n').map((line) => /^PASS ([a-z0-9_]+):/.exec(line)?.[1])
      expect(names).toEqual(ALL_CHECKS)
      expect(checks).not.toContain('FAIL')
      expect(await page.locator('#body').textContent()).toContain('HTTP 402')
      // Exactly one unpaid POST: the page never pays.
      expect(requests.filter((r) => r === 'POST /simulate/transaction-preflight')).toHaveLength(1)
      await page.close()
    }, 30_000)

    it('says STOP when discovery names another asset (a check the old 7-check demo lacked)', async () => {
      const proxy = await discoveryRewritingProxy(guard.baseUrl, (d) => ({
        ...d,
        asset: '0x000000000000000000000000000000000000dEaD',
      }))
      try {
        const page = await browser.newPage()
        await page.goto(`${proxy.baseUrl}/first-unpaid-402?autorun=1`)
        const verdict = page.locator('#verdict')
        await verdict.waitFor({ timeout: 15_000 })
        expect(await verdict.textContent()).toContain('STOP')
        const checks = (await page.locator('#checks').textContent()) ?? ''
        const failed = checks
          .split('\n')
          .filter((line) => line.startsWith('FAIL '))
          .map((line) => /^FAIL ([a-z0-9_]+):/.exec(line)?.[1])
        expect(failed).toEqual(['asset', 'price_matches_amount'])
        await page.close()
      } finally {
        await proxy.close()
      }
    }, 30_000)
  },
)
