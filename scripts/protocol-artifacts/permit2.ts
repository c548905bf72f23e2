// Rebuilds contracts/protocols/permit2/Permit2.json: Uniswap's canonical Permit2 runtime code,
// shipped as "precompiled bytecode" in `@uniswap/v4-periphery@1.0.3`
// (lib/permit2/test/utils/DeployPermit2.sol, solc 0.8.17 via-IR, 1,000,000 runs, no metadata
// hash), with its two immutables rewritten to the values Permit2's constructor stores on Base.
// The ABI comes from compiling the Permit2 sources shipped beside it (lib/permit2/src) with
// solc-js 0.8.17 (devDependency alias `solc-0.8.17`), which also confirms where the immutables
// sit. Run: npx tsx scripts/protocol-artifacts/permit2.ts

import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type Address,
  concat,
  encodeAbiParameters,
  type Hex,
  keccak256,
  numberToHex,
  size,
  toHex,
} from 'viem'

const require = createRequire(import.meta.url)
const PACKAGE = '@uniswap/v4-periphery'
const FILE = 'lib/permit2/test/utils/DeployPermit2.sol'
const PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const BASE_CHAIN_ID = 8453n
const version = (require(`${PACKAGE}/package.json`) as { version: string }).version
if (version !== '1.0.3') throw new Error(`expected ${PACKAGE}@1.0.3, found ${version}`)
const root = dirname(require.resolve(`${PACKAGE}/package.json`))

/** Permit2's EIP712: keccak256(abi.encode(TYPE_HASH, keccak256("Permit2"), chainid, this)). */
export function permit2DomainSeparator(chainId: bigint, address: Address = PERMIT2): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
      [
        keccak256(toHex('EIP712Domain(string name,uint256 chainId,address verifyingContract)')),
        keccak256(toHex('Permit2')),
        chainId,
        address,
      ],
    ),
  )
}

// 1. The shipped runtime: its immutables hold the values of a foundry test run (chain 31337,
// Permit2 deployed by the test contract at this address), not mainnet's.
const SHIPPED_ADDRESS: Address = '0xF62849F9A0B5Bf2913b396098F7c7019b51A820a'
const shipped = readFileSync(join(root, FILE), 'utf8').match(/hex"([0-9a-f]+)"/)?.[1]
if (!shipped) throw new Error(`no hex"..." runtime in ${FILE}`)

// EIP712.DOMAIN_SEPARATOR(): CHAINID PUSH32 _CACHED_CHAIN_ID EQ PUSH2 <dest> JUMPI
// PUSH32 _CACHED_DOMAIN_SEPARATOR ... (the same shape the compiler's immutableReferences give).
const pattern = /467f([0-9a-f]{64})0361[0-9a-f]{4}577f([0-9a-f]{64})/g
const matches = [...shipped.matchAll(pattern)].filter((m) => (m.index ?? 1) % 2 === 0)
if (matches.length !== 1)
  throw new Error(`expected one DOMAIN_SEPARATOR() pattern, ${matches.length}`)
const [match] = matches
if (!match) throw new Error('no DOMAIN_SEPARATOR() pattern')
const chainIdStart = (match.index ?? 0) / 2 + 2
const separatorStart = chainIdStart + 32 + 6
const shippedChainId = BigInt(`0x${match[1]}`)
if (`0x${match[2]}` !== permit2DomainSeparator(shippedChainId, SHIPPED_ADDRESS))
  throw new Error('the shipped domain separator does not match its chain id')

