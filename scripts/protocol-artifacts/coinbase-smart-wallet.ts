// Rebuilds contracts/protocols/coinbase-smart-wallet/{CoinbaseSmartWallet,CoinbaseSmartWalletFactory}.json:
// Coinbase Smart Wallet v1 (an ERC-4337 account on EntryPoint v0.6, the one viem's
// `toCoinbaseSmartAccount({ version: '1' })` drives), compiled here with solc-js from the source
// at the commits below, which are the commits of coinbase/smart-wallet's "v1 deployment" and its
// submodules. No source is vendored: each repository is cloned (blobless, bare) into a temporary
// directory and read with `git show <commit>:<path>`; set CSW_GIT_MIRRORS to a directory holding
// `<owner>+<name>/repo` git directories to read those instead. solc 0.8.23 (the wallet's exact
// pragma) is fetched with `npm pack` into the same temporary directory; it is not a dependency.
//
// The settings are Foundry's as that commit ran `forge script` with `FOUNDRY_PROFILE=deploy`:
// optimizer 999999 runs, no via-IR, Foundry's default evm version of the time (paris: no PUSH0),
// Foundry's auto-detected remappings (they are in the metadata, hence in the code's hash) and
// source names relative to the project root. The result is byte-identical to the init code of
// the Base deployment (broadcast/DeployFactory.s.sol/8453/run-latest.json): through the Safe
// Singleton Factory with the deployment's salts it lands at the canonical addresses, which the
// script checks before writing.
// Run: npx tsx scripts/protocol-artifacts/coinbase-smart-wallet.ts (needs GitHub and npm access)
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type Address,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  isAddressEqual,
} from 'viem'

const require = createRequire(import.meta.url)
const SOLC_VERSION = '0.8.23'
/** Safe Singleton Factory: the CREATE2 deployer Coinbase deployed through (same code as 0x4e59…). */
const DEPLOYER: Address = '0x914d7Fec6aaC8cd542e72Bca78B30650d45643d7'
const IMPLEMENTATION = {
  address: '0x000100abaad02f1cfC8Bbe32bD5a564817339E72' as Address,
  salt: '0x3438ae5ce1ff7750c1e09c4b28e2a04525da412f91561eb5b57729977f591fbb' as Hex,
}
const FACTORY = {
  address: '0x0BA5ED0c6AA8c49038F819E587E2633c4A9F428a' as Address,
  salt: '0x278d06dab87f67bb2d83470a70c8975a2c99872f290058fb43bcc47da5f0390c' as Hex,
}

/** Where each source path (as Foundry names it in the project) comes from. Longest prefix first. */
const SOURCES: { prefix: string; repo: string; commit: string }[] = [
  {
    // webauthn-sol's submodule, reached through the FreshCryptoLib/ remapping.
    prefix: 'lib/webauthn-sol/lib/FreshCryptoLib/',
    repo: 'rdubois-crypto/FreshCryptoLib',
    commit: '76f3f135b7b27d2aa519f265b56bfc49a2573ab5',
  },
  {
    prefix: 'lib/webauthn-sol/',
    repo: 'base-org/webauthn-sol',
    commit: '619f20ab0f074fef41066ee4ab24849a913263b2',
  },
  {
    prefix: 'lib/account-abstraction/',
    repo: 'eth-infinitism/account-abstraction',
    commit: 'abff2aca61a8f0934e533d0d352978055fddbd96',
  },
  {
    prefix: 'lib/solady/',
    repo: 'Vectorized/solady',
    commit: 'c4c96607cb3aa3807b14c81ae2015bcba061f8fc',
  },
  {
    prefix: 'lib/openzeppelin-contracts/',
    repo: 'OpenZeppelin/openzeppelin-contracts',
    commit: '5705e8208bc92cd82c7bcdfeac8dbc7377767d96',
  },
  {
    // "v1 deployment", 2024-04-22.
    prefix: '',
    repo: 'coinbase/smart-wallet',
    commit: 'd271f255b51423e18275eaf23bbb4c5df2ff4304',
  },
]

/** Foundry's auto-detected remappings at that commit (it had no remappings.txt). */
const REMAPPINGS = [
  '@openzeppelin/contracts/=lib/openzeppelin-contracts/contracts/',
  'FreshCryptoLib/=lib/webauthn-sol/lib/FreshCryptoLib/solidity/src/',
  'account-abstraction/=lib/account-abstraction/contracts/',
  'ds-test/=lib/forge-std/lib/ds-test/src/',
  'erc4626-tests/=lib/openzeppelin-contracts/lib/erc4626-tests/',
  'forge-std/=lib/forge-std/src/',
  'openzeppelin-contracts/=lib/openzeppelin-contracts/',
  'p256-verifier/=lib/p256-verifier/',
  'safe-singleton-deployer-sol/=lib/safe-singleton-deployer-sol/',
  'solady/=lib/solady/src/',
  'webauthn-sol/=lib/webauthn-sol/src/',
]
const SETTINGS = {
  remappings: REMAPPINGS,
  optimizer: { enabled: true, runs: 999999 },
  evmVersion: 'paris',
  metadata: { bytecodeHash: 'ipfs' },
}

