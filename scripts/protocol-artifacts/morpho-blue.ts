/**
 * Rebuilds contracts/protocols/morpho-blue/*.json from npm packages (devDependencies), offline:
 *
 * - Morpho, IrmMock, OracleMock: the Solidity sources shipped in `@morpho-org/morpho-blue@1.0.0`,
 *   compiled with solc-js 0.8.19 (`solc-0.8.19`, an alias of `solc@0.8.19`) and the settings of
 *   morpho-blue's foundry.toml (via_ir, optimizer 999999 runs, bytecode_hash none, evm paris).
 * - BaseBundlerV2: the creation bytecode and ABI shipped in
 *   `@morpho-org/morpho-blue-bundlers@1.1.2` (its typechain factory; compiled upstream with
 *   solc 0.8.24). Its runtime code is the tail the constructor copies out of the creation code.
 *
 * Run: `npx tsx scripts/protocol-artifacts/morpho-blue.ts`
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runInNewContext } from 'node:vm'

const require = createRequire(import.meta.url)
const solc = require('solc-0.8.19') as {
  compile(input: string, callbacks: { import(path: string): unknown }): string
  version(): string
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const OUT = join(ROOT, 'contracts', 'protocols', 'morpho-blue')
const BLUE = '@morpho-org/morpho-blue'
const BLUE_ROOT = dirname(require.resolve(`${BLUE}/package.json`))
const BLUE_VERSION = (
  JSON.parse(readFileSync(join(BLUE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version
const BUNDLERS = '@morpho-org/morpho-blue-bundlers'
const BUNDLERS_ROOT = dirname(require.resolve(`${BUNDLERS}/package.json`))
const BUNDLERS_VERSION = (
  JSON.parse(readFileSync(join(BUNDLERS_ROOT, 'package.json'), 'utf8')) as { version: string }
).version

/** morpho-blue's foundry.toml [profile.default]: via_ir, 999999 runs, bytecode_hash none, paris. */
const SETTINGS = {
  viaIR: true,
  optimizer: { enabled: true, runs: 999999 },
  evmVersion: 'paris',
  metadata: { bytecodeHash: 'none' },
  outputSelection: {
    '*': {
      '*': [
        'abi',
        'evm.bytecode.object',
        'evm.bytecode.linkReferences',
        'evm.deployedBytecode.object',
        'evm.deployedBytecode.immutableReferences',
      ],
    },
  },
}

const WANTED: Record<string, string> = {
  'src/Morpho.sol': 'Morpho',
  'src/mocks/IrmMock.sol': 'IrmMock',
  'src/mocks/OracleMock.sol': 'OracleMock',
}

function write(name: string, artifact: Record<string, unknown>): void {
  mkdirSync(OUT, { recursive: true })
  writeFileSync(join(OUT, `${name}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
  console.log(`wrote contracts/protocols/morpho-blue/${name}.json`)
}

function compileBlue(): void {
  const sources: Record<string, { content: string }> = {}
  for (const file of Object.keys(WANTED)) {
    sources[file] = { content: readFileSync(join(BLUE_ROOT, file), 'utf8') }
  }
  const input = JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })
  const started = Date.now()
  const output = JSON.parse(
    solc.compile(input, {
      import(path: string) {
        if (!path.startsWith('src/') || path.includes('..'))
          return { error: `not allowed: ${path}` }
        try {
          return { contents: readFileSync(join(BLUE_ROOT, path), 'utf8') }
        } catch (error) {
          return { error: String(error) }
        }
      },
    }),
  ) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts: Record<
      string,
      Record<
        string,
        {
          abi: unknown[]
          evm: {
            bytecode: { object: string; linkReferences: Record<string, unknown> }
            deployedBytecode: { object: string; immutableReferences: Record<string, unknown> }
          }
        }
      >
    >
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  console.log(`solc ${solc.version()} compiled in ${Date.now() - started} ms`)
  for (const [file, contractName] of Object.entries(WANTED)) {
    const compiled = output.contracts[file]?.[contractName]
    if (!compiled) throw new Error(`${contractName} missing from ${file}`)
    if (Object.keys(compiled.evm.bytecode.linkReferences).length > 0) {
      throw new Error(`${contractName} needs library links`)
    }
    write(contractName, {
      contractName,
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      immutableReferences: compiled.evm.deployedBytecode.immutableReferences,
      source: { package: BLUE, version: BLUE_VERSION, file },
      compiler: { version: solc.version(), settings: { ...SETTINGS, outputSelection: undefined } },
    })
  }
}

function extractBundler(): void {
  const file = 'types/factories/src/base/BaseBundlerV2__factory.js'
  const text = readFileSync(join(BUNDLERS_ROOT, file), 'utf8')
  const abiText = /const _abi = (\[[\s\S]*?\n\]);\n/.exec(text)?.[1]
  const bytecode = /const _bytecode = "(0x[0-9a-f]+)";/.exec(text)?.[1]
  if (!abiText || !bytecode) throw new Error(`cannot read ${file}`)
  // The ABI is a plain JS literal (typechain output): evaluate it in an empty context.
  const abi = runInNewContext(`(${abiText})`, {}) as unknown[]
  // The constructor copies the runtime out of its own code: PUSH2 <length> DUP1 SWAP2
  // PUSH3 <offset> DUP3 CODECOPY. The creation code ends with the runtime (no constructor args).
  const copy = /6040516(1[0-9a-f]{4})9081620([0-9a-f]{5})8239/.exec(bytecode)
  if (!copy?.[1] || !copy[2]) throw new Error('runtime copy not found in BaseBundlerV2')
  const length = Number.parseInt(copy[1].slice(1), 16)
  const offset = Number.parseInt(copy[2], 16)
  const code = bytecode.slice(2)
  if (offset + length !== code.length / 2) throw new Error('BaseBundlerV2 runtime bounds differ')
  const cbor = code.slice(-8)
  write('BaseBundlerV2', {
    contractName: 'BaseBundlerV2',
    abi,
    bytecode,
    deployedBytecode: `0x${code.slice(offset * 2)}`,
    source: { package: BUNDLERS, version: BUNDLERS_VERSION, file },
    compiler: {
      // The trailing CBOR metadata names the compiler: 0x0008_18 = 0.8.24.
      version: `0.${Number.parseInt(cbor.slice(0, 2), 16)}.${Number.parseInt(cbor.slice(2, 4), 16)}`,
      settings: 'as published in the package (compiled upstream; not rebuilt here)',
    },
  })
}

compileBlue()
extractBundler()
