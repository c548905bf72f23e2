// Rebuilds contracts/protocols/metamask/EIP7702StatelessDeleGator.json: MetaMask's EIP-7702
// wallet delegate (the smart account MetaMask upgrades EOAs to), from the ABI and creation
// bytecode `@metamask/delegation-abis@2.0.0` ships and the Base deployment
// `@metamask/delegation-deployments` lists. Neither package is a dependency: both are fetched
// with `npm pack` into a temporary directory.
//
// The runtime code carries immutables (the constructor's DelegationManager and EntryPoint, and
// OpenZeppelin EIP712's cached chain id, address and domain separator), so a delegating account's
// code is recognised by `maskedCodeHash`: keccak256 of the runtime code with `immutables` zeroed.
// They are found by deploying twice on a local anvil with every such input different.
// Run: npx tsx scripts/protocol-artifacts/metamask-delegator.ts (needs npm registry access)
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  type Abi,
  type Address,
  concatHex,
  domainSeparator,
  encodeAbiParameters,
  getAddress,
  type Hex,
  keccak256,
  pad,
  toHex,
} from 'viem'
import {
  type ByteRange,
  deployInitCode,
  immutableRanges,
  maskedCodeHash,
  maskRanges,
  setChainId,
  startLocalChain,
  wordAt,
} from './runtime-code.js'

const require = createRequire(import.meta.url)
const ABIS_PACKAGE = '@metamask/delegation-abis'
const ABIS_VERSION = '2.0.0'
const DEPLOYMENTS_PACKAGE = '@metamask/delegation-deployments'
const CONTRACT = 'EIP7702StatelessDeleGator'
const ABI_FILE = `dist/abis/${CONTRACT}.mjs`
const BYTECODE_FILE = 'dist/bytecode.mjs'
const BASE_CHAIN_ID = 8453
const OUT_DIR = new URL('../../contracts/protocols/metamask/', import.meta.url)

/** `npm pack`s `spec` into `dir` and returns the unpacked package root and its version. */
function npmPack(spec: string, dir: string): { root: string; version: string } {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', spec, '--json', '--pack-destination', dir], { encoding: 'utf8' }),
  ) as { filename: string; version: string }[]
  if (!packed) throw new Error(`npm pack ${spec} returned nothing`)
  const root = join(dir, packed.filename.replace(/\.tgz$/, ''))
  mkdirSync(root)
  execFileSync('tar', ['xzf', join(dir, packed.filename), '-C', root, '--strip-components=1'])
  return { root, version: packed.version }
}

async function importFrom<T>(root: string, file: string): Promise<T> {
  return (await import(pathToFileURL(join(root, file)).href)) as T
}

