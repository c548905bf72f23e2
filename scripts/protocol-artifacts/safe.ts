// Rebuilds contracts/protocols/safe/*.json from the compiled artifacts shipped in
// `@safe-global/safe-contracts@1.4.1` (its Hardhat build-info: solc 0.7.6, optimizer off). These
// are the bytes Safe deployed: CREATE2 through the Safe singleton factory
// (0x914d7Fec6aaC8cd542e72Bca78B30650d45643d7, salt 0) yields exactly the canonical addresses
// listed by `@safe-global/safe-deployments` (checked at test time by the corpus setup).
// Run: npx tsx scripts/protocol-artifacts/safe.ts
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const OUT = join(ROOT, 'contracts', 'protocols', 'safe')
const PACKAGE = '@safe-global/safe-contracts'
const VERSION = (require(`${PACKAGE}/package.json`) as { version: string }).version
if (VERSION !== '1.4.1') throw new Error(`expected ${PACKAGE}@1.4.1, found ${VERSION}`)

/** [source file inside the package, contract name]. */
const TARGETS: [string, string][] = [
  ['contracts/Safe.sol', 'Safe'],
  ['contracts/SafeL2.sol', 'SafeL2'],
  ['contracts/proxies/SafeProxyFactory.sol', 'SafeProxyFactory'],
  ['contracts/libraries/MultiSend.sol', 'MultiSend'],
  ['contracts/libraries/MultiSendCallOnly.sol', 'MultiSendCallOnly'],
  ['contracts/handler/CompatibilityFallbackHandler.sol', 'CompatibilityFallbackHandler'],
]

interface BuildInfo {
  solcLongVersion: string
  input: { settings: Record<string, unknown> }
  output: {
    sources: Record<string, { ast: unknown }>
    contracts: Record<
      string,
      Record<
        string,
        {
          abi: unknown[]
          evm: {
            bytecode: { object: string; linkReferences: Record<string, unknown> }
            deployedBytecode: {
              object: string
              immutableReferences?: Record<string, { start: number; length: number }[]>
            }
          }
        }
      >
    >
  }
}

/** `id -> Contract.variable` for every immutable declared in the sources' ASTs. */
function immutableNames(sources: Record<string, { ast: unknown }>): Map<string, string> {
  const names = new Map<string, string>()
  const walk = (node: unknown, contract: string) => {
    if (Array.isArray(node)) {
      for (const child of node) walk(child, contract)
      return
    }
    if (!node || typeof node !== 'object') return
    const n = node as Record<string, unknown>
    const inside = n.nodeType === 'ContractDefinition' ? String(n.name) : contract
    if (n.nodeType === 'VariableDeclaration' && n.mutability === 'immutable')
      names.set(String(n.id), `${inside}.${String(n.name)}`)
    for (const value of Object.values(n))
      if (value && typeof value === 'object') walk(value, inside)
  }
  for (const source of Object.values(sources)) walk(source.ast, '')
  return names
}

const ARTIFACTS = join(dirname(require.resolve(`${PACKAGE}/package.json`)), 'build/artifacts')

/** The Hardhat build-info a contract was compiled in (its `.dbg.json` points at it). */
function buildInfoOf(file: string, name: string): BuildInfo {
  const dir = join(ARTIFACTS, file)
  const { buildInfo } = JSON.parse(readFileSync(join(dir, `${name}.dbg.json`), 'utf8')) as {
    buildInfo: string
  }
  return JSON.parse(readFileSync(join(dir, buildInfo), 'utf8')) as BuildInfo
}

for (const [file, name] of TARGETS) {
  const info = buildInfoOf(file, name)
  const contract = info.output.contracts[file]?.[name]
  if (!contract) throw new Error(`${name} missing from its build-info`)
  const names = immutableNames(info.output.sources)
  const immutableReferences = contract.evm.deployedBytecode.immutableReferences ?? {}
  const artifact = {
    contractName: name,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
    immutableReferences,
    immutableNames: Object.fromEntries(
      Object.keys(immutableReferences).map((id) => [id, names.get(id) ?? 'unknown']),
    ),
    source: { package: PACKAGE, version: VERSION, file },
    compiler: {
      version: info.solcLongVersion,
      settings: { ...info.input.settings, outputSelection: undefined },
    },
  }
  writeFileSync(join(OUT, `${name}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
  console.log(`${name}: ${(artifact.deployedBytecode.length - 2) / 2} bytes runtime`)
}