const scratch = mkdtempSync(join(tmpdir(), 'csw-artifacts-'))
try {
  const gitDirs = new Map<string, string>()
  const gitDir = (repo: string): string => {
    const known = gitDirs.get(repo)
    if (known) return known
    const mirror = process.env.CSW_GIT_MIRRORS
      ? join(process.env.CSW_GIT_MIRRORS, repo.replace('/', '+'), 'repo')
      : undefined
    let dir: string
    if (mirror && existsSync(mirror)) dir = mirror
    else {
      dir = join(scratch, repo.replace('/', '+'))
      execFileSync('git', [
        'clone',
        '--quiet',
        '--bare',
        '--filter=blob:none',
        `https://github.com/${repo}`,
        dir,
      ])
    }
    gitDirs.set(repo, dir)
    return dir
  }
  const read = (path: string): string | undefined => {
    const source = SOURCES.find((s) => path.startsWith(s.prefix))
    if (!source) return undefined
    try {
      return execFileSync(
        'git',
        ['-C', gitDir(source.repo), 'show', `${source.commit}:${path.slice(source.prefix.length)}`],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      )
    } catch {
      return undefined
    }
  }

  const tarball = execFileSync('npm', ['pack', `solc@${SOLC_VERSION}`, '--silent'], {
    cwd: scratch,
    encoding: 'utf8',
  }).trim()
  const solcDir = join(scratch, 'solc')
  mkdirSync(solcDir)
  execFileSync('tar', ['xzf', join(scratch, tarball), '-C', solcDir, '--strip-components=1'])
  execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--silent'], {
    cwd: solcDir,
  })
  const solc = require(join(solcDir, 'index.js')) as {
    compile(input: string, callbacks: { import(path: string): unknown }): string
    version(): string
  }

  const entry = 'src/CoinbaseSmartWalletFactory.sol'
  const input = {
    language: 'Solidity',
    sources: { [entry]: { content: read(entry) } },
    settings: {
      ...SETTINGS,
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  }
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (path: string) => {
        const contents = read(path)
        return contents === undefined ? { error: `${path} not found` } : { contents }
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
          evm: { bytecode: { object: string }; deployedBytecode: { object: string } }
        }
      >
    >
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))

  const out = new URL('../../contracts/protocols/coinbase-smart-wallet/', import.meta.url)
  mkdirSync(out, { recursive: true })
  for (const [file, name, deployment, args] of [
    ['src/CoinbaseSmartWallet.sol', 'CoinbaseSmartWallet', IMPLEMENTATION, '0x'],
    [
      entry,
      'CoinbaseSmartWalletFactory',
      FACTORY,
      encodeAbiParameters([{ type: 'address' }], [IMPLEMENTATION.address]),
    ],
  ] as const) {
    const compiled = output.contracts[file]?.[name]
    if (!compiled) throw new Error(`solc produced no ${name}`)
    const bytecode = `0x${compiled.evm.bytecode.object}` as Hex
    const at = getContractAddress({
      opcode: 'CREATE2',
      from: DEPLOYER,
      salt: deployment.salt,
      bytecode: `${bytecode}${args.slice(2)}`,
    })
    if (!isAddressEqual(at, deployment.address)) {
      throw new Error(`${name} lands at ${at}, not at the canonical ${deployment.address}`)
    }
    const source = SOURCES.find((s) => s.prefix === '')
    const artifact = {
      contractName: name,
      abi: compiled.abi,
      bytecode,
      // solc's runtime code: immutables (the wallet's own address, the factory's implementation)
      // are zeros here.
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      source: {
        repo: source?.repo,
        commit: source?.commit,
        file,
        dependencies: SOURCES.filter((s) => s.prefix !== '').map(({ prefix, repo, commit }) => ({
          path: prefix,
          repo,
          commit,
        })),
      },
      compiler: { version: solc.version(), settings: SETTINGS },
      deployment: {
        deployer: DEPLOYER,
        salt: deployment.salt,
        constructorArgs: args,
        address: deployment.address,
      },
    }
    writeFileSync(new URL(`${name}.json`, out), `${JSON.stringify(artifact, null, 2)}\n`)
    console.log(`wrote coinbase-smart-wallet/${name}.json; lands at ${at}`)
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
execFileSync(process.execPath, [
  require.resolve('@biomejs/biome/bin/biome'),
  'format',
  '--write',
  fileURLToPath(new URL('../../contracts/protocols/coinbase-smart-wallet/', import.meta.url)),
])
