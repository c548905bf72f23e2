// Rebuilds contracts/protocols/weth9/WETH9.json from the compiled artifact that
// `canonical-weth@1.4.0` (devDependency) ships: the Dapphub WETH9 source, solc 0.5.0, the same
// contract Base runs at its predeploy 0x4200000000000000000000000000000000000006.
// Run: npx tsx scripts/protocol-artifacts/weth9.ts

import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const PACKAGE = 'canonical-weth'
const FILE = 'build/contracts/WETH9.json'
const version = (require(`${PACKAGE}/package.json`) as { version: string }).version
if (version !== '1.4.0') throw new Error(`expected ${PACKAGE}@1.4.0, found ${version}`)

const truffle = JSON.parse(readFileSync(require.resolve(`${PACKAGE}/${FILE}`), 'utf8')) as {
  contractName: string
  abi: unknown[]
  bytecode: string
  deployedBytecode: string
  compiler: { name: string; version: string }
}
// The package's truffle-config.js sets only the solc version, so truffle's default applied:
// optimizer disabled.
const artifact = {
  contractName: truffle.contractName,
  abi: truffle.abi,
  bytecode: truffle.bytecode,
  deployedBytecode: truffle.deployedBytecode,
  source: { package: PACKAGE, version, file: FILE },
  compiler: {
    version: truffle.compiler.version,
    settings: {
      optimizer: { enabled: false },
      note: 'truffle default (truffle-config.js sets only the version)',
    },
  },
}
const dir = new URL('../../contracts/protocols/weth9/', import.meta.url)
mkdirSync(dir, { recursive: true })
writeFileSync(new URL('WETH9.json', dir), `${JSON.stringify(artifact, null, 2)}\n`)
console.log(`wrote contracts/protocols/weth9/WETH9.json from ${PACKAGE}@${version}/${FILE}`)
// The files are committed as the repository's formatter (biome) prints them.
execFileSync(process.execPath, [
  require.resolve('@biomejs/biome/bin/biome'),
  'format',
  '--write',
  fileURLToPath(new URL('../../contracts/protocols/weth9/', import.meta.url)),
])
