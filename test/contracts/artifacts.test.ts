import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  ARTIFACTS_DIR,
  type CompileResult,
  compileAll,
  serializeArtifact,
} from '../../scripts/compile.js'

describe('contracts/artifacts', () => {
  let compiled: CompileResult
  // One compile (~2-3 s with solc-js) serves every assertion below. The bound is generous: on a
  // busy shared machine (load ~20 on two cores) the compile has taken over 60 s.
  beforeAll(() => {
    compiled = compileAll()
  }, 180_000)

  it('are byte-identical to a fresh compile (run `npm run build:contracts` if not)', () => {
    for (const artifact of compiled.artifacts) {
      const committed = readFileSync(join(ARTIFACTS_DIR, `${artifact.contractName}.json`), 'utf8')
      expect(committed, `${artifact.contractName}.json is stale`).toBe(serializeArtifact(artifact))
    }
  })

  it('hold exactly the contracts the sources define', () => {
    const onDisk = readdirSync(ARTIFACTS_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort()
    expect(onDisk).toEqual(compiled.artifacts.map((a) => `${a.contractName}.json`).sort())
    expect(onDisk).toEqual(
      expect.arrayContaining([
        'DevnetUSDC.json',
        'Multicall3.json',
        'GasPriceOracle.json',
        'Reverter.json',
        'TestERC20.json',
        'TestERC721.json',
        'TestERC1155.json',
        'TestOwnable.json',
        'TestUUPS.json',
        'ERC1967Proxy.json',
        'TestSafe.json',
        'TestAccessControl.json',
        'TestVault.json',
        'TestWETH.json',
        'TestMultiSend.json',
        'TestV3Liquidity.json',
      ]),
    )
  })

  it('compile without warnings', () => {
    expect(compiled.warnings).toEqual([])
  })
})
