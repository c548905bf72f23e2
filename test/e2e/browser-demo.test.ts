import { execFileSync } from 'node:child_process'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

/** Debian's chromium (CI installs it in .ci/run); never a browser downloaded by a test tool. */
function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH
  try {
    return (
      execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || undefined
    )
  } catch {
    return undefined
  }
}

const executablePath = findChromium()
if (!executablePath && process.env.CI) {
  throw new Error('CI must run the browser demo test: install Debian chromium (see .ci/run)')
}

// Outside CI a machine without chromium skips this file (say `apt-get install chromium` to run it).
describe.skipIf(!executablePath)(
  'the browser demo (/first-unpaid-402?autorun=1) in headless Chromium',
  () => {
    let guard: ServedGuard
    let browser: Browser

    beforeAll(async () => {
      guard = await startServedGuard()
      browser = await chromium.launch({
        executablePath: executablePath as string,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
          '--disable-sync',
        ],
      })
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
      expect(checks.split('\n').filter((line) => line.startsWith('PASS '))).toHaveLength(7)
      expect(checks).not.toContain('FAIL')
      expect(await page.locator('#body').textContent()).toContain('HTTP 402')
      // Exactly one unpaid POST: the page never pays.
      expect(requests.filter((r) => r === 'POST /simulate/transaction-preflight')).toHaveLength(1)
      await page.close()
    }, 30_000)
  },
)
