/**
 * Rebuilds contracts/protocols/aave-v3/*.json from the compiled artifacts shipped in npm
 * packages (no compiling): Aave v3 core `@aave/core-v3@1.19.3` (solc 0.8.10, optimizer 100000
 * runs, london), `WrappedTokenGatewayV3` from `@aave/periphery-v3@2.5.2` (solc 0.8.10,
 * 25000 runs) and `WETH9` from `canonical-weth@1.4.0` (solc 0.5.0, truffle build).
 *
 *   npx tsx scripts/protocol-artifacts/aave-v3.ts
 *
 * Each file: contractName, abi, bytecode (creation, library placeholders left in place, see
 * linkReferences), deployedBytecode, linkReferences / deployedLinkReferences (library
 * placeholders by source file and library name), immutableReferences (from the compiler's
 * build info), source {package, version, file}, compiler {version, settings}.
 */

import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const OUT = fileURLToPath(new URL('../../contracts/protocols/aave-v3/', import.meta.url))

interface BuildInfo {
  solcLongVersion: string
  input: { settings: { optimizer: unknown; evmVersion?: string } }
  output: {
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
              linkReferences: Record<string, unknown>
              immutableReferences?: Record<string, unknown>
            }
          }
        }
      >
    >
  }
}

function packageRoot(name: string): { root: string; version: string } {
  const pkg = require.resolve(`${name}/package.json`)
  return { root: dirname(pkg), version: JSON.parse(readFileSync(pkg, 'utf8')).version }
}

function buildInfo(root: string): BuildInfo {
  const dir = join(root, 'artifacts', 'build-info')
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
  if (files.length !== 1)
    throw new Error(`expected one build-info in ${dir}, found ${files.length}`)
  return JSON.parse(readFileSync(join(dir, files[0] as string), 'utf8')) as BuildInfo
}

const hex = (code: string) => (code.startsWith('0x') ? code : `0x${code}`)

function fromHardhat(pkgName: string, sources: Record<string, string>): void {
  const { root, version } = packageRoot(pkgName)
  const info = buildInfo(root)
  for (const [contractName, file] of Object.entries(sources)) {
    const out = info.output.contracts[file]?.[contractName]
    if (!out) throw new Error(`${contractName} not found in ${pkgName} ${file}`)
    const artifact = {
      contractName,
      abi: out.abi,
      bytecode: hex(out.evm.bytecode.object),
      deployedBytecode: hex(out.evm.deployedBytecode.object),
      linkReferences: out.evm.bytecode.linkReferences,
      deployedLinkReferences: out.evm.deployedBytecode.linkReferences,
      immutableReferences: out.evm.deployedBytecode.immutableReferences ?? {},
      source: { package: pkgName, version, file },
      compiler: {
        version: info.solcLongVersion,
        settings: {
          optimizer: info.input.settings.optimizer,
          evmVersion: info.input.settings.evmVersion,
        },
      },
    }
    writeFileSync(join(OUT, `${contractName}.json`), `${JSON.stringify(artifact)}\n`)
    console.log(`${contractName}: ${(artifact.deployedBytecode.length - 2) / 2} bytes runtime`)
  }
}

mkdirSync(OUT, { recursive: true })

const CORE = 'contracts/protocol'
fromHardhat('@aave/core-v3', {
  PoolAddressesProvider: `${CORE}/configuration/PoolAddressesProvider.sol`,
  ACLManager: `${CORE}/configuration/ACLManager.sol`,
  L2Pool: `${CORE}/pool/L2Pool.sol`,
  PoolConfigurator: `${CORE}/pool/PoolConfigurator.sol`,
  DefaultReserveInterestRateStrategy: `${CORE}/pool/DefaultReserveInterestRateStrategy.sol`,
  SupplyLogic: `${CORE}/libraries/logic/SupplyLogic.sol`,
  BorrowLogic: `${CORE}/libraries/logic/BorrowLogic.sol`,
  LiquidationLogic: `${CORE}/libraries/logic/LiquidationLogic.sol`,
  EModeLogic: `${CORE}/libraries/logic/EModeLogic.sol`,
  BridgeLogic: `${CORE}/libraries/logic/BridgeLogic.sol`,
  FlashLoanLogic: `${CORE}/libraries/logic/FlashLoanLogic.sol`,
  PoolLogic: `${CORE}/libraries/logic/PoolLogic.sol`,
  ConfiguratorLogic: `${CORE}/libraries/logic/ConfiguratorLogic.sol`,
  InitializableImmutableAdminUpgradeabilityProxy: `${CORE}/libraries/aave-upgradeability/InitializableImmutableAdminUpgradeabilityProxy.sol`,
  AToken: `${CORE}/tokenization/AToken.sol`,
  VariableDebtToken: `${CORE}/tokenization/VariableDebtToken.sol`,
  StableDebtToken: `${CORE}/tokenization/StableDebtToken.sol`,
  AaveOracle: 'contracts/misc/AaveOracle.sol',
  AaveProtocolDataProvider: 'contracts/misc/AaveProtocolDataProvider.sol',
  L2Encoder: 'contracts/misc/L2Encoder.sol',
  MockAggregator: 'contracts/mocks/oracle/CLAggregators/MockAggregator.sol',
})
fromHardhat('@aave/periphery-v3', {
  WrappedTokenGatewayV3: 'contracts/misc/WrappedTokenGatewayV3.sol',
})

// WETH9: a truffle build (solc 0.5.0) with no build info; no immutables, no libraries.
{
  const { root, version } = packageRoot('canonical-weth')
  const file = 'build/contracts/WETH9.json'
  const weth = JSON.parse(readFileSync(join(root, file), 'utf8')) as {
    abi: unknown[]
    bytecode: string
    deployedBytecode: string
    compiler: { version: string }
  }
  writeFileSync(
    join(OUT, 'WETH9.json'),
    `${JSON.stringify({
      contractName: 'WETH9',
      abi: weth.abi,
      bytecode: hex(weth.bytecode),
      deployedBytecode: hex(weth.deployedBytecode),
      source: { package: 'canonical-weth', version, file },
      compiler: { version: weth.compiler.version, settings: {} },
    })}\n`,
  )
  console.log('WETH9')
}

// The repository's formatter (biome) owns JSON layout: format the files so a rebuild is
// byte-identical to what is committed.
execFileSync('npx', ['biome', 'format', '--write', OUT], { stdio: 'inherit' })
