import { execFileSync } from 'node:child_process'
import { type Browser, chromium } from 'playwright-core'

/**
 * Debian's chromium (CI installs it in .ci/run; `CHROMIUM_PATH` overrides); never a browser
 * downloaded by a test tool. On CI a missing one fails the file that needs it, naming `what`;
 * elsewhere that file is skipped (say `apt-get install chromium` to run it).
 */
export function requireChromium(what: string): string | undefined {
  const path = process.env.CHROMIUM_PATH ?? commandPath('chromium')
  if (!path && process.env.CI) {
    throw new Error(`CI must run ${what}: install Debian chromium (see .ci/run)`)
  }
  return path
}

function commandPath(command: string): string | undefined {
  try {
    return (
      execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim() || undefined
    )
  } catch {
    return undefined
  }
}

/** Headless Chromium as the probe runs it: no sandbox (root), no GPU, no calls home. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
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
}
