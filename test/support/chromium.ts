import { execFileSync } from 'node:child_process'
import { type Browser, chromium } from 'playwright-core'

/** How to get the browser the Chromium tests drive: what a skip and a CI failure both say. */
export const CHROMIUM_HINT =
  "install Debian's chromium (`sudo apt-get install -y chromium`) or set CHROMIUM_PATH to a Chromium binary"

/**
 * Debian's chromium (CI installs it in .ci/run; `CHROMIUM_PATH` overrides); never a browser
 * downloaded by a test tool. On CI a missing one fails the file that needs it, naming `what`;
 * elsewhere that file is skipped, and says so on stderr with how to install it (a skip is
 * never silent: see {@link chromiumTitle}).
 */
export function requireChromium(what: string): string | undefined {
  const path = process.env.CHROMIUM_PATH ?? commandPath('chromium')
  if (!path && process.env.CI) {
    throw new Error(`CI must run ${what}: ${CHROMIUM_HINT} (see .ci/run)`)
  }
  if (!path) console.warn(`SKIPPED ${what}: no Chromium found; ${CHROMIUM_HINT}`)
  return path
}

/** A suite's title, naming the missing browser when the suite is skipped for it. */
export function chromiumTitle(title: string, executablePath: string | undefined): string {
  return executablePath ? title : `${title} (SKIPPED: no Chromium; ${CHROMIUM_HINT})`
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