const work = mkdtempSync(join(tmpdir(), 'metamask-delegator-'))
try {
  const abis = npmPack(`${ABIS_PACKAGE}@${ABIS_VERSION}`, work)
  const deploymentsPkg = npmPack(`${DEPLOYMENTS_PACKAGE}@latest`, work)

  const { abi } = await importFrom<{ abi: Abi }>(abis.root, ABI_FILE)
  const bytecodes = await importFrom<Record<string, Hex>>(abis.root, BYTECODE_FILE)
  const bytecode = bytecodes[CONTRACT]
  if (!bytecode?.startsWith('0x')) throw new Error(`${BYTECODE_FILE} has no ${CONTRACT}`)

  // The newest framework version deployed on Base, as the deployments package lists it.
  const { DELEGATOR_CONTRACTS } = await importFrom<{
    DELEGATOR_CONTRACTS: Record<string, Record<number, Record<string, string>>>
  }>(deploymentsPkg.root, 'dist/index.mjs')
  const onBase = Object.entries(DELEGATOR_CONTRACTS)
    .filter(([, chains]) => chains[BASE_CHAIN_ID]?.[`${CONTRACT}Impl`])
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .at(-1)
  if (!onBase) throw new Error(`${DEPLOYMENTS_PACKAGE} lists no ${CONTRACT} on Base`)
  const [frameworkVersion, chains] = onBase
  const base = chains[BASE_CHAIN_ID] as Record<string, string>
  const canonical = {
    delegator: getAddress(base[`${CONTRACT}Impl`] as string),
    delegationManager: getAddress(base.DelegationManager as string),
    entryPoint: getAddress(base.EntryPoint as string),
  }

  const withArgs = (delegationManager: Address, entryPoint: Address): Hex =>
    concatHex([
      bytecode,
      encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }],
        [delegationManager, entryPoint],
      ),
    ])

  const chain = await startLocalChain()
  let ranges: ByteRange[]
  let names: Record<string, string>
  let predictedBaseRuntime: Hex
  try {
    const [first, second] = chain.accounts
    // The canonical arguments on chain 8453, then everything different: arguments, deployer
    // (hence address) and chain id, so every immutable differs between the two.
    const a = await deployInitCode(
      chain,
      first,
      withArgs(canonical.delegationManager, canonical.entryPoint),
    )
    await setChainId(chain, 31337)
    const other = (n: number) => getAddress(pad(toHex(n), { size: 20 }))
    const b = await deployInitCode(chain, second, withArgs(other(0xd1), other(0xe1)))
    ranges = immutableRanges(a.runtime, b.runtime)

    // Name each range by the value it holds in the canonical deployment.
    const eip712 = (await chain.publicClient.readContract({
      address: a.address,
      abi,
      functionName: 'eip712Domain',
    })) as readonly [Hex, string, string, bigint, Address, Hex, readonly bigint[]]
    const [, name, version] = eip712
    const separator = (chainId: number, verifyingContract: Address) =>
      domainSeparator({ domain: { name, version, chainId, verifyingContract } })
    const word = (value: Hex) => pad(value, { size: 32 }).toLowerCase()
    const known = new Map<string, string>([
      [word(canonical.delegationManager), 'delegationManager (constructor)'],
      [word(canonical.entryPoint), 'entryPoint (constructor)'],
      // EIP712._cachedThis and DeleGatorCore's own-address check (which refuses direct calls)
      // both hold the deployment's address.
      [word(a.address), 'deployment address'],
      [word(toHex(BASE_CHAIN_ID)), 'EIP712._cachedChainId'],
      [separator(BASE_CHAIN_ID, a.address).toLowerCase(), 'EIP712._cachedDomainSeparator'],
      [keccak256(toHex(name)), 'EIP712._hashedName'],
      [keccak256(toHex(version)), 'EIP712._hashedVersion'],
    ])
    names = Object.fromEntries(
      ranges.map((range) => [String(range[0]), known.get(wordAt(a.runtime, range)) ?? 'unknown']),
    )

    // The code Base holds at the canonical address: the local canonical deployment with its
    // address-bound immutables rewritten for that address (predicted, not read from Base).
    predictedBaseRuntime = a.runtime
    for (const range of ranges) {
      const label = names[String(range[0])]
      const value =
        label === 'deployment address'
          ? word(canonical.delegator)
          : label === 'EIP712._cachedDomainSeparator'
            ? separator(BASE_CHAIN_ID, canonical.delegator)
            : undefined
      if (!value) continue
      const [start, length] = range
      predictedBaseRuntime = `0x${predictedBaseRuntime.slice(2, 2 + start * 2)}${value.slice(2)}${predictedBaseRuntime.slice(2 + (start + length) * 2)}`
    }
  } finally {
    await chain.anvil.stop()
  }

  // solc's version from the CBOR metadata at the end of the code: `64736f6c6343` ("solc") + 3 bytes.
  const solc = /64736f6c6343([0-9a-f]{6})0033$/.exec(bytecode)?.[1]
  const artifact = {
    contractName: CONTRACT,
    abi,
    bytecode,
    // Runtime code with the immutables zeroed, as solc's own deployedBytecode leaves them.
    deployedBytecode: maskRanges(predictedBaseRuntime, ranges),
    immutables: ranges,
    immutableNames: names,
    maskedCodeHash: maskedCodeHash(predictedBaseRuntime, ranges),
    predictedBaseCodeHash: keccak256(predictedBaseRuntime),
    deployments: {
      chainId: BASE_CHAIN_ID,
      frameworkVersion,
      [CONTRACT]: canonical.delegator,
      DelegationManager: canonical.delegationManager,
      EntryPoint: canonical.entryPoint,
      source: {
        package: DEPLOYMENTS_PACKAGE,
        version: deploymentsPkg.version,
        file: 'dist/index.mjs',
      },
    },
    source: {
      package: ABIS_PACKAGE,
      version: abis.version,
      file: `${ABI_FILE}, ${BYTECODE_FILE}`,
    },
    compiler: solc
      ? {
          version: solc
            .match(/../g)
            ?.map((byte) => Number.parseInt(byte, 16))
            .join('.'),
          note: 'read from the CBOR metadata of the creation code',
        }
      : undefined,
  }
  mkdirSync(OUT_DIR, { recursive: true })
  writeFileSync(new URL(`${CONTRACT}.json`, OUT_DIR), `${JSON.stringify(artifact, null, 2)}\n`)
  console.log(
    `wrote contracts/protocols/metamask/${CONTRACT}.json: ${ranges.length} immutables, masked ${artifact.maskedCodeHash}`,
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}

// The files are committed as the repository's formatter (biome) prints them.
execFileSync(process.execPath, [
  require.resolve('@biomejs/biome/bin/biome'),
  'format',
  '--write',
  fileURLToPath(OUT_DIR),
])
