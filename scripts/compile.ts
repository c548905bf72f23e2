import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, posix, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import solc from 'solc'

/** A compiled contract as committed under `contracts/artifacts/<contractName>.json`. */
export type ContractArtifact = {
  contractName: string
  abi: unknown[]
  bytecode: `0x${string}`
  deployedBytecode: `0x${string}`
}

/** What {@link compileAll} produced: artifacts sorted by name, plus compiler warnings. */
export type CompileResult = {
  artifacts: ContractArtifact[]
  warnings: string[]
}

/** Repository root, found from this file's location so no machine path is baked in. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Directory the build writes artifacts into. */
export const ARTIFACTS_DIR = join(REPO_ROOT, 'contracts', 'artifacts')

const require = createRequire(import.meta.url)
const OZ_PREFIX = '@openzeppelin/contracts/'
const OZ_ROOT = dirname(require.resolve('@openzeppelin/contracts/package.json'))

/**
 * Contracts from dependencies that get an artifact too (our own sources always do).
 * ERC1967Proxy fronts the TestUUPS fixture.
 */
const DEPENDENCY_ARTIFACTS = new Set(['ERC1967Proxy'])

/**
 * Fixed compiler settings. Changing any of them changes every artifact, which the
 * reproducibility test then reports until `npm run build:contracts` is re-run.
 */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'ipfs' },
  outputSelection: {
    '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
  },
} as const

type SolcError = { severity: 'error' | 'warning' | 'info'; formattedMessage: string }
type SolcContract = {
  abi: unknown[]
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } }
}
type SolcOutput = {
  errors?: SolcError[]
  contracts?: Record<string, Record<string, SolcContract>>
}

/** Our `.sol` files as source unit names (`contracts/...`, POSIX separators), sorted. */
function listOwnSources(): string[] {
  const root = join(REPO_ROOT, 'contracts')
  const found: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== 'artifacts') walk(full)
      } else if (entry.name.endsWith('.sol')) {
        found.push(
          posix.join(
            'contracts',
            full
              .slice(root.length + 1)
              .split(sep)
              .join(posix.sep),
          ),
        )
      }
    }
  }
  walk(root)
  // Plain code-unit order, not locale order, so every machine builds the same input.
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/** Resolves imports hermetically: only OpenZeppelin from node_modules and our own sources. */
function readImport(path: string): { contents: string } | { error: string } {
  try {
    if (path.startsWith(OZ_PREFIX)) {
      return { contents: readFileSync(join(OZ_ROOT, path.slice(OZ_PREFIX.length)), 'utf8') }
    }
    if (path.startsWith('contracts/') && !path.includes('..')) {
      return { contents: readFileSync(join(REPO_ROOT, path), 'utf8') }
    }
    return { error: `import not allowed: ${path}` }
  } catch (error) {
    return { error: `cannot read ${path}: ${String(error)}` }
  }
}

/**
 * Compiles every contract under `contracts/` with the pinned solc-js and fixed settings.
 * Throws with all compiler errors if any source fails to compile.
 */
export function compileAll(): CompileResult {
  const ownSources = listOwnSources()
  const sources: Record<string, { content: string }> = {}
  for (const name of ownSources) {
    sources[name] = { content: readFileSync(join(REPO_ROOT, name), 'utf8') }
  }
  const input = JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })
  const output = JSON.parse(solc.compile(input, { import: readImport })) as SolcOutput

  const problems = output.errors ?? []
  const errors = problems.filter((e) => e.severity === 'error')
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  }
  const warnings = problems.filter((e) => e.severity === 'warning').map((e) => e.formattedMessage)

  const own = new Set(ownSources)
  const byName = new Map<string, ContractArtifact>()
  for (const [sourceName, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, compiled] of Object.entries(contracts)) {
      const wanted = own.has(sourceName) || DEPENDENCY_ARTIFACTS.has(contractName)
      // Interfaces and abstract contracts have no bytecode and nothing to deploy.
      if (!wanted || compiled.evm.bytecode.object === '') continue
      if (byName.has(contractName)) {
        throw new Error(`two contracts are named ${contractName}; artifact names must be unique`)
      }
      byName.set(contractName, {
        contractName,
        abi: compiled.abi,
        bytecode: `0x${compiled.evm.bytecode.object}`,
        deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      })
    }
  }
  const artifacts = [...byName.values()].sort((a, b) =>
    a.contractName < b.contractName ? -1 : a.contractName > b.contractName ? 1 : 0,
  )
  return { artifacts, warnings }
}

/** The exact bytes committed for an artifact: fixed key order, 2-space JSON, trailing newline. */
export function serializeArtifact(artifact: ContractArtifact): string {
  const { contractName, abi, bytecode, deployedBytecode } = artifact
  return `${JSON.stringify({ contractName, abi, bytecode, deployedBytecode }, null, 2)}\n`
}