// 2. The ABI, and a cross-check of the immutables' layout, from the Permit2 sources.
const solc = require('solc-0.8.17') as { compile(input: string, imports: unknown): string }
const permit2Root = join(root, 'lib/permit2')
const settings = {
  viaIR: true,
  optimizer: { enabled: true, runs: 1_000_000 },
  metadata: { bytecodeHash: 'none' },
  remappings: ['solmate/=lib/solmate/'],
}
const output = JSON.parse(
  solc.compile(
    JSON.stringify({
      language: 'Solidity',
      sources: {
        'src/Permit2.sol': { content: readFileSync(join(permit2Root, 'src/Permit2.sol'), 'utf8') },
      },
      settings: {
        ...settings,
        outputSelection: {
          'src/Permit2.sol': {
            Permit2: [
              'abi',
              'evm.deployedBytecode.object',
              'evm.deployedBytecode.immutableReferences',
            ],
          },
        },
      },
    }),
    {
      import: (path: string) => {
        try {
          return {
            contents: readFileSync(
              join(permit2Root, path.replace(/^solmate\//, 'lib/solmate/')),
              'utf8',
            ),
          }
        } catch {
          return { error: `not found: ${path}` }
        }
      },
    },
  ),
) as {
  errors?: { severity: string; formattedMessage: string }[]
  contracts: Record<
    string,
    Record<
      string,
      {
        abi: unknown[]
        evm: {
          deployedBytecode: {
            object: string
            immutableReferences: Record<string, { start: number; length: number }[]>
          }
        }
      }
    >
  >
}
const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
const compiled = output.contracts['src/Permit2.sol']?.Permit2
if (!compiled) throw new Error('solc produced no Permit2')
const refs = Object.values(compiled.evm.deployedBytecode.immutableReferences)
  .flat()
  .map((r) => r.start)
  .sort((a, b) => a - b)
const [firstRef = -1, secondRef = -1] = refs
if (refs.length !== 2 || secondRef - firstRef !== separatorStart - chainIdStart)
  throw new Error(`compiled immutables ${JSON.stringify(refs)} do not have the shipped layout`)
if (compiled.evm.deployedBytecode.object.length !== shipped.length)
  throw new Error('compiled runtime length differs from the shipped runtime')

// 3. The runtime as Permit2's constructor leaves it on Base (chain 8453).
const put = (code: string, start: number, value: Hex) =>
  code.slice(0, start * 2) + value.slice(2) + code.slice(start * 2 + 64)
let runtime = put(shipped, chainIdStart, numberToHex(BASE_CHAIN_ID, { size: 32 }))
runtime = put(runtime, separatorStart, permit2DomainSeparator(BASE_CHAIN_ID))
const deployedBytecode = `0x${runtime}` as Hex
// Creation code: the shipped file has none; a 12-byte prefix that returns the runtime above.
const length = size(deployedBytecode)
const bytecode = concat([
  '0x61',
  numberToHex(length, { size: 2 }),
  '0x80600c6000396000f3',
  deployedBytecode,
])

const artifact = {
  contractName: 'Permit2',
  abi: compiled.abi,
  bytecode,
  deployedBytecode,
  immutableReferences: {
    _CACHED_CHAIN_ID: [{ start: chainIdStart, length: 32 }],
    _CACHED_DOMAIN_SEPARATOR: [{ start: separatorStart, length: 32 }],
  },
  immutableValues: {
    _CACHED_CHAIN_ID: BASE_CHAIN_ID.toString(),
    _CACHED_DOMAIN_SEPARATOR: permit2DomainSeparator(BASE_CHAIN_ID),
    shipped: {
      _CACHED_CHAIN_ID: shippedChainId.toString(),
      _CACHED_DOMAIN_SEPARATOR: `0x${match[2]}`,
      deployedAt: SHIPPED_ADDRESS,
    },
  },
  codeHashImmutablesZeroed: keccak256(
    `0x${put(put(shipped, chainIdStart, `0x${'00'.repeat(32)}`), separatorStart, `0x${'00'.repeat(32)}`)}`,
  ),
  source: { package: PACKAGE, version, file: FILE },
  compiler: {
    version: '0.8.17',
    settings,
    note: 'deployedBytecode: the runtime hex in FILE with both immutables set for chain 8453; bytecode: a CODECOPY/RETURN prefix + that runtime (no constructor runs); abi: solc-js 0.8.17 of lib/permit2/src/Permit2.sol',
  },
}
const dir = new URL('../../contracts/protocols/permit2/', import.meta.url)
mkdirSync(dir, { recursive: true })
writeFileSync(new URL('Permit2.json', dir), `${JSON.stringify(artifact, null, 2)}\n`)
console.log(
  `wrote contracts/protocols/permit2/Permit2.json (${length} bytes runtime; immutables at ${chainIdStart} and ${separatorStart}; shipped chain id ${shippedChainId})`,
)
// The files are committed as the repository's formatter (biome) prints them.
execFileSync(process.execPath, [
  require.resolve('@biomejs/biome/bin/biome'),
  'format',
  '--write',
  fileURLToPath(new URL('../../contracts/protocols/permit2/', import.meta.url)),
])
