// Rebuilds contracts/protocols/account-abstraction/v0.{6,7,8}/*.json from the hardhat artifacts
// the eth-infinitism `@account-abstraction/contracts` packages ship (0.6.0, 0.7.0, 0.8.0). The
// packages are not dependencies (three versions of one package): each is fetched with `npm pack`
// into a temporary directory. Their init code, put through the deterministic CREATE2 deployer
// (0x4e59b44847b379578588920ca78fbf26c0b4956c) with the salts below, lands at the canonical
// addresses Base uses; the script checks that before writing.
// Run: npx tsx scripts/protocol-artifacts/account-abstraction.ts

import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Address, getContractAddress, type Hex, isAddressEqual } from 'viem'

const require = createRequire(import.meta.url)
const PACKAGE = '@account-abstraction/contracts'
const DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'
const ZERO_SALT: Hex = `0x${'0'.repeat(64)}`

type Wanted = { name: string; deployment?: { salt: Hex; address: Address } }
const VERSIONS: Record<string, { version: string; contracts: Wanted[] }> = {
  'v0.6': {
    version: '0.6.0',
    contracts: [
      {
        name: 'EntryPoint',
        deployment: { salt: ZERO_SALT, address: '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789' },
      },
      { name: 'SimpleAccountFactory' },
      { name: 'SimpleAccount' },
    ],
  },
  'v0.7': {
    version: '0.7.0',
    contracts: [
      {
        name: 'EntryPoint',
        deployment: {
          salt: '0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3',
          address: '0x0000000071727De22E5E9d8BAf0edAc6f37da032',
        },
      },
      { name: 'EntryPointSimulations' },
      { name: 'SimpleAccountFactory' },
      { name: 'SimpleAccount' },
    ],
  },
  'v0.8': {
    version: '0.8.0',
    contracts: [
      {
        name: 'EntryPoint',
        deployment: {
          salt: '0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9',
          address: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
        },
      },
      { name: 'EntryPointSimulations' },
      { name: 'SimpleAccountFactory' },
      { name: 'SimpleAccount' },
      {
        name: 'Simple7702Account',
        deployment: { salt: ZERO_SALT, address: '0xe6Cae83BdE06E4c305530e199D7217f42808555B' },
      },
    ],
  },
}

/** The solc version the runtime code's CBOR metadata names (`solc` followed by 3 bytes). */
function solcVersion(code: Hex): string {
  const found = /64736f6c6343([0-9a-f]{6})/.exec(code.slice(-120))
  if (found?.[1] === undefined) throw new Error('no solc version in the metadata')
  const [major, minor, patch] = (found[1].match(/../g) ?? []).map((b) => Number.parseInt(b, 16))
  return `${major}.${minor}.${patch}`
}

const root = new URL('../../contracts/protocols/account-abstraction/', import.meta.url)
const scratch = mkdtempSync(join(tmpdir(), 'aa-artifacts-'))
try {
  for (const [dir, { version, contracts }] of Object.entries(VERSIONS)) {
    const tarball = execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--silent'], {
      cwd: scratch,
      encoding: 'utf8',
    }).trim()
    const unpacked = join(scratch, dir)
    mkdirSync(unpacked)
    execFileSync('tar', ['xzf', join(scratch, tarball), '-C', unpacked])
    const out = new URL(`${dir}/`, root)
    mkdirSync(out, { recursive: true })
    for (const { name, deployment } of contracts) {
      const file = `artifacts/${name}.json`
      const hardhat = JSON.parse(readFileSync(join(unpacked, 'package', file), 'utf8')) as {
        contractName: string
        sourceName: string
        abi: unknown[]
        bytecode: Hex
        deployedBytecode: Hex
      }
      if (deployment !== undefined) {
        const at = getContractAddress({
          opcode: 'CREATE2',
          from: DEPLOYER,
          salt: deployment.salt,
          bytecode: hardhat.bytecode,
        })
        if (!isAddressEqual(at, deployment.address)) {
          throw new Error(`${PACKAGE}@${version} ${name} lands at ${at}, not ${deployment.address}`)
        }
      }
      const artifact = {
        contractName: hardhat.contractName,
        abi: hardhat.abi,
        bytecode: hardhat.bytecode,
        // Hardhat writes the runtime code with immutables as zeros (the EntryPoints' SenderCreator):
        // the simulations contracts read none, which is what makes them usable as code overrides.
        deployedBytecode: hardhat.deployedBytecode,
        source: { package: PACKAGE, version, file, sourceName: hardhat.sourceName },
        compiler: { version: solcVersion(hardhat.deployedBytecode), from: 'CBOR metadata' },
        ...(deployment !== undefined ? { deployment: { deployer: DEPLOYER, ...deployment } } : {}),
      }
      writeFileSync(new URL(`${name}.json`, out), `${JSON.stringify(artifact, null, 2)}\n`)
      console.log(`wrote account-abstraction/${dir}/${name}.json from ${PACKAGE}@${version}`)
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
execFileSync(process.execPath, [
  require.resolve('@biomejs/biome/bin/biome'),
  'format',
  '--write',
  fileURLToPath(root),
])
