/**
 * Regenerates `contracts/protocols/uniswap/*.json` from the compiled artifacts that Uniswap's
 * own npm packages ship (no compiling: these are the builds Uniswap published), plus
 * `addresses.json`, the Base mainnet (chain 8453) addresses read from `@uniswap/sdk-core`.
 *
 *   npx tsx scripts/protocol-artifacts/uniswap.ts && npx biome check --write contracts/protocols
 *
 * Packages (exact devDependencies): @uniswap/v2-core@1.0.1, @uniswap/v2-periphery@1.1.0-beta.0,
 * @uniswap/v3-core@1.0.0, @uniswap/v3-periphery@1.4.4, @uniswap/swap-router-contracts@1.3.1,
 * @uniswap/universal-router@2.1.0, canonical-weth@1.4.0, @uniswap/sdk-core@7.19.4 and
 * @uniswap/v4-periphery@1.0.3 (Permit2's runtime code).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const OUT = fileURLToPath(new URL('../../contracts/protocols/uniswap/', import.meta.url))

interface Source {
  contractName: string
  pkg: string
  file: string
  /** What the package tells about the build; the rest is read from the bytecode's CBOR tail. */
  settings: (json: Record<string, unknown>) => unknown
}

const NOT_SHIPPED = {
  note: 'the package ships no build-info; settings are not published with the artifact',
}

/** Waffle builds (v2) embed their solc metadata JSON, which holds the full settings. */
const fromMetadata = (json: Record<string, unknown>) => {
  if (typeof json.metadata !== 'string') return NOT_SHIPPED
  const meta = JSON.parse(json.metadata) as { settings: Record<string, unknown> }
  const { compilationTarget: _target, ...settings } = meta.settings
  return settings
}

const SOURCES: Source[] = [
  {
    contractName: 'UniswapV2Factory',
    pkg: '@uniswap/v2-core',
    file: 'build/UniswapV2Factory.json',
    settings: fromMetadata,
  },
  {
    contractName: 'UniswapV2Pair',
    pkg: '@uniswap/v2-core',
    file: 'build/UniswapV2Pair.json',
    settings: fromMetadata,
  },
  {
    contractName: 'UniswapV2Router02',
    pkg: '@uniswap/v2-periphery',
    file: 'build/UniswapV2Router02.json',
    settings: fromMetadata,
  },
  {
    contractName: 'UniswapV3Factory',
    pkg: '@uniswap/v3-core',
    file: 'artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
    settings: () => NOT_SHIPPED,
  },
  {
    contractName: 'UniswapV3Pool',
    pkg: '@uniswap/v3-core',
    file: 'artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
    settings: () => NOT_SHIPPED,
  },
  {
    contractName: 'NonfungiblePositionManager',
    pkg: '@uniswap/v3-periphery',
    file: 'artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
    settings: () => NOT_SHIPPED,
  },
  {
    contractName: 'SwapRouter02',
    pkg: '@uniswap/swap-router-contracts',
    file: 'artifacts/contracts/SwapRouter02.sol/SwapRouter02.json',
    settings: () => NOT_SHIPPED,
  },
  {
    contractName: 'UniversalRouter',
    pkg: '@uniswap/universal-router',
    file: 'artifacts/contracts/UniversalRouter.sol/UniversalRouter.json',
    settings: () => NOT_SHIPPED,
  },
  {
    contractName: 'WETH9',
    pkg: 'canonical-weth',
    file: 'build/contracts/WETH9.json',
    settings: (json) => ({
      note: 'truffle build',
      compiler: json.compiler,
    }),
  },
]

const hex = (code: unknown): `0x${string}` => {
  const raw = typeof code === 'object' && code !== null ? (code as { object: string }).object : code
  if (typeof raw !== 'string' || raw.length === 0) throw new Error('no bytecode')
  return (raw.startsWith('0x') ? raw : `0x${raw}`) as `0x${string}`
}

