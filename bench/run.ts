/**
 * Runs every benchmark in turn (`npm run bench`). Each prints its own figures and ratios;
 * none asserts a speed: these machines are shared and noisy.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const benches = [
  'preflight.ts',
  'rpc.ts',
  'service.ts',
  'burst.ts',
  'effects.ts',
  'sellability.ts',
  'screen.ts',
  'catalogue.ts',
  'wallets.ts',
  'evidence.ts',
  'paid.ts',
  'paid-waves.ts',
  'unpaid-402.ts',
  'startup.ts',
  'load.ts',
]
let failed = 0
for (const file of benches) {
  const path = new URL(file, import.meta.url).pathname
  if (!existsSync(path)) continue
  console.log(`\n== bench/${file}`)
  const result = spawnSync(process.execPath, ['--import', 'tsx', path], { stdio: 'inherit' })
  if (result.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
