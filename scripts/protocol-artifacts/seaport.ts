// Rebuilds contracts/protocols/seaport/*.json from the Solidity sources shipped in
// `seaport-core@1.6.6` (and its dependency `seaport-types@1.6.3`) with solc-js 0.8.24 (installed
// as the devDependency alias `solc-0.8.24`), viaIR, the settings Seaport 1.6 is built with.
// Slow (viaIR over Seaport: minutes); the committed artifacts mean tests never compile.
// Run: npx tsx scripts/protocol-artifacts/seaport.ts
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
// biome-ignore lint/suspicious/noExplicitAny: solc-js has no types
const solc: any = require('solc-0.8.24')

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const OUT = join(ROOT, 'contracts', 'protocols', 'seaport')
const PACKAGE = 'seaport-core'
const VERSION = (require(`${PACKAGE}/package.json`) as { version: string }).version
if (VERSION !== '1.6.6') throw new Error(`expected seaport-core@1.6.6, found ${VERSION}`)

/** Seaport 1.6's build settings (viaIR, cancun, 9,999,999 optimizer runs, no metadata hash). */
const SETTINGS = {
  viaIR: true,
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 9_999_999 },
  metadata: { bytecodeHash: 'none' },
  outputSelection: {
    '*': {
      '*': [
        'abi',
        'evm.bytecode.object',
        'evm.deployedBytecode.object',
        'evm.deployedBytecode.immutableReferences',
      ],
      // Only to name the immutables (the AST is not written out).
      '': ['ast'],
    },
  },
}

/** Contracts to emit: [source path as imported, contract name]. */
const TARGETS: [string, string][] = [
  ['seaport-core/src/Seaport.sol', 'Seaport'],
  ['seaport-core/src/conduit/ConduitController.sol', 'ConduitController'],
]

function readImport(path: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') }
  } catch (error) {
    return { error: `cannot resolve ${path}: ${(error as Error).message}` }
  }
}

const input = {
  language: 'Solidity',
  sources: Object.fromEntries(
    TARGETS.map(([path]) => [path, { content: readFileSync(require.resolve(path), 'utf8') }]),
  ),
  settings: SETTINGS,
}

const started = performance.now()
const output = JSON.parse(solc.compile(JSON.stringify(input), { import: readImport })) as {
  errors?: { severity: string; formattedMessage: string }[]
  sources: Record<string, { ast: unknown }>
  contracts: Record<
    string,
    Record<
      string,
      {
        abi: unknown[]
        evm: {
          bytecode: { object: string }
          deployedBytecode: {
            object: string
            immutableReferences?: Record<string, { start: number; length: number }[]>
          }
        }
      }
    >
  >
}
const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))

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
const names = immutableNames(output.sources)

for (const [file, name] of TARGETS) {
  const contract = output.contracts[file]?.[name]
  if (!contract) throw new Error(`${name} missing from the compiler output`)
  const artifact = {
    contractName: name,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
    immutableReferences: contract.evm.deployedBytecode.immutableReferences ?? {},
    immutableNames: Object.fromEntries(
      Object.keys(contract.evm.deployedBytecode.immutableReferences ?? {}).map((id) => [
        id,
        names.get(id) ?? 'unknown',
      ]),
    ),
    source: { package: PACKAGE, version: VERSION, file: file.replace(`${PACKAGE}/`, '') },
    compiler: { version: solc.version(), settings: { ...SETTINGS, outputSelection: undefined } },
  }
  writeFileSync(join(OUT, `${name}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
  console.log(
    `${name}: ${(artifact.deployedBytecode.length - 2) / 2} bytes runtime, ${Math.round(performance.now() - started)} ms`,
  )
}