/** The solc version from the metadata CBOR at the end of runtime code (`solc` key), if any. */
function solcVersion(deployed: string): string | undefined {
  const marker = '64736f6c6343' // "solc" + bytes(3)
  const at = deployed.lastIndexOf(marker)
  if (at < 0) return undefined
  const v = deployed.slice(at + marker.length, at + marker.length + 6)
  return [0, 2, 4].map((i) => Number.parseInt(v.slice(i, i + 2), 16)).join('.')
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Read from node_modules directly: some packages (sdk-core) do not export package.json. */
function packageVersion(pkg: string): string {
  return (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as {
      version: string
    }
  ).version
}

mkdirSync(OUT, { recursive: true })
for (const source of SOURCES) {
  const json = JSON.parse(readFileSync(require.resolve(`${source.pkg}/${source.file}`), 'utf8'))
  const bytecode = hex(json.bytecode ?? json.evm?.bytecode)
  const deployedBytecode = hex(json.deployedBytecode ?? json.evm?.deployedBytecode)
  if (bytecode.includes('__')) throw new Error(`${source.contractName} has unlinked libraries`)
  const metaVersion =
    typeof json.metadata === 'string'
      ? (JSON.parse(json.metadata) as { compiler: { version: string } }).compiler.version
      : undefined
  const artifact = {
    contractName: source.contractName,
    abi: json.abi,
    bytecode,
    deployedBytecode,
    source: { package: source.pkg, version: packageVersion(source.pkg), file: source.file },
    compiler: {
      version:
        metaVersion ??
        (json.compiler as { version?: string } | undefined)?.version ??
        solcVersion(deployedBytecode) ??
        'unknown',
      settings: source.settings(json),
    },
  }
  writeFileSync(join(OUT, `${source.contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
  console.log(`${source.contractName}: ${(deployedBytecode.length - 2) / 2} bytes runtime`)
}

// Permit2 (a Universal Router immutable): Uniswap ships no Permit2 build on npm, but
// v4-periphery carries Permit2's mainnet runtime code as a hex literal in DeployPermit2.sol (used
// there with vm.etch). Its ABI is the union of IAllowanceTransfer and ISignatureTransfer. The
// creation `bytecode` is a plain copy-and-return wrapper around that runtime code (Permit2 has
// no constructor storage; its immutables cache chain 1's id and domain separator, and it
// recomputes the separator on any other chain).
{
  const pkg = '@uniswap/v4-periphery'
  const file = 'lib/permit2/test/utils/DeployPermit2.sol'
  const text = readFileSync(join(ROOT, 'node_modules', pkg, file), 'utf8')
  const runtime = text.match(/hex"([0-9a-f]+)"/)?.[1]
  if (!runtime) throw new Error(`no runtime hex in ${pkg}/${file}`)
  const abiOf = (name: string, file = `${name}.json`) =>
    (
      JSON.parse(
        readFileSync(join(ROOT, 'node_modules', pkg, 'foundry-out', `${name}.sol`, file), 'utf8'),
      ) as { abi: { type: string; name?: string; inputs?: { type: string }[] }[] }
    ).abi
  const seen = new Set<string>()
  const abi = [
    ...abiOf('IAllowanceTransfer', 'IAllowanceTransfer.default.json'),
    ...abiOf('ISignatureTransfer'),
  ].filter((item) => {
    const key = `${item.type} ${item.name ?? ''}(${(item.inputs ?? []).map((i) => i.type).join()})`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const length = (runtime.length / 2).toString(16).padStart(4, '0')
  // PUSH2 len, DUP1, PUSH1 0x0c (this prefix's size), PUSH1 0, CODECOPY, PUSH1 0, RETURN
  const bytecode = `0x61${length}80600c6000396000f3${runtime}`
  const artifact = {
    contractName: 'Permit2',
    abi,
    bytecode,
    deployedBytecode: `0x${runtime}`,
    source: {
      package: pkg,
      version: packageVersion(pkg),
      file,
      note: 'runtime code only (mainnet Permit2 at 0x000000000022D473030F116dDEE9F6B43aC78BA3); bytecode is a copy-and-return wrapper',
    },
    compiler: { version: solcVersion(runtime) ?? 'unknown', settings: NOT_SHIPPED },
  }
  writeFileSync(join(OUT, 'Permit2.json'), `${JSON.stringify(artifact, null, 2)}\n`)
  console.log(`Permit2: ${runtime.length / 2} bytes runtime`)
}

// Base mainnet addresses, read from Uniswap's SDK so they are not typed by hand.
const sdk = require('@uniswap/sdk-core') as {
  ChainId: { BASE: number }
  CHAIN_TO_ADDRESSES_MAP: Record<number, Record<string, string>>
  V2_FACTORY_ADDRESSES: Record<number, string>
  V2_ROUTER_ADDRESSES: Record<number, string>
}
const BASE = sdk.ChainId.BASE
const base = sdk.CHAIN_TO_ADDRESSES_MAP[BASE]
if (BASE !== 8453 || !base) throw new Error('@uniswap/sdk-core has no Base addresses')
const addresses = {
  chainId: BASE,
  source: { package: '@uniswap/sdk-core', version: packageVersion('@uniswap/sdk-core') },
  v2Factory: sdk.V2_FACTORY_ADDRESSES[BASE],
  v2Router02: sdk.V2_ROUTER_ADDRESSES[BASE],
  v3Factory: base.v3CoreFactoryAddress,
  nonfungiblePositionManager: base.nonfungiblePositionManagerAddress,
  swapRouter02: base.swapRouter02Address,
  v4PoolManager: base.v4PoolManagerAddress,
  v4PositionManager: base.v4PositionManagerAddress,
}
writeFileSync(join(OUT, 'addresses.json'), `${JSON.stringify(addresses, null, 2)}\n`)
console.log(addresses)
