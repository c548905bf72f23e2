import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { OpenAPIHono } from '@hono/zod-openapi'

/** Where the browser gets the buyer kit's challenge checker (an ES module). */
export const CHECKER_SCRIPT_PATH = '/assets/check-challenge.js'

/**
 * The buyer kit's compiled `checkChallenge` (the very function the CLI runs, every check),
 * bundled for the browser when the client package is built (`scripts/build.mjs`, at
 * `npm install`), so the page can never drift from what `npm run demo` checks.
 */
export function checkerBundlePath(): string {
  return fileURLToPath(
    new URL(
      './dist/browser/check-challenge.js',
      import.meta.resolve('@pre-send-guard/client/package.json'),
    ),
  )
}

/**
 * Serves the bundled checker (at `path`, default {@link checkerBundlePath}), read once on first
 * use and then kept in memory; 503 (retryable) while it cannot be read (a client build that has
 * not made it yet): the next request reads again.
 */
export function registerBrowserChecker(app: OpenAPIHono, path?: string): void {
  let bundle: Promise<string> | undefined
  const checker = (): Promise<string> => {
    if (bundle) return bundle
    const reading = readFile(path ?? checkerBundlePath(), 'utf8')
    bundle = reading
    // A failed read is retried on the next request rather than kept.
    reading.catch(() => {
      if (bundle === reading) bundle = undefined
    })
    return reading
  }
  app.get(CHECKER_SCRIPT_PATH, async (c) => {
    try {
      const text = await checker()
      return c.body(text, 200, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=3600',
      })
    } catch {
      return c.text('the challenge checker could not be built; retry shortly', 503, {
        'retry-after': '5',
      })
    }
  })
}
