import { fileURLToPath } from 'node:url'
import type { OpenAPIHono } from '@hono/zod-openapi'

/** Where the browser gets the buyer kit's challenge checker (an ES module). */
export const CHECKER_SCRIPT_PATH = '/assets/check-challenge.js'

let bundle: Promise<string> | undefined

/**
 * Bundles the buyer kit's compiled `checkChallenge` (the very function the CLI runs, every check)
 * for the browser with esbuild, once per process, on first use. Built from the installed client
 * package so the page can never drift from what `npm run demo` checks. esbuild is loaded lazily:
 * a guard nobody opens the demo page on never starts it.
 */
export function checkerBundle(): Promise<string> {
  bundle ??= (async () => {
    const { build } = await import('esbuild')
    const entry = fileURLToPath(
      new URL('./check-challenge.js', import.meta.resolve('@pre-send-guard/client')),
    )
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      minify: true,
      write: false,
      logLevel: 'silent',
    })
    const [output] = result.outputFiles
    if (!output) throw new Error('esbuild produced no output for the challenge checker')
    return output.text
  })()
  // A failed build is retried on the next request rather than cached forever.
  bundle.catch(() => {
    bundle = undefined
  })
  return bundle
}

/** Serves the bundled checker; 503 (retryable) if it cannot be built. */
export function registerBrowserChecker(app: OpenAPIHono): void {
  app.get(CHECKER_SCRIPT_PATH, async (c) => {
    try {
      const text = await checkerBundle()
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
