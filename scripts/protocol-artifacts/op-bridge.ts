// Rebuilds contracts/protocols/op-bridge/*.json from the forge artifacts shipped in
// `@eth-optimism/contracts-bedrock@0.17.3` (devDependency): the OP-stack L2 predeploys Base runs
// behind the predeploy Proxy (L2StandardBridge 0x42..10, L2CrossDomainMessenger 0x42..07,
// L2ToL1MessagePasser 0x42..16, L1Block 0x42..15, OptimismMintableERC20Factory 0x42..12) and the
// OptimismMintableERC20 the factory creates. Metadata, AST and source maps are dropped.
// Run: npx tsx scripts/protocol-artifacts/op-bridge.ts

import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const PACKAGE = '@eth-optimism/contracts-bedrock'
const version = (require(`${PACKAGE}/package.json`) as { version: string }).version
if (version !== '0.17.3') throw new Error(`expected ${PACKAGE}@0.17.3, found ${version}`)

const CONTRACTS = [
  'Proxy',
  'L2StandardBridge',
  'L2CrossDomainMessenger',
  'L2ToL1MessagePasser',
  'L1Block',
  'OptimismMintableERC20Factory',
  'OptimismMintableERC20',
]

interface ForgeArtifact {
  abi: unknown[]
  bytecode: { object: string; linkReferences: Record<string, unknown> }
  deployedBytecode: {
    object: string
    linkReferences: Record<string, unknown>
    immutableReferences?: Record<string, { start: number; length: number }[]>
  }
  metadata: {
    compiler: { version: string }
    settings: Record<string, unknown> & { compilationTarget: Record<string, string> }
  }
  ast: unknown
}

/** AST node id -> declared name, to label immutableReferences. */
function namesById(ast: unknown, ids: Set<number>): Map<number, string> {
  const found = new Map<number, string>()
  const walk = (node: unknown) => {
    if (found.size === ids.size || node === null || typeof node !== 'object') return
    if (Array.isArray(node)) {
      for (const child of node) walk(child)
      return
    }
    const record = node as Record<string, unknown>
    if (typeof record.id === 'number' && ids.has(record.id) && typeof record.name === 'string')
      found.set(record.id, record.name)
    for (const value of Object.values(record)) walk(value)
  }
  walk(ast)
  return found
}

const dir = new URL('../../contracts/protocols/op-bridge/', import.meta.url)
mkdirSync(dir, { recursive: true })
for (const name of CONTRACTS) {
  const file = `forge-artifacts/${name}.sol/${name}.json`
  const forge = JSON.parse(
    readFileSync(require.resolve(`${PACKAGE}/${file}`), 'utf8'),
  ) as ForgeArtifact
  if (Object.keys(forge.bytecode.linkReferences).length > 0)
    throw new Error(`${name} needs library links`)
  const refs = forge.deployedBytecode.immutableReferences ?? {}
  const names = namesById(forge.ast, new Set(Object.keys(refs).map(Number)))
  const immutableReferences = Object.fromEntries(
    Object.entries(refs).map(([id, list]) => [names.get(Number(id)) ?? id, list]),
  )
  const { compilationTarget, libraries: _libraries, ...settings } = forge.metadata.settings
  const artifact = {
    contractName: name,
    abi: forge.abi,
    bytecode: forge.bytecode.object,
    deployedBytecode: forge.deployedBytecode.object,
    immutableReferences,
    source: {
      package: PACKAGE,
      version,
      file,
      contract: Object.entries(compilationTarget).map(
        ([path, contract]) => `${path}:${contract}`,
      )[0],
    },
    compiler: { version: forge.metadata.compiler.version, settings },
  }
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify(artifact, null, 2)}\n`)
  console.log(
    `${name}: ${(forge.deployedBytecode.object.length - 2) / 2} bytes runtime, immutables ${JSON.stringify(immutableReferences)}`,
  )
}
// The files are committed as the repository's formatter (biome) prints them.
execFileSync(process.execPath, [
  require.resolve('@biomejs/biome/bin/biome'),
  'format',
  '--write',
  fileURLToPath(new URL('../../contracts/protocols/op-bridge/', import.meta.url)),
])
