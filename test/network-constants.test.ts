import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The network is a value (issue 40): its chain-level constants live in the network profiles
 * only, `packages/client/src/types/networks.ts` (what buyers share) and
 * `src/domain/network/network-profile.ts` (what the service adds). Anywhere else a Base
 * constant in code is a network the code cannot change: this test greps for them.
 */
const ROOT = new URL('..', import.meta.url).pathname
const SCANNED = ['src', 'packages/client/src', 'packages/agentkit/src']
const PROFILES = new Set([
  'src/domain/network/network-profile.ts',
  'packages/client/src/types/networks.ts',
])

/** Each constant, as it may be spelt in TypeScript. */
const BASE_CONSTANTS: readonly { what: string; pattern: RegExp }[] = [
  { what: 'chain id 8453 / 84532', pattern: /\b(8453|84532)\b/ },
  { what: 'chain id in hex', pattern: /\b0x(2105|14a34)\b/i },
  { what: 'CAIP-2 id', pattern: /eip155:(8453|84532)\b/ },
  { what: 'USDC (Base)', pattern: /0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913/i },
  { what: 'USDC (Base Sepolia)', pattern: /0x036CbD53842c5426634e7929541eC2318f3dCF7e/i },
  { what: 'WETH predeploy', pattern: /0x4200000000000000000000000000000000000006/i },
  { what: 'GasPriceOracle predeploy', pattern: /0x420000000000000000000000000000000000000F/i },
  { what: "USDC's EIP-712 name", pattern: /['"`]USD Coin['"`]/ },
  { what: "viem's chain definitions", pattern: /from ['"]viem\/chains['"]/ },
]

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** The code without its comments (a comment may say which chain it speaks of). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1')
}

/** `file:line: constant` for every Base constant in code outside the profiles. */
function findings(files: readonly string[]): string[] {
  return files.flatMap((path) => {
    const file = relative(ROOT, path)
    if (PROFILES.has(file)) return []
    return withoutComments(readFileSync(path, 'utf8'))
      .split('\n')
      .flatMap((line, i) =>
        BASE_CONSTANTS.filter((c) => c.pattern.test(line)).map(
          (c) => `${file}:${i + 1}: ${c.what}: ${line.trim().slice(0, 120)}`,
        ),
      )
  })
}

describe('the network is a value', () => {
  it('no Base constant in src/ or the packages outside the network profiles', () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir)))
    expect(files.length).toBeGreaterThan(100)
    expect(findings(files)).toEqual([])
  })

  it('the grep finds each constant (a test that cannot fail proves nothing)', () => {
    const profiles = [...PROFILES].map((file) => join(ROOT, file))
    const text = profiles.map((path) => withoutComments(readFileSync(path, 'utf8'))).join('\n')
    const clientProfile = withoutComments(readFileSync(profiles[1] as string, 'utf8'))
    // The profiles hold them (read as if they were any other file, they would be findings).
    for (const c of BASE_CONSTANTS.filter((c) => !/WETH|GasPrice/.test(c.what))) {
      expect(c.pattern.test(text), c.what).toBe(true)
    }
    expect(clientProfile).toContain('eip155:8453')
    // A comment is not code; a string in code is.
    expect(withoutComments("const a = 1 // chain 8453\n/* 0x2105 */ const b = 'x'")).not.toMatch(
      /8453|2105/,
    )
    expect(withoutComments("const url = 'https://x.example/eip155:8453'")).toMatch(/8453/)
  })
})
