import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { resolveAnvilBinary, startAnvil } from './anvil.js'
import { projectRoot } from './project-root.js'

/**
 * The devnet's prepared state (Base's infrastructure, see base-world.ts) as an anvil state
 * file, built once and loaded by every devnet start (`anvil --load-state`): placing the world
 * takes seconds, loading it a fraction of one. The file is named by a fingerprint of
 * everything that shapes it (the builder's sources, the contract artifacts, the anvil
 * binary), so a change to any of them builds a new one and an old one is never loaded.
 */

/** What the state is built from, relative to the checkout. */
const INPUTS = [
  'src/adapters/devnet',
  'contracts/artifacts/DevnetUSDC.json',
  'contracts/artifacts/Multicall3.json',
  'contracts/artifacts/GasPriceOracle.json',
  'contracts/protocols/weth9',
  'contracts/protocols/permit2',
  'contracts/protocols/uniswap',
  'contracts/protocols/op-bridge',
  'contracts/protocols/account-abstraction',
]

function* files(path: string): Generator<string> {
  if (!existsSync(path)) return
  try {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name)
      if (entry.isDirectory()) yield* files(child)
      else if (entry.isFile()) yield child
    }
  } catch {
    yield path // A file, not a directory.
  }
}

/** A hash over the content of every input and the anvil binary's package version. */
export function devnetStateFingerprint(root = projectRoot()): string {
  const hash = createHash('sha256').update('devnet-state v1\n')
  const paths = INPUTS.flatMap((input) => [...files(join(root, input))]).sort()
  for (const path of paths) {
    hash.update(`${relative(root, path)}\n`).update(readFileSync(path))
  }
  // The binary's own package version: a new anvil may not read an old anvil's state.
  const binary = resolveAnvilBinary()
  const manifest = join(binary, '..', '..', 'package.json')
  hash.update(existsSync(manifest) ? readFileSync(manifest) : binary)
  return hash.digest('hex').slice(0, 32)
}

/** Where state files live: the checkout's node_modules/.cache, else the temporary directory. */
function stateDir(root: string): string {
  const candidates = [
    join(root, 'node_modules', '.cache', 'pre-send-guard', 'devnet-state'),
    join(tmpdir(), 'pre-send-guard-devnet-state'),
  ]
  for (const dir of candidates) {
    try {
      mkdirSync(dir, { recursive: true })
      return dir
    } catch {
      // Read-only: try the next.
    }
  }
  throw new Error('devnet: no writable directory for the devnet state')
}

/** The state file for the current inputs, and whether it exists yet. */
export function devnetStateFile(root = projectRoot()): { path: string; exists: boolean } {
  const path = join(stateDir(root), `${devnetStateFingerprint(root)}.json`)
  return { path, exists: existsSync(path) }
}

/**
 * The path of a state file for the current inputs, built first when missing (a few seconds:
 * an anvil of its own, the world placed, its state dumped). Concurrent builders each write
 * a scratch file and rename it into place, so a reader never sees half a file.
 */
export async function ensureDevnetState(log?: (message: string) => void): Promise<string> {
  const { path, exists } = devnetStateFile()
  if (exists) return path
  log?.('building the devnet state (Base contracts, pools; once per change of its inputs)...')
  await buildDevnetState(path)
  return path
}

/** Builds the world on a fresh anvil and writes its state to `path`; removes stale state files. */
export async function buildDevnetState(path: string): Promise<void> {
  const { buildBaseWorld } = await import('./base-world.js')
  const anvil = await startAnvil()
  try {
    await buildBaseWorld(anvil.rpcUrl)
    const response = await fetch(anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }),
    })
    const body = (await response.json()) as { result?: string; error?: { message?: string } }
    if (!body.result) throw new Error(`devnet: anvil_dumpState failed: ${body.error?.message}`)
    // anvil answers the state gzipped; --load-state reads the JSON.
    const json = gunzipSync(Buffer.from(body.result.slice(2), 'hex'))
    const scratch = `${path}.${process.pid}.${Date.now()}.tmp`
    writeFileSync(scratch, json)
    renameSync(scratch, path)
  } finally {
    await anvil.stop()
  }
  const dir = join(path, '..')
  const keep = path.slice(dir.length + 1)
  for (const name of readdirSync(dir)) {
    // Older fingerprints' files (not scratch files of a concurrent build).
    if (name !== keep && name.endsWith('.json')) rmSync(join(dir, name), { force: true })
  }
}
