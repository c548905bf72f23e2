import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let found: string | undefined

/**
 * The checkout this code runs from: the nearest directory above this module whose
 * package.json is this project's. The same from the sources (src/adapters/devnet/) and from
 * the bundle (dist/chunks/), which sit at different depths.
 */
export function projectRoot(): string {
  if (found) return found
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest)) {
      try {
        if (
          (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name ===
          'pre-send-guard'
        ) {
          found = dir
          return dir
        }
      } catch {
        // Not ours; keep climbing.
      }
    }
    const parent = dirname(dir)
    if (parent === dir)
      throw new Error('devnet: cannot find the pre-send-guard checkout above this module')
    dir = parent
  }
}
