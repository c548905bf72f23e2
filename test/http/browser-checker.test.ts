/**
 * The browser demo's challenge checker (`/assets/check-challenge.js`): bundled when the client
 * package is built (scripts/build.mjs, at `npm install`), served from that file, read once; a
 * 503 with Retry-After while the file is missing, and served as soon as it exists.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OpenAPIHono } from '@hono/zod-openapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CHECKER_SCRIPT_PATH,
  checkerBundlePath,
  registerBrowserChecker,
} from '../../src/routes/browser-checker.js'
import { type ServedGuard, startServedGuard } from '../support/served-guard.js'

describe('the challenge checker script', () => {
  let guard: ServedGuard
  beforeAll(async () => {
    guard = await startServedGuard()
  })
  afterAll(async () => {
    await guard?.stop()
  })

  it("is the client build's browser bundle of checkChallenge, byte for byte, as an ES module", async () => {
    const path = checkerBundlePath()
    expect(path.endsWith(join('packages', 'client', 'dist', 'browser', 'check-challenge.js'))).toBe(
      true,
    )
    const built = readFileSync(path, 'utf8')
    // The whole checker with its dependencies, for the browser: nothing left to resolve.
    expect(built).toContain('checkChallenge')
    expect(built).not.toMatch(/\bfrom\s*["'][^"'./]/)
    for (const round of [1, 2]) {
      const res = await fetch(`${guard.baseUrl}${CHECKER_SCRIPT_PATH}`)
      expect(res.status, `round ${round}`).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600')
      expect(await res.text()).toBe(built)
    }
  })

  it('answers 503 with Retry-After while the file is missing, then serves it once it exists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'psg-checker-'))
    try {
      const file = join(dir, 'check-challenge.js')
      const app = new OpenAPIHono()
      registerBrowserChecker(app, file)
      const missing = await app.request(CHECKER_SCRIPT_PATH)
      expect(missing.status).toBe(503)
      expect(missing.headers.get('retry-after')).toBe('5')
      expect(await missing.text()).toBe('the challenge checker could not be built; retry shortly')
      writeFileSync(file, 'export const checkChallenge = 1\n')
      const served = await app.request(CHECKER_SCRIPT_PATH)
      expect(served.status).toBe(200)
      expect(await served.text()).toBe('export const checkChallenge = 1\n')
      // Read once: later requests are served from memory.
      writeFileSync(file, 'changed\n')
      expect(await (await app.request(CHECKER_SCRIPT_PATH)).text()).toBe(
        'export const checkChallenge = 1\n',
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
